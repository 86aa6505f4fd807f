#!/bin/sh
# hydra-sp's league (--pool, --start, --mix; lib/play/league.c): the learner
# (--policy) holds seat game mod 4 in every game, the other seats follow the
# mix over 60 games, only the learner's seats give samples (with every
# opponent the start, a game's samples are all of the learner's seat), the
# same seed gives the same games for any table and thread count, and bad
# leagues are refused (exit 2).
. tests/shell/lib.sh
SP="$BIN/hydra-sp"
PY=/usr/bin/python3
need_cmd "$PY"

expect_exit 0 "$SP" --help
for o in pool start mix; do grep -q -- "--$o" "$T/out" || fail "--help lacks --$o"; done
expect_exit 2 "$SP" --games 2 --pool baseline -o /dev/null
expect_err "around the learner given by --policy"
expect_exit 2 "$SP" --games 2 --policy rulebot --pool baseline --mix 1,2 -o /dev/null
expect_err "bad league mix"
expect_exit 2 "$SP" --games 2 --policy rulebot --mix 0,0,0 -o /dev/null
expect_err "sum to 0"

"$SP" --games 60 --seed 5 --policy rulebot --pool baseline --start random --no-samples \
	--log-dir "$T/lg" || fail "league games"
"$SP" --games 60 --seed 5 --policy rulebot --pool baseline --start random --no-samples \
	--tables 3 --threads 2 --log-dir "$T/lg2" || fail "league games again"
for f in "$T"/lg/*; do
	cmp -s "$f" "$T/lg2/$(basename "$f")" || {
		gzip -dc "$f" > "$T/a"; gzip -dc "$T/lg2/$(basename "$f")" > "$T/b"
		cmp -s "$T/a" "$T/b" || fail "league games differ across tables/threads: $f"; }
done
"$PY" - "$T/lg" <<'PYEOF' || fail "league seating"
import gzip, json, os, sys
d = sys.argv[1]
other = {"rulebot": 0, "baseline": 0, "random": 0}
for name in sorted(os.listdir(d)):
    g = int(name[5:13])
    with gzip.open(os.path.join(d, name), "rt") as f:
        names = json.loads(f.readline())["names"]
    assert names[g % 4] == "rulebot", (name, names)
    for s in range(4):
        if s != g % 4:
            other[names[s]] += 1
n = sum(other.values())
share = {k: v / n for k, v in other.items()}
print("opponent seats:", n, share)
assert abs(share["rulebot"] - 0.5) < 0.12 and abs(share["baseline"] - 0.3) < 0.12 \
    and abs(share["random"] - 0.2) < 0.12, share
PYEOF

# every opponent the start: a game's samples are its learner seat's alone
for k in 0 1 2 3; do
	"$SP" --games 1 --first $k --seed 5 --policy rulebot --start random --mix 0,0,1 \
		-o "$T/s$k.bin" || fail "league samples, game $k"
	"$PY" - "$T/s$k.bin" $k <<'PYEOF' || fail "samples of a non-learner seat in game $k"
import sys
data = open(sys.argv[1], "rb").read()
k = int(sys.argv[2])
rec, seats = data[32:], set()
i = 0
while i + 5888 <= len(rec) and rec[i] == 1:
    seats.add(rec[i + 2]); i += 5888
assert i > 0 and seats == {k % 4}, (i // 5888, seats)
PYEOF
done
echo ok
