#!/bin/sh
# mjai-parse on Tenhou logs: mjlog XML and tenhou.net/6 JSON give the same
# events; gzip mjlog; truncated logs; sanma rejection; score chains; chip
# lobby score lists.
. tests/shell/lib.sh
need_data "the real Tenhou logs (mjlog and tenhou.net/6 of mjx and mjlog2json) this parser test reads"
P="$BIN/mjai-parse"
PY=python3
MJX="$DATA/logs/mjx-project_mjx/tests_py/resources"
TSU="$DATA/logs/tsubakisakura_mjlog2json/data"

# same game, two formats, identical events (names aside: mjscore anonymises them)
n=0
for x in "$MJX"/mjlog/20*gm-*.mjlog; do
	case $x in *-no-*) continue;; esac
	id=$(basename "$x" .mjlog)
	j="$MJX/mjscore/$id.json"
	[ -f "$j" ] || continue
	"$P" --json "$x" | grep -v '"start_game"' > "$T/a.json" || fail "convert $x"
	"$P" --json "$j" | grep -v '"start_game"' > "$T/b.json" || fail "convert $j"
	$PY tests/shell/jsoneq.py "$T/a.json" "$T/b.json" || fail "$id: mjlog and tenhou.net/6 differ"
	n=$((n + 1))
done
[ "$n" -ge 30 ] || fail "only $n mjlog/mjscore pairs compared"
for x in "$TSU"/*.xml; do
	j="${x%.xml}.json"
	"$P" --json "$x" > "$T/a.json" || fail "convert $x"
	"$P" --json "$j" > "$T/b.json" || fail "convert $j"
	$PY tests/shell/jsoneq.py "$T/a.json" "$T/b.json" || fail "$(basename "$x"): formats differ (names included)"
done

# score chains: start scores + deltas - 1000 per accepted riichi = next start,
# and the last kyoku's end = end_game scores (leftover sticks to the top)
"$P" --json "$MJX/mjlog" "$TSU" > "$T/all.json" 2>"$T/err" && fail "truncated copies accepted"
"$P" --json --keep-going "$MJX/mjlog" "$TSU" > "$T/all.json" 2>"$T/err" || fail "keep-going"
$PY - "$T/all.json" <<'PYEOF' || fail "score chain"
import json, sys
games, cur = [], None
for line in open(sys.argv[1], encoding="utf-8"):
    e = json.loads(line)
    if e["type"] == "start_game":
        cur = []
        games.append(cur)
    cur.append(e)
checked = 0
for g in games:
    scores = None
    for e in g:
        t = e["type"]
        if t == "start_kyoku":
            if scores is not None and scores != e["scores"]:
                sys.exit(f"kyoku start {e['scores']} != expected {scores}")
            scores = list(e["scores"])
        elif t == "reach_accepted":
            scores[e["actor"]] -= 1000
        elif t in ("hora", "ryukyoku"):
            scores = [a + b for a, b in zip(scores, e["deltas"])]
        elif t == "end_game" and "scores" in e:
            top = max(range(4), key=lambda i: (scores[i], -i))
            left = sum(e["scores"]) - sum(scores)
            scores[top] += left
            if scores != e["scores"]:
                sys.exit(f"final {e['scores']} != chain {scores}")
            checked += 1
if checked < 30:
    sys.exit(f"only {checked} games checked")
PYEOF

# gzip mjlog by content
expect_exit 0 "$P" --json "$DATA/logs/gimite_mjai/test/test.mjlog"
grep -q '"names":\["koudai23"' "$T/out" || fail "gimite names"

# truncated copies: error naming the game; --keep-going skips the game whole
expect_exit 1 "$P" --json "$MJX/mjlog/2011020401gm-00a9-0000-f6eff225-no-round-end.mjlog"
expect_err "no-round-end.mjlog:[0-9]+: truncated log: kyoku .* has no result"
expect_exit 1 "$P" --json "$MJX/mjlog/2011020401gm-00a9-0000-f6eff225-no-game-end.mjlog"
expect_err "no-game-end.mjlog:[0-9]+: truncated log: no end of game"
# (with a good game beside it: a run left with no game at all fails)
expect_exit 0 "$P" --json --keep-going --stats "$MJX/mjlog/2011020401gm-00a9-0000-f6eff225-no-round-end.mjlog" \
	"$DATA/logs/gimite_mjai/test/test.mjlog"
expect_err "1 bad games skipped"
[ "$(grep -c '"type":"start_game"' "$T/out")" -eq 1 ] || fail "keep-going kept part of a truncated game"
expect_exit 1 "$P" --json --keep-going "$MJX/mjlog/2011020401gm-00a9-0000-f6eff225-no-round-end.mjlog"
expect_err "no games: all 1 games read were bad"

# chip lobbies: score lists with a chip column (three values per player) are
# read, the chips not used. No such log is in the shared data: made from real
# logs by adding made-up chips (mostly not 0) to every sc / owari list.
cat > "$T/chips.py" <<'PYEOF'
import json, re, sys
CHIPS = [3, -1, 0, -2]
def chips(vals, k):
    assert len(vals) == 8, vals
    out = []
    for p in range(4):
        out += [vals[2 * p], vals[2 * p + 1], str(CHIPS[(p + k) % 4])]
    return out
src, dst = sys.argv[1], sys.argv[2]
text = open(src, encoding="utf-8").read()
n = [0]
def xml(m):
    n[0] += 1
    return '%s="%s"' % (m.group(1), ",".join(chips(m.group(2).split(","), n[0])))
if text.lstrip().startswith("<"):
    text = re.sub(r'\b(sc|owari)="([^"]*)"', xml, text)
else:
    lines = []
    for line in text.splitlines():
        o = json.loads(line) if line.strip() else None
        if isinstance(o, dict) and "sc" in o:
            o["sc"] = [json.loads(v) for v in chips([json.dumps(v) for v in o["sc"]], n[0])]
            n[0] += 1
            line = json.dumps(o, ensure_ascii=False, separators=(",", ":"))
        lines.append(line)
    text = "\n".join(lines) + "\n"
if n[0] == 0:
    sys.exit("no score list in " + src)
open(dst, "w", encoding="utf-8").write(text)
PYEOF
for x in "$MJX/mjlog/2020052700gm-00a9-0000-75a4695c.mjlog" "$MJX/mjlog/double-ron.mjlog" \
	"$TSU/2019081518gm-00a9-0000-cce9d00c.xml" "$TSU/2019081518gm-00a9-0000-cce9d00c.json"; do
	b=$(basename "$x")
	$PY "$T/chips.py" "$x" "$T/chip-$b" || fail "fixture: chips for $b"
	grep -Eq '(sc="|"sc":\[)([^,"]*,){11}' "$T/chip-$b" || fail "fixture: no 12-value list in chip-$b"
	"$P" --json "$x" | grep -v '"start_game"' > "$T/a.json" || fail "convert $b"
	expect_exit 0 "$P" --json "$T/chip-$b"
	grep -v '"start_game"' "$T/out" > "$T/b.json"
	same_file "$T/a.json" "$T/b.json"
	expect_exit 0 "$P" --check "$T/chip-$b"
done
# a score list of another length is bad data, named
sed 's/owari="\([^"]*\)"/owari="\1,0"/' "$MJX/mjlog/double-ron.mjlog" > "$T/badowari.mjlog"
expect_exit 1 "$P" --json "$T/badowari.mjlog"
expect_err "badowari.mjlog:[0-9]+: bad owari"

# sanma is rejected clearly (made from a four-player log's GO flag)
sed 's/<GO type="\([0-9]*\)"/<GO type="SANMA\1"/' "$MJX/mjlog/2010081709gm-00a9-0000-fe3371ad.mjlog" |
	awk '{ while (match($0, /type="SANMA[0-9]+"/)) { v = substr($0, RSTART + 11, RLENGTH - 12) + 16;
		$0 = substr($0, 1, RSTART - 1) "type=\"" v "\"" substr($0, RSTART + RLENGTH) } print }' > "$T/sanma.mjlog"
grep -q '<GO type="[0-9]*"' "$T/sanma.mjlog" || fail "fixture: no GO tag"
expect_exit 1 "$P" --json "$T/sanma.mjlog"
expect_err "three-player"
exit 0
