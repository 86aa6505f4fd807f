#!/usr/bin/python3
"""Writes the sample-stream golden files (formats/samples.md) next to this
script. An implementation independent of lib/samples/stream.c, written from
the spec: tests/unit/test_samples.c decodes these files, checks every field
against golden_sample() there (a mirror of sample() below: change both
together) and re-encodes good.bin byte for byte.

    /usr/bin/python3 tests/golden/samples/make-golden.py

good.h5 (the golden shard, unmarked: no obs_version) is not written here (no h5py needed): it is
good.bin converted by the C writer, committed once so that later readers
are checked against a shard of format version 2 (good-v1.h5 is the same
samples as version 1 wrote them, kept for compatibility):

    hydra-augment --perms 0 -o tests/golden/samples/good.h5 tests/golden/samples/good.bin
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

REC = 5888
REC_HIDDEN = REC + 128  # the hidden-state extension (header byte 24 = 1)
OBS = 85 * 34
REC_SAMPLE, REC_TRAILER, REC_ABORT = 1, 3, 4
HALVES = [0x0000, 0x3C00, 0x3800, 0x0000, 0x2E66]  # 0, 1, 0.5, 0, ~0.1
M64 = (1 << 64) - 1


OBS_VERSION = 4  # header byte 17: the observation version (lib/samples/sample.h)


def header(version=1, hsize=32, rsize=REC, dtype=1, obs=OBS_VERSION, ch=85, tiles=34,
           actions=46, hidden=0):
    return (b"HYSAMPLE" + struct.pack("<HHIBBHHHB", version, hsize, rsize, dtype, obs,
                                      ch, tiles, actions, hidden) + bytes(7))


def sample(k):
    """Fields of golden sample k (mirrored by golden_sample() in C)."""
    action = (k * 11) % 46
    return dict(
        action=action,
        mask=((1 << action) | (k * 0x123456789)) & ((1 << 46) - 1),
        game=(0x0123456789ABCDEF * (k + 1)) & M64,
        opp_waits=[(((k + 1) * 0x1F3A5) << o) & ((1 << 34) - 1) for o in range(3)],
        score=25000 - 7000 * k, kyoku_delta=-8000 + 3900 * k,
        logp=-0.5 * k, value=0.25 * k, reward=1.5 - k, adv=0.125 * k, ret=-2.0 + k,
        step=300 * k + 1, seat=k % 4, grand_kyoku=k + 3, honba=k, rank=(k + 1) % 4,
        grp=(k * 5) % 24, opp_tenpai=k % 8, flags=k & 1,
        obs=[HALVES[(j * 7 + k * 13) % 5] for j in range(OBS)])


def hidden(k):
    """The hidden state of golden sample k (mirrored by golden_hidden() in C):
    hand[3][14], shanten[3], live[69], rinshan[4], dora[5], ura[5], each a tile
    code 0-36 or 255 past the end of a list."""
    hand = [sorted((k * 5 + 7 * o + 3 * i) % 37 for i in range(13 - o % 2)) for o in range(3)]
    hand = [h + [255] * (14 - len(h)) for h in hand]
    live = [(k + 11 * i) % 37 for i in range(69 - 4 * k)] + [255] * (4 * k)
    return (bytes(sum(hand, [])) + bytes([k % 9, (k + 1) % 9, 0]) + bytes(live)
            + bytes([(k + i) % 37 for i in range(3)] + [255])
            + bytes((k * 3 + i) % 37 for i in range(5)) + bytes((k * 2 + i) % 34 for i in range(5)))


def record_hidden(s, k):
    """A record of the extension: the plain record with flags bit 4 set, then
    the 128 bytes of the hidden state."""
    r = bytearray(record(s))
    r[8] |= 0x10
    h = hidden(k)
    assert len(h) == 128
    return bytes(r) + h


def record(s):
    r = struct.pack("<BBBBBBBBBBH", REC_SAMPLE, s["action"], s["seat"], s["grand_kyoku"],
                    s["honba"], s["rank"], s["grp"], s["opp_tenpai"], s["flags"], 0,
                    s["step"])
    r += struct.pack("<ii5f", s["score"], s["kyoku_delta"], s["logp"], s["value"],
                     s["reward"], s["adv"], s["ret"])
    r += struct.pack("<QQ3Q", s["mask"], s["game"], *s["opp_waits"])
    r += bytes(96 - len(r))
    r += struct.pack("<%dH" % OBS, *s["obs"])
    r += bytes(REC - len(r))
    assert len(r) == REC
    return r


def trailer(count, crc, size=REC):
    t = bytes([REC_TRAILER]) + bytes(7) + b"HYSMEND\0" + struct.pack("<QI", count, crc)
    return t + bytes(size - len(t))


def frame_hidden(samples, first=0, version=1):
    recs = b"".join(record_hidden(x, first + i) for i, x in enumerate(samples))
    return (header(rsize=REC_HIDDEN, hidden=version) + recs
            + trailer(len(samples), zlib.crc32(recs), REC_HIDDEN))


def frame(samples, **hdr):
    recs = b"".join(record(s) for s in samples)
    return header(**hdr) + recs + trailer(len(samples), zlib.crc32(recs))


def aborted(samples, why):
    """A frame its producer gave up on: the samples, then an ABORT record."""
    b = why.encode()
    ab = bytes([REC_ABORT]) + bytes(7) + b"HYABORT\0" + struct.pack("<I", len(b)) + b
    return header() + b"".join(record(x) for x in samples) + ab + bytes(REC - len(ab))


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def main():
    s = [sample(k) for k in range(5)]
    good = frame(s[:3]) + frame(s[3:])
    write("good.bin", good)
    # written before the observation version existed (byte 17 zero): read as 0
    write("good-unmarked.bin", frame(s[:3], obs=0) + frame(s[3:], obs=0))
    # `cat` of samples of two encoders: refused at the second frame
    write("mixed-obs.bin", frame(s[:3]) + frame(s[3:], obs=0))
    write("empty.bin", frame([]))
    one = frame(s[:1])
    write("bad-magic.bin", b"HYSAMPLX" + one[8:])
    write("newer-version.bin", frame(s[:1], version=2))
    write("wrong-record-size.bin", frame(s[:1], rsize=REC + 64))
    # the hidden-state extension: two frames of samples with their hidden state
    write("good-hidden.bin", frame_hidden(s[:3]) + frame_hidden(s[3:], first=3))
    write("newer-hidden.bin", frame_hidden(s[:1], version=2))
    # a frame with the extension after one without: refused at the second
    write("mixed-hidden.bin", frame(s[:3]) + frame_hidden(s[3:], first=3))
    # the extension's size with a header that says it has none
    write("hidden-size.bin", header(rsize=REC_HIDDEN) + record_hidden(s[0], 0)
          + trailer(1, zlib.crc32(record_hidden(s[0], 0)), REC_HIDDEN))
    write("wrong-dims.bin", frame(s[:1], ch=84))
    write("truncated.bin", good[:32 + 2 * REC + 100])           # record 3 cut short
    write("no-trailer.bin", good[:32 + 3 * REC])                # frame 1 ends early
    bad = bytearray(one)
    bad[32 + 96 + 10] ^= 0x01                                   # an obs byte flipped
    write("bad-crc.bin", bytes(bad))
    recs = record(s[0]) + record(s[1])
    write("bad-count.bin", header() + recs + trailer(3, zlib.crc32(recs)))
    illegal = dict(s[1], mask=0)                                # action not legal
    write("bad-action.bin", frame([s[0], illegal]))
    write("aborted.bin", aborted(s[:2], "hydra-encode failed: events.bin: record 9: bad tile"))


if __name__ == "__main__":
    main()
