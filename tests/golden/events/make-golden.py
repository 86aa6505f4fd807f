#!/usr/bin/python3
"""Writes the event-stream golden files (formats/events.md) next to this
script. An implementation independent of lib/events/stream.c, written from
the spec: tests/unit/test_stream.c decodes these files and re-encodes good.bin
byte for byte, so the two implementations check each other.

    /usr/bin/python3 tests/golden/events/make-golden.py

The games here are mirrored by golden_games() in tests/unit/test_stream.c;
change both together."""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

REC = 128
CHUNK = 116
REC_EVENT, REC_TEXT, REC_TRAILER, REC_ABORT = 1, 2, 3, 4
TEXT_EXTRA, TEXT_SOURCE = 4, 5
NONE = 255  # no tile / no seat
UNK = 37    # "?"

TYPES = ["none", "start_game", "start_kyoku", "tsumo", "dahai", "chi", "pon",
         "daiminkan", "kakan", "ankan", "dora", "reach", "reach_accepted",
         "hora", "ryukyoku", "end_kyoku", "end_game"]
F = {"tsumogiri": 1 << 0, "scores": 1 << 1, "deltas": 1 << 2, "ura": 1 << 3,
     "kyotaku": 1 << 4, "honba": 1 << 5, "bakaze": 1 << 6, "kyoku": 1 << 7,
     "names": 1 << 8, "ura_alias": 1 << 9, "kan_alias": 1 << 10,
     "tehais": 1 << 11, "actor": 1 << 12}


def header(version=1, hsize=32, rsize=REC):
    return b"HYEVENTS" + struct.pack("<HHI", version, hsize, rsize) + bytes(16)


def event(game, type, line, flags=(), actor=NONE, target=NONE, pai=NONE,
          consumed=(), tsumogiri=0, bakaze=NONE, kyoku=0, honba=0, kyotaku=0,
          oya=NONE, dora=NONE, ura=(), scores=(0, 0, 0, 0), deltas=(0, 0, 0, 0),
          tehais=None, names=None, extra=None):
    """One EVENT record plus its TEXT records (as hy_event_blank + fields)."""
    fl = 0
    for f in flags:
        fl |= F[f]
    cons = list(consumed) + [NONE] * (4 - len(consumed))
    uras = list(ura) + [NONE] * (5 - len(ura))
    hands = tehais or [[NONE] * 13] * 4
    r = struct.pack("<BBHII", REC_EVENT, TYPES.index(type), fl, game, line)
    r += bytes([actor, target, pai, len(consumed)]) + bytes(cons)
    r += bytes([tsumogiri, bakaze, kyoku, honba, kyotaku, oya, dora, len(ura)])
    r += bytes(uras) + bytes(3)
    r += struct.pack("<4i4i", *scores, *deltas)
    for h in hands:
        assert len(h) == 13
        r += bytes(h)
    r += bytes(8)
    assert len(r) == REC
    if names:
        for i, n in enumerate(names):
            if n is not None:
                r += text(game, i, n)
    if extra is not None:
        r += text(game, TEXT_EXTRA, extra)
    return r


def text(game, kind, s):
    b = s.encode("utf-8")
    out = b""
    off = 0
    while True:
        chunk = b[off:off + CHUNK]
        off += len(chunk)
        more = off < len(b)
        out += struct.pack("<BBBBII", REC_TEXT, kind, 1 if more else 0, len(chunk),
                           game, len(b))
        out += chunk + bytes(CHUNK - len(chunk))
        if not more:
            return out


def frame(records, count=None, crc=None):
    n = len(records) // REC
    tr = struct.pack("<B7s8sQI", REC_TRAILER, bytes(7), b"HYEVEND\0",
                     n if count is None else count,
                     zlib.crc32(records) if crc is None else crc)
    tr += bytes(REC - len(tr))
    return header() + records + tr


def aborted(records, why):
    """A frame its producer gave up on: the records, then an ABORT record."""
    b = why.encode()
    ab = struct.pack("<B7s8sI", REC_ABORT, bytes(7), b"HYABORT\0", len(b)) + b
    return header() + records + ab + bytes(REC - len(ab))


def game(source, index, events):
    return text(index, TEXT_SOURCE, source) + b"".join(events)


HAND0 = [0, 1, 2, 34, 9, 10, 11, 18, 19, 20, 27, 27, 31]  # 123m 5mr 123p 123s EE P
HIDDEN = [UNK] * 13
LONG_EXTRA = ('{"yakus":[["reach",1],["ippatsu",1],["menzenchin_tsumoho",1],'
              '["pinfu",1],["tanyaochu",1],["iipeikou",1],["dora",2],["akadora",1]],'
              '"fu":20,"fan":9,"comment":"跳満 — haneman, ツモ","meta":{"source":'
              '"tenhou","id":"2024010100gm-00a9-0000-deadbeef"}}')
SRC_A = "logs/2024/東風戦-α.mjson"


def game_a():
    g = 0
    return game(SRC_A, g, [
        event(g, "start_game", 1, ["names"], names=["Alice", "ボブ", "Ça va", ""],
              extra='{"seed":"0x1f","meta":{"room":"東南"}}'),
        event(g, "start_kyoku", 2, ["bakaze", "kyoku", "honba", "kyotaku", "scores", "tehais"],
              bakaze=27, kyoku=1, honba=0, kyotaku=0, oya=0, dora=35,
              scores=(25000, 25000, 25000, 25000), tehais=[HAND0, HIDDEN, HIDDEN, HIDDEN]),
        event(g, "tsumo", 3, actor=0, pai=3),
        event(g, "dahai", 4, ["tsumogiri"], actor=0, pai=27, tsumogiri=0),
        event(g, "tsumo", 5, actor=1, pai=UNK),
        event(g, "dahai", 6, ["tsumogiri"], actor=1, pai=26, tsumogiri=1),
        event(g, "chi", 7, actor=2, target=1, pai=24, consumed=[36, 23]),
        event(g, "dahai", 8, ["tsumogiri"], actor=2, pai=30, tsumogiri=0),
        event(g, "pon", 9, actor=0, target=2, pai=30, consumed=[30, 30]),
        event(g, "dahai", 10, actor=0, pai=31),
        event(g, "daiminkan", 11, ["kan_alias"], actor=1, target=0, pai=31,
              consumed=[31, 31, 31]),
        event(g, "dora", 12, dora=8),
        event(g, "tsumo", 13, actor=1, pai=13),
        event(g, "kakan", 14, actor=0, pai=30, consumed=[30, 30, 30]),
        event(g, "ankan", 15, actor=3, consumed=[13, 13, 13, 35]),
        event(g, "reach", 16, actor=2),
        event(g, "dahai", 17, actor=2, pai=0),
        event(g, "reach_accepted", 18, ["deltas", "scores"], actor=2,
              deltas=(0, 0, -1000, 0), scores=(25000, 25000, 24000, 25000)),
        event(g, "hora", 19, ["deltas", "scores", "ura"], actor=0, target=2, pai=0,
              ura=[4, 28], deltas=(9000, 0, -8000, 0),
              scores=(34000, 25000, 16000, 25000), extra=LONG_EXTRA),
        event(g, "end_kyoku", 20),
        event(g, "start_kyoku", 21, ["bakaze", "kyoku", "honba", "kyotaku", "scores", "tehais"],
              bakaze=27, kyoku=2, honba=1, kyotaku=1, oya=1, dora=UNK,
              scores=(34000, 25000, 16000, 25000), tehais=[HIDDEN, HAND0, HIDDEN, HIDDEN]),
        event(g, "ryukyoku", 22, ["deltas", "scores"], deltas=(1500, -1500, 1500, -1500),
              scores=(35500, 23500, 17500, 23500), extra='{"reason":"fanpai"}'),
        event(g, "end_kyoku", 23),
        event(g, "end_game", 24, ["scores"], scores=(35500, 23500, 17500, 23500)),
    ])


def game_b():
    g = 1  # a fragment: no start_game, no end
    return game(SRC_A, g, [
        event(g, "start_kyoku", 30, ["bakaze", "kyoku", "tehais"], bakaze=28, kyoku=3,
              oya=2, dora=34, tehais=[HIDDEN, HIDDEN, HAND0, HIDDEN]),
        event(g, "tsumo", 31, actor=2, pai=36),
        event(g, "hora", 32, ["deltas", "ura", "ura_alias", "actor"], actor=2, target=2,
              pai=36, ura=[UNK], deltas=(-4000, -2000, 8000, -2000)),
    ])


def game_c():
    return game("", 7, [])  # an empty game


def game_d():
    g = 0xFFFFFFFF
    return game("b.json", g, [
        event(g, "dora", 0xFFFFFFFF, dora=33, extra='{"x":"' + "a" * 108 + '"}'),
        # values without their presence bit are kept verbatim
        event(g, "end_game", 0, scores=(-12300, 2147483647, -2147483648, 0),
              extra='{"x":"' + "b" * 109 + '"}'),
    ])


def broken_game():
    g = 0
    return game("broken.mjson", g, [
        event(g, "start_game", 1, ["names"], names=["a", "b", "c", "d"]),
        event(g, "end_game", 2, ["scores"], scores=(25000, 25000, 25000, 25000)),
    ])


def write(name, data):
    assert len(data) < 8192, name
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def main():
    write("good.bin", frame(game_a() + game_b()) + frame(game_c() + game_d()))
    write("empty.bin", frame(b""))
    recs = broken_game()  # 7 records
    good = frame(recs)
    write("bad-magic.bin", b"HYEVENTX" + good[8:])
    write("newer-version.bin", header(version=2) + good[32:])
    write("wrong-record-size.bin", header(rsize=64) + good[32:])
    write("truncated.bin", good[:32 + 3 * REC + 50])
    write("no-trailer.bin", good[:32 + 7 * REC])
    bad = bytearray(recs)
    bad[6 * REC + 36] ^= 0x01  # a score of end_game: decodes, but the CRC differs
    write("bad-crc.bin", frame(bytes(bad), crc=zlib.crc32(recs)))
    write("bad-count.bin", frame(recs, count=8))
    write("aborted.bin", aborted(recs, "mjai-parse failed: x.mjlog:3: truncated log"))


if __name__ == "__main__":
    main()
