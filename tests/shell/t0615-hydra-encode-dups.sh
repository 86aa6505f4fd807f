#!/bin/sh
# hydra-encode writes each game once: a game whose content id it has seen in
# the run (the same file twice, a gzip'd copy, another format of the same
# game, a copy in an archive) is dropped and counted; --keep-duplicates
# keeps them. On self-play games always, on the real twins of the shared logs
# (mjlog and tenhou.net/6 of the same Tenhou games) when they are there.
. tests/shell/lib.sh
E="$BIN/hydra-encode"
P="$BIN/mjai-parse"

expect_exit 0 "$E" --help
grep -q -- '--keep-duplicates' "$T/out" || fail "--help lacks --keep-duplicates"
grep -qF -- '\-\-keep\-duplicates' "$TOP/man/hydra-encode.1" || fail "man page lacks --keep-duplicates"

# games encoded / duplicates dropped, from --stats
games() { sed -n 's/.* \([0-9]*\) games, .*/\1/p' "$T/err"; }
dups() { sed -n 's/.* \([0-9]*\) duplicate games dropped.*/\1/p' "$T/err" | head -n 1; }

gen_logs 3
G="$GEN/mjai"
expect_exit 0 "$E" --stats -o "$T/one.samples" "$G"
[ "$(games)" -eq 3 ] && [ -z "$(dups)" ] || { cat "$T/err"; fail "3 distinct games: $(games) encoded"; }
grep -q duplicate "$T/err" && fail "duplicates reported where there are none"

# copies: the same directory twice (another spelling of its path), a
# plain copy, mjai JSON lines, an event stream, a tar archive
mkdir -p "$T/copies"
gzip -dc "$G/game-00000001.json.gz" > "$T/copies/plain.json"
"$P" --json "$G/game-00000002.json.gz" > "$T/copies/again.mjson" || fail "mjai-parse --json"
"$P" -o "$T/copies/all.bin" "$G" || fail "mjai-parse"
(cd "$GEN" && tar cf "$T/copies/logs.tar" mjai) || fail "tar"
expect_exit 0 "$E" --stats -o "$T/dedup.samples" "$G" "$G/." "$T/copies"
[ "$(games)" -eq 3 ] && [ "$(dups)" -eq 11 ] || { cat "$T/err"; fail "expected 3 games, 11 duplicates"; }
same_file "$T/dedup.samples" "$T/one.samples"
# without --stats the count is still said
expect_exit 0 "$E" -o "$T/dedup2.samples" "$G" "$T/copies/plain.json"
expect_err "1 duplicate games dropped \(--keep-duplicates keeps them\)"
# --keep-duplicates keeps every copy
expect_exit 0 "$E" --stats --keep-duplicates -o "$T/all.samples" "$G" "$G/." "$T/copies"
[ "$(games)" -eq 14 ] && [ -z "$(dups)" ] || { cat "$T/err"; fail "--keep-duplicates: $(games) games"; }
# the split sees each game once
expect_exit 0 "$E" --stats --val-fraction 0.5 --val-output "$T/val.samples" -o "$T/tr.samples" "$G" "$T/copies"
[ "$(dups)" -eq 8 ] || { cat "$T/err"; fail "split: $(dups) duplicates"; }

# the writers' formats of the same games are twins too
if [ -d "$GEN/mjlog" ]; then
	expect_exit 0 "$E" --stats -o "$T/fmt.samples" "$GEN/mjlog" "$GEN/tenhou6" "$G"
	[ "$(games)" -eq 3 ] && [ "$(dups)" -eq 6 ] || { cat "$T/err"; fail "mjlog/tenhou6 twins: $(games) games, $(dups) duplicates"; }
	same_file "$T/fmt.samples" "$T/one.samples"
fi

# real twins: the mjx games as mjlog and as tenhou.net/6 JSON, the
# mjlog2json games as XML and JSON — one content id per game in any format
if have_data; then
	R="$DATA/logs/mjx-project_mjx/tests_py/resources"
	ls "$R/mjlog" | grep -E '^[0-9]{10}gm-[0-9a-f]{4}-[0-9]{4}-[0-9a-f]{8}\.mjlog$' | sed 's/\.mjlog$//' > "$T/names"
	n=$(wc -l < "$T/names")
	[ "$n" -ge 30 ] || fail "only $n mjx games in $R/mjlog"
	for b in $(cat "$T/names"); do
		echo "$R/mjlog/$b.mjlog"; echo "$R/mjscore/$b.json"
	done > "$T/twins"
	expect_exit 0 "$E" --stats -o "$T/real.samples" $(cat "$T/twins")
	[ "$(games)" -eq "$n" ] && [ "$(dups)" -eq "$n" ] ||
		{ cat "$T/err"; fail "mjx twins: $(games) games, $(dups) duplicates, want $n and $n"; }
	expect_exit 0 "$E" -o "$T/real-mjlog.samples" $(grep '\.mjlog$' "$T/twins")
	same_file "$T/real.samples" "$T/real-mjlog.samples"
	X="$DATA/logs/tsubakisakura_mjlog2json/data"
	expect_exit 0 "$E" --stats -o "$T/x.samples" "$X"
	nx=$(ls "$X" | grep -c '\.xml$')
	[ "$(games)" -eq "$nx" ] && [ "$(dups)" -eq "$nx" ] ||
		{ cat "$T/err"; fail "mjlog2json twins: $(games) games, $(dups) duplicates, want $nx"; }
else
	echo "shared logs not found at $DATA/logs: the real twins part skipped"
fi
exit 0
