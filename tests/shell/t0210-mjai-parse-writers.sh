#!/bin/sh
# mjai-parse --format mjlog|tenhou6: the Tenhou writers. Self-play games
# (always) and real Tenhou logs (with the shared data) written as mjlog XML
# and tenhou.net/6 JSON read back as the same games: a self-play game gives
# its events in Tenhou's form (tests/shell/tenhou_norm.py), a Tenhou log
# gives exactly its events again, and writing what was read back gives the
# same again (a fixed point). Games a format cannot hold are refused by name.
. tests/shell/lib.sh
P="$BIN/mjai-parse"
NORM="$TOP/tests/shell/tenhou_norm.py"
command -v python3 >/dev/null 2>&1 || skip "skipped: needs python3 (tests/shell/tenhou_norm.py)"

expect_exit 0 "$P" --help
for o in --format mjlog tenhou6; do
	grep -q -- "$o" "$T/out" || fail "--help lacks $o"
	grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$TOP/man/mjai-parse.1" || fail "man page lacks $o"
done
expect_exit 2 "$P" --format xml
expect_err "bad --format 'xml'"

# self-play games with calls, kans, riichi, wins and draws of every kind
"$BIN/hydra-sp" --games 8 --seed 5 --rotate random,rulebot,random,baseline --no-samples \
	--log-dir "$T/sp" 2>"$T/err" || { cat "$T/err"; fail "hydra-sp"; }
"$P" --stats "$T/sp" 2>&1 >/dev/null | grep -Eq 'daiminkan +[1-9]' ||
	echo "note: no daiminkan among these games"
"$P" --json "$T/sp" > "$T/orig.json" || fail "mjai-parse --json"
python3 "$NORM" "$T/orig.json" > "$T/orig.n" || fail "tenhou_norm.py"
for fmt in mjlog tenhou6; do
	mkdir "$T/$fmt"
	for f in "$T"/sp/*.json.gz; do
		w="$T/$fmt/$(basename "$f" .json.gz).$fmt"
		"$P" --format $fmt -o "$w" "$f" 2>"$T/err" || { cat "$T/err"; fail "--format $fmt $f"; }
	done
	"$P" --json "$T/$fmt" > "$T/back.json" 2>"$T/err" ||
		{ cat "$T/err"; fail "the $fmt logs do not read back"; }
	python3 "$NORM" "$T/back.json" > "$T/back.n"
	cmp -s "$T/orig.n" "$T/back.n" ||
		{ diff "$T/orig.n" "$T/back.n" | head -n 10; fail "through $fmt: other games"; }
	# what was read back writes and reads back to the very same events
	for f in "$T/$fmt"/*; do
		"$P" --json "$f" | "$P" --format $fmt | "$P" --json || fail "$f again"
	done > "$T/again.json"
	same_file "$T/back.json" "$T/again.json"
done
w="$T/mjlog/game-00000007.mjlog"
# the mjlog is XML with one root, the tenhou.net/6 one JSON object a line
head -c 23 "$w" | grep -q '^<mjloggm ver="2.3">' || fail "mjlog root"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert set(d) >= {"name","log","sc","rule"}' \
	"$T/tenhou6/game-00000007.tenhou6" || fail "tenhou.net/6 object"

# several games: tenhou6 one per line, mjlog refuses the second game
expect_exit 0 "$P" --format tenhou6 "$T/sp"
cp "$T/out" "$T/eight.json"
[ "$(wc -l < "$T/eight.json")" -eq 8 ] || fail "8 games, $(wc -l < "$T/eight.json") lines"
"$P" --json "$T/sp" > "$T/a.json" && python3 "$NORM" "$T/a.json" > "$T/a.n"
"$P" --json "$T/eight.json" > "$T/b.json" && python3 "$NORM" "$T/b.json" > "$T/b.n"
same_file "$T/a.n" "$T/b.n"
expect_exit 1 "$P" --format mjlog -o "$T/two.mjlog" "$T/sp"
expect_err "mjlog holds one game"
[ -e "$T/two.mjlog" ] && fail "a failed run left its output"

# what a format cannot hold: named, and --keep-going skips the game
printf '%s\n' '{"type":"start_game"}' \
	'{"type":"start_kyoku","bakaze":"E","kyoku":1,"honba":0,"kyotaku":0,"oya":0,"dora_marker":"1m","scores":[25000,25000,25000,25000],"tehais":[["?","?","?","?","?","?","?","?","?","?","?","?","?"],["?","?","?","?","?","?","?","?","?","?","?","?","?"],["?","?","?","?","?","?","?","?","?","?","?","?","?"],["?","?","?","?","?","?","?","?","?","?","?","?","?"]]}' \
	'{"type":"ryukyoku","deltas":[0,0,0,0]}' '{"type":"end_kyoku"}' '{"type":"end_game"}' > "$T/hidden.json"
expect_exit 1 "$P" --format tenhou6 "$T/hidden.json"
expect_err "hidden.json:2: event 2 \(start_kyoku\) cannot be written as tenhou.net/6: a hidden hand"
expect_exit 0 "$P" -k --format tenhou6 "$T/hidden.json" "$T/sp/game-00000000.json.gz"
expect_err "1 bad games skipped"
[ "$(wc -l < "$T/out")" -eq 1 ] || fail "-k: the good game is not there"
gzip -dc "$T/sp/game-00000000.json.gz" | sed -n '2,/end_kyoku/p' > "$T/frag.json"
expect_exit 1 "$P" --format mjlog "$T/frag.json"
expect_err "a fragment \(no start_game\) cannot be written as mjlog"

# real Tenhou logs: read, written, read again: exactly the same events
if have_data; then
	R="$DATA/logs/mjx-project_mjx/tests_py/resources"
	X="$DATA/logs/tsubakisakura_mjlog2json/data"
	ls "$R"/mjlog/*.mjlog "$R"/mjscore/*.json "$X"/* | grep -v -e '-no-game-end' -e '-no-round-end' > "$T/real"
	n=$(wc -l < "$T/real")
	[ "$n" -ge 70 ] || fail "only $n real Tenhou logs"
	"$P" --json $(cat "$T/real") > "$T/orig.json" || fail "mjai-parse --json (real logs)"
	# tenhou.net/6: all the games at once, one a line
	"$P" --format tenhou6 $(cat "$T/real") | "$P" --json > "$T/back.json" || fail "real logs through tenhou6"
	cmp -s "$T/orig.json" "$T/back.json" ||
		{ diff "$T/orig.json" "$T/back.json" | head -n 6; fail "real logs through tenhou6: other games"; }
	# mjlog: a document per game
	for f in $(cat "$T/real"); do
		"$P" --format mjlog "$f" || fail "$f as mjlog"
	done | sed 's|</mjloggm>|&\n|' > "$T/all.mjlogs"
	: > "$T/back.json"
	i=0
	while IFS= read -r doc; do
		[ -n "$doc" ] || continue
		i=$((i + 1))
		printf '%s\n' "$doc" > "$T/one.mjlog"
		"$P" --json "$T/one.mjlog" >> "$T/back.json" || fail "mjlog $i does not read back"
	done < "$T/all.mjlogs"
	[ "$i" -eq "$n" ] || fail "$i mjlog documents for $n logs"
	cmp -s "$T/orig.json" "$T/back.json" ||
		{ diff "$T/orig.json" "$T/back.json" | head -n 6; fail "real logs through mjlog: other games"; }
	echo "$n real Tenhou logs round-tripped through tenhou6 and mjlog"
else
	echo "shared logs not found at $DATA/logs: the real Tenhou part skipped"
fi
exit 0
