#!/bin/sh
# mjai-parse: round trips, containers, broken inputs, exit codes, JSON that
# is not mjai (mjx State).
. tests/shell/lib.sh
P="$BIN/mjai-parse"
PY=python3

# --help and the man page SYNOPSIS agree; -V
expect_exit 0 "$P" --help
grep -q '^usage: mjai-parse \[options\] \[PATH\.\.\.\]' "$T/out" || fail "--help usage line"
grep -A1 '^\.B mjai-parse' "$TOP/man/mjai-parse.1" | grep -q 'options.*PATH' || fail "man SYNOPSIS"
expect_exit 0 "$P" -V
grep -q '^mjai-parse (hydra-c) ' "$T/out" || fail "-V"
expect_exit 2 "$P" --no-such-option
expect_err "try 'mjai-parse --help'"

# every mjai log round-trips JSON -> events -> JSON exactly: self-play
# games (tests/shell/lib.sh: gen_logs), and the real mjai logs of other
# programs, in their dialects, when the shared data is there
gen_logs 4
mkdir "$T/sp"
for f in "$GEN"/mjai/*.json.gz; do gzip -dc "$f" > "$T/sp/$(basename "$f" .gz)"; done
ls "$T"/sp/*.json > "$T/cand"
if have_data; then
	find "$DATA/logs" -type f \( -name '*.json' -o -name '*.jsonl' -o -name '*.mjson' \) |
		sort >> "$T/cand"
else
	echo "shared logs not found at $DATA/logs: real mjai dialects not tested"
fi
: > "$T/mjai"
while read -r f; do
	head -c 200 "$f" | grep '"type"' | grep -vq '"type":"hello"' && echo "$f" >> "$T/mjai"
done < "$T/cand"
n=$(wc -l < "$T/mjai")
if have_data; then min=14; else min=4; fi
[ "$n" -ge $min ] || fail "found only $n mjai logs"
while read -r f; do
	"$P" "$f" > "$T/ev.bin" 2>"$T/err" || { cat "$T/err"; fail "parse $f"; }
	"$P" --json "$T/ev.bin" > "$T/back.json" 2>"$T/err" || { cat "$T/err"; fail "back $f"; }
	$PY tests/shell/jsoneq.py "$f" "$T/back.json" || fail "round trip of $f"
done < "$T/mjai"

# containers: concatenation, directory, gz, zst, tar.zst, zip give the same events
mkdir "$T/d"
i=0
while read -r f; do
	i=$((i + 1))
	cp "$f" "$T/d/$(printf %02d $i).json"
done < "$T/mjai"
ls "$T/d" | sort | sed "s|^|$T/d/|" > "$T/order"
# shellcheck disable=SC2046
"$P" --json $(cat "$T/order") > "$T/ref.json" || fail "reference parse"
"$P" --json "$T/d" > "$T/dir.json" || fail "directory parse"
same_file "$T/ref.json" "$T/dir.json"
# stdin takes one document: concatenated files of whole games
cat $(cat "$T/order") | "$P" --json > "$T/cat.json" || fail "concatenated stdin"
same_file "$T/ref.json" "$T/cat.json"
mkdir "$T/z"
for f in $(cat "$T/order"); do
	b=$(basename "$f")
	gzip -c "$f" > "$T/z/$b.gz.a"; zstd -q -c "$f" > "$T/z/$b.zst.b"
done
for f in $(cat "$T/order"); do b=$(basename "$f"); cat "$T/z/$b.gz.a"; done > "$T/all.gz"
"$P" --json "$T/all.gz" > "$T/gz.json" || fail "multi-member gzip"
same_file "$T/ref.json" "$T/gz.json"
for f in $(cat "$T/order"); do b=$(basename "$f"); cat "$T/z/$b.zst.b"; done > "$T/all.zst"
"$P" --json "$T/all.zst" > "$T/zst.json" || fail "multi-frame zstd"
same_file "$T/ref.json" "$T/zst.json"
(cd "$T/d" && tar -cf - *.json) | zstd -q -c > "$T/all.tar.zst"
"$P" --json "$T/all.tar.zst" > "$T/tarzst.json" || fail "tar.zst"
same_file "$T/ref.json" "$T/tarzst.json"
(cd "$T/d" && tar -czf "$T/all.tgz" *.json && zip -q "$T/all.zip" *.json)
"$P" --json "$T/all.tgz" > "$T/tgz.json" || fail "tar.gz"
same_file "$T/ref.json" "$T/tgz.json"
"$P" --json "$T/all.zip" > "$T/zip.json" || fail "zip"
same_file "$T/ref.json" "$T/zip.json"
# names do not matter: a zip called .txt is still a zip
cp "$T/all.zip" "$T/zip-in-disguise.txt"
"$P" --json "$T/zip-in-disguise.txt" > "$T/zip2.json" || fail "zip by content"
same_file "$T/ref.json" "$T/zip2.json"
# event streams concatenate
"$P" $(sed -n 1p "$T/order") > "$T/a.bin"; "$P" $(sed -n '2,$p' "$T/order") > "$T/b.bin"
cat "$T/a.bin" "$T/b.bin" | "$P" --json > "$T/frames.json" || fail "concatenated frames"
same_file "$T/ref.json" "$T/frames.json"
# --stats
expect_exit 0 "$P" --stats -o "$T/s.bin" "$T/d"
expect_err "games, [0-9]+ kyoku, [0-9]+ events"
expect_err "dahai +[1-9]"
[ ! -s "$T/out" ] || fail "--stats wrote to stdout"

# broken inputs: exit code and a message naming the place
f=$(sed -n 1p "$T/order")
{ sed -n 1,2p "$f"; echo '{"type":"tsumo","actor":0,'; sed -n '4,$p' "$f"; } > "$T/badjson.json"
expect_exit 1 "$P" --json "$T/badjson.json"
expect_err "badjson.json:3: invalid JSON"
sed '3s/"type":"[a-z_]*"/"type":"bogus"/' "$f" > "$T/badtype.json"
expect_exit 1 "$P" -o "$T/never.bin" "$T/badtype.json"
expect_err "badtype.json:3: .*unknown event type 'bogus'"
[ ! -e "$T/never.bin" ] || fail "partial output left behind"
ls "$T" | grep -q 'never.bin.tmp' && fail "temporary output left behind"
awk 'NR==3 && /"pai"/ { sub(/"pai":"[^"]*"/, "\"pai\":\"0z\"") } { print }' "$f" > "$T/badtile.json"
grep -q '"0z"' "$T/badtile.json" || fail "fixture: line 3 has no pai"
expect_exit 1 "$P" "$T/badtile.json" -o "$T/x.bin"
expect_err "badtile.json:3: .*bad tile '0z'"
ln=$(grep -n '"type":"pon"' "$f" | head -n 1 | cut -d: -f1)
[ -n "$ln" ] || fail "fixture: no pon in $f"
sed "${ln}s/\"consumed\":\[\([^]]*\)\]/\"consumed\":[\1,\"1m\"]/" "$f" > "$T/badcons.json"
expect_exit 1 "$P" "$T/badcons.json" -o "$T/x.bin"
expect_err "badcons.json:$ln: .*pon: consumed has 3 tiles, expected 2"
# --keep-going skips the bad game and counts it; the good ones still come out
cat "$T/badtype.json" $(sed -n 2p "$T/order") > "$T/mixed.json"
expect_exit 0 "$P" --keep-going --json "$T/mixed.json"
expect_err "1 bad games skipped"
$PY tests/shell/jsoneq.py "$T/out" $(sed -n 2p "$T/order") || fail "keep-going kept the wrong games"
# truncated gzip
gzip -c "$f" > "$T/t.gz"; sz=$(wc -c < "$T/t.gz")
head -c $((sz / 2)) "$T/t.gz" > "$T/trunc.gz"
expect_exit 1 "$P" --json "$T/trunc.gz"
expect_err "trunc.gz.*truncated"
# event streams: truncated, bad magic, newer version
"$P" "$f" > "$T/ev.bin"; sz=$(wc -c < "$T/ev.bin")
head -c $((sz - 100)) "$T/ev.bin" > "$T/trunc.bin"
expect_exit 1 "$P" --json "$T/trunc.bin"
expect_err "trunc.bin.*truncated event stream"
{ printf 'HYEVENTX'; tail -c +9 "$T/ev.bin"; } > "$T/magic.bin"
expect_exit 3 "$P" --json "$T/magic.bin"
expect_err "magic.bin: unrecognised input format"
{ head -c 8 "$T/ev.bin"; printf '\011\000'; tail -c +11 "$T/ev.bin"; } > "$T/newer.bin"
expect_exit 3 "$P" --json "$T/newer.bin"
expect_err "newer.bin.*version 9 is newer"
# golden streams of the format spec
expect_exit 0 "$P" --json "$GOLDEN/events/empty.bin"
[ ! -s "$T/out" ] || fail "empty.bin gave events"
# good.bin is a valid stream of synthetic games that are not valid mjai games:
# the check names the game's own provenance (source and line) from the stream
expect_exit 1 "$P" --json "$GOLDEN/events/good.bin"
expect_err "logs/2024/.*\.mjson:21: start_kyoku: missing or bad dora_marker"
for b in bad-magic newer-version truncated no-trailer bad-crc; do
	"$P" --json "$GOLDEN/events/$b.bin" > /dev/null 2>&1 && fail "$b.bin accepted"
done
# an mjx State JSON (one kyoku's full state per line, not a game log) is an
# unrecognised format (status 3), not a broken mjai log; so is any JSON whose
# first object has no "type"; JSON that does not parse stays a broken mjai log
MJXS="$DATA/logs/mjx-project_mjx/workspace/suphx-reward-shaping/tests/resources"
nmjx=0
for f in "$MJXS"/*.json; do
	[ -f "$f" ] || continue
	expect_exit 3 "$P" --json "$f"
	expect_err "$(basename "$f"): unrecognised input format: an mjx State JSON"
	[ ! -s "$T/out" ] || fail "mjx State gave output"
	expect_exit 3 "$P" --check -o "$T/mjx.bin" "$f"
	[ ! -e "$T/mjx.bin" ] || fail "mjx State: output file left behind"
	nmjx=$((nmjx + 1))
done
[ "$nmjx" -ge 1 ] || echo "no mjx State files under $MJXS: that part skipped"
printf '{"a":1}\n{"type":"start_game"}\n' > "$T/notype.json"
expect_exit 3 "$P" --json "$T/notype.json"
expect_err "notype.json: unrecognised input format \(expected mjai JSON lines"
printf '{"type":"start_game",\n' > "$T/cut.json"
expect_exit 1 "$P" --json "$T/cut.json"
expect_err "cut.json:1: invalid JSON"
# an unreadable path
expect_exit 1 "$P" --json "$T/does-not-exist"
expect_err "does-not-exist.*No such file"
exit 0
