#!/bin/sh
# hydra-encode: options, exit codes, every shared game encoded with legal
# labels and counts per action type, streams and shards (h5dump, rotation,
# validation split, seat filter), stream → shard → stream lossless.
. tests/shell/lib.sh
E="$BIN/hydra-encode"

# usage
expect_exit 0 "$E" --help
grep -q -- '--val-fraction' "$T/out" || fail "--help lacks --val-fraction"
for o in --output --shard-size --val-fraction --val-output --seats --keep-going --stats; do
	grep -q -- "$o" "$TOP/man/hydra-encode.1" || grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$TOP/man/hydra-encode.1" ||
		fail "man page lacks $o"
	grep -q -- "$o" "$T/out" || fail "--help lacks $o"
done
expect_exit 0 "$E" -V
expect_exit 2 "$E" --seats 5
expect_err "bad --seats"
expect_exit 2 "$E" --val-fraction 2 --val-output x
expect_err "bad --val-fraction"
expect_exit 2 "$E" --val-fraction 0.1
expect_err "needs --val-output"
expect_exit 2 "$E" -o "$T/x.h5" --shard-size 10
expect_err "needs a pattern"
expect_exit 2 "$E" -o "$T/x-%d.h5"
expect_err "needs --shard-size"
expect_exit 2 "$E" -o "$T/x-%s.h5" --shard-size 10
expect_err "exactly one %d"
expect_exit 2 "$E" --bogus
expect_exit 1 "$E" "$T/missing.json"

# an empty input gives a valid empty stream
printf '' > "$T/empty"
expect_exit 0 "$E" -o "$T/empty.samples" "$T/empty"
[ -s "$T/empty.samples" ] || fail "no empty stream"

# the games: every shared log when the shared data is there (real games of
# every source; counts below are theirs), else self-play games in the three
# formats (tests/shell/lib.sh: gen_logs), each game three times
if have_data; then
	L="$DATA/logs"
	find "$L" -type f \( -name '*.json' -o -name '*.jsonl' -o -name '*.mjson' -o -name '*.mjlog' -o -name '*.xml' \) |
		grep -v -e '-no-game-end' -e '-no-round-end' -e 'hello.input' -e 'suphx-reward-shaping' \
			-e 'confusing_nakis_2.json' | sort > "$T/files"
	[ "$(wc -l < "$T/files")" -ge 100 ] || fail "too few logs"
	want="7[0-9] games, .* [0-9]{5} samples, 3[0-9] duplicate games dropped"
	classes="discard riichi chi pon kan win kyuushu pass"
else
	echo "shared logs not found at $DATA/logs: encoding self-play games instead"
	gen_logs 6
	find "$GEN" -type f | sort > "$T/files"
	want="6 games, .* [0-9]{4} samples, 12 duplicate games dropped"
	classes="discard riichi chi pon win pass"
fi
"$BIN/mjai-parse" $(cat "$T/files") > "$T/ev.bin" 2>"$T/err" || { cat "$T/err"; fail "mjai-parse"; }

# every game encodes: labels legal (else exit 1), counts per action type
expect_exit 0 "$E" --stats "$T/ev.bin"
cp "$T/out" "$T/all.samples"
cat "$T/err"
expect_err "$want"
for a in $classes; do
	grep -Eq "hydra-encode:   $a +[1-9][0-9]*$" "$T/err" || fail "no $a samples"
done
total=$(sed -n 's/.* \([0-9]*\) samples.*/\1/p' "$T/err")
[ "$(wc -c < "$T/all.samples")" -eq $((32 + 5888 * (total + 1))) ] || fail "stream size"

# any log format is accepted directly; the result is the same stream
expect_exit 0 "$E" $(cat "$T/files")
same_file "$T/out" "$T/all.samples"

# a game the engine rejects names the game and event; -k skips it
if have_data; then
	bad="$L/Equim-chan_mjai-reviewer/convlog/tests/testdata/confusing_nakis_2.json"
	why="confusing_nakis_2.json:1: game 1, event 37 \(hora\): illegal hora"
else # a self-play game whose first win goes to another seat
	gzip -dc "$GEN/mjai/game-00000000.json.gz" |
		awk '/"type":"hora"/ && !done { sub(/"actor":[0-3]/, "\"actor\":" (substr($0, index($0, "\"actor\":") + 8, 1) + 1) % 4); done = 1 } 1' \
		> "$T/bad.json"
	bad="$T/bad.json"
	why="bad.json:[0-9]+: game 1, event [0-9]+ \(hora\): illegal hora"
fi
expect_exit 1 "$E" "$bad"
expect_err "$why"
expect_exit 1 "$E" -k "$bad"
expect_err "1 bad games skipped"
expect_err "no games: all 1 games read were bad"

# -o FILE (stream) equals stdout; -o FILE.h5 is a shard h5dump reads
expect_exit 0 "$E" -o "$T/all2.samples" "$T/ev.bin"
same_file "$T/all2.samples" "$T/all.samples"
expect_exit 0 "$E" -o "$T/all.h5" "$T/ev.bin"
if command -v h5dump >/dev/null 2>&1; then
	h5dump -H "$T/all.h5" > "$T/h" || fail "h5dump -H"
	grep -q "DATASET \"obs\"" "$T/h" || fail "no obs dataset"
	grep -q "( $total, 85, 34 )" "$T/h" || fail "obs dims"
	h5dump -d obs -s 0,0,0 -c 1,1,34 "$T/all.h5" > "$T/d" || fail "h5dump -d obs"
	grep -q "(0,0,0): [01]" "$T/d" || fail "obs values not printed as numbers"
fi
# stream → shard → stream is lossless (through hydra-augment's identity)
if [ -x "$BIN/hydra-augment" ]; then
	"$BIN/hydra-augment" --perms 0 "$T/all.h5" > "$T/back.samples" || fail "augment"
	same_file "$T/back.samples" "$T/all.samples"
fi

# rotation: files of 10000 samples numbered from 0
mkdir -p "$T/rot"
expect_exit 0 "$E" -o "$T/rot/train-%03d.h5" --shard-size 10000 "$T/ev.bin"
n=$(ls "$T/rot" | wc -l)
[ "$n" -eq $(((total + 9999) / 10000)) ] || fail "rotation made $n files"
[ -f "$T/rot/train-000.h5" ] || fail "first shard name"
ls "$T/rot" | grep -q tmp && fail "temporary file left"

# validation split: whole games by id hash, deterministic, nothing lost
expect_exit 0 "$E" --stats --val-fraction 0.3 --val-output "$T/val.samples" -o "$T/tr.samples" "$T/ev.bin"
expect_err "samples \([0-9]+ in [0-9]+ validation games\)"
nv=$(( ($(wc -c < "$T/val.samples") - 32) / 5888 - 1 ))
nt=$(( ($(wc -c < "$T/tr.samples") - 32) / 5888 - 1 ))
[ $((nv + nt)) -eq "$total" ] || fail "split lost samples: $nv + $nt != $total"
[ "$nv" -gt 0 ] && [ "$nt" -gt 0 ] || fail "split sizes $nv / $nt"
expect_exit 0 "$E" --val-fraction 0.3 --val-output "$T/val2.samples" -o "$T/tr2.samples" "$T/ev.bin"
same_file "$T/val.samples" "$T/val2.samples"

# seat filter
expect_exit 0 "$E" --stats --seats 0,2 -o "$T/s02.samples" "$T/ev.bin"
n02=$(sed -n 's/.* \([0-9]*\) samples.*/\1/p' "$T/err")
[ "$n02" -gt 0 ] && [ "$n02" -lt "$total" ] || fail "--seats 0,2 gave $n02 of $total"
exit 0
