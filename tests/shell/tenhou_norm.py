"""Prints mjai JSON lines in the form a Tenhou log gives them (lib/tenhou/
builder.h), so that a game and its mjlog or tenhou.net/6 conversion read
back compare equal: hands and consumed tiles sorted (by kind, a red five
first), no scores on reach_accepted / hora / ryukyoku / end_kyoku, no deltas
on reach_accepted, no ryukyoku declarer, no fields mjai does not define,
and a kan's dora events that stand right before the discard revealing them
(the engine's order) moved after it (Tenhou's order).
Usage: tenhou_norm.py FILE > OUT."""
import json
import sys

KEEP = {"type", "actor", "target", "pai", "consumed", "tsumogiri", "names",
        "bakaze", "kyoku", "honba", "kyotaku", "oya", "dora_marker", "scores",
        "tehais", "deltas", "ura_markers"}


def key(t):
    if len(t) >= 2:
        return ("mps".index(t[1]), int(t[0]), 0 if t.endswith("r") else 1)
    return (3, "ESWNPFC".index(t), 1)


evs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
out, i = [], 0
while i < len(evs):
    k = i
    while k < len(evs) and evs[k]["type"] == "dora":
        k += 1
    if i < k < len(evs) and evs[k]["type"] == "dahai":
        out += [evs[k]] + evs[i:k]
        i = k + 1
    else:
        out.append(evs[i])
        i += 1
for e in out:
    e = {k: v for k, v in e.items() if k in KEEP}
    t = e["type"]
    if "tehais" in e:
        e["tehais"] = [sorted(h, key=key) for h in e["tehais"]]
    if "consumed" in e:
        e["consumed"] = sorted(e["consumed"], key=key)
    if t in ("reach_accepted", "hora", "ryukyoku", "end_kyoku"):
        e.pop("scores", None)
    if t == "reach_accepted":
        e.pop("deltas", None)
    if t == "ryukyoku":
        e.pop("actor", None)
    print(json.dumps(e, sort_keys=True, ensure_ascii=False))
