#!/bin/sh
# hydra-augment: counts, x6 order, lists, --perms random reproducibility,
# inverses, shards (h5dump structure, stream -> shard -> stream), the
# observation version kept, broken inputs and exit codes. Works on the golden sample files; no shared data.
. tests/shell/lib.sh
need_cmd python3
A="$BIN/hydra-augment"
G="$GOLDEN/samples"
REC=5888
PY=/usr/bin/python3

# samples FILE: the number of samples in a one-frame stream (checks the size)
samples() {
	sz=$(wc -c < "$1")
	[ $(( (sz - 32) % REC )) -eq 0 ] || fail "$1: size $sz is not a frame"
	echo $(( (sz - 32) / REC - 1 ))
}
# records FILE OUT: the sample records of a stream, one frame after the
# other, frame headers and trailers left out
records() {
	$PY - "$1" "$2" <<'PYEOF'
import sys
d = open(sys.argv[1], "rb").read()
out, i = [], 0
while i < len(d):
    i += 32
    while d[i] != 3:
        out.append(d[i:i + 5888]); i += 5888
    i += 5888
open(sys.argv[2], "wb").write(b"".join(out))
PYEOF
}

# --help and the man page SYNOPSIS agree; -V; usage errors
expect_exit 0 "$A" --help
grep -q '^usage: hydra-augment \[options\] \[PATH\.\.\.\]' "$T/out" || fail "--help usage line"
grep -A1 '^\.B hydra-augment' "$TOP/man/hydra-augment.1" | grep -q 'options.*PATH' || fail "man SYNOPSIS"
for o in perms seed output format stats help version; do
	grep -q -- "--$o" "$T/out" || fail "--help lacks --$o"
	grep -q -- "\\\\-\\\\-$o" "$TOP/man/hydra-augment.1" || fail "man page lacks --$o"
done
expect_exit 0 "$A" -V
grep -q '^hydra-augment (hydra-c) ' "$T/out" || fail "-V"
expect_exit 2 "$A" --no-such-option
expect_err "try 'hydra-augment --help'"
expect_exit 2 "$A" --perms 0,6 "$G/good.bin"
expect_err "bad --perms '0,6'"
expect_exit 2 "$A" --perms 1,,2 "$G/good.bin"
expect_exit 2 "$A" --seed 3 "$G/good.bin"
expect_err "needs --perms random"
expect_exit 2 "$A" --perms random --seed -1 "$G/good.bin"
expect_exit 2 "$A" --format shard "$G/good.bin"
expect_err "shard cannot go to stdout"
expect_exit 2 "$A" --format hdf "$G/good.bin"

# --perms all: x6, sample-major, identity first; trailer count consistent
expect_exit 0 "$A" --stats "$G/good.bin"
expect_err "5 samples read, 30 written"
cp "$T/out" "$T/all.bin"
[ "$(samples "$T/all.bin")" -eq 30 ] || fail "--perms all gave $(samples "$T/all.bin") samples"
"$A" --perms 0 "$T/all.bin" > "$T/all0.bin" || fail "re-reading the x6 output"
same_file "$T/all.bin" "$T/all0.bin"
records "$G/good.bin" "$T/good.rec"
records "$T/all.bin" "$T/all.rec"
for p in 0 1 2 3 4 5; do
	"$A" --perms $p "$G/good.bin" > "$T/p$p.bin" || fail "--perms $p"
	records "$T/p$p.bin" "$T/p$p.rec"
	# sample k of --perms p is sample 6k+p of --perms all
	$PY - "$T/all.rec" "$T/p$p.rec" $p <<'PYEOF' || fail "--perms all order (perm $p)"
import sys
a, b, p = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read(), int(sys.argv[3])
R = 5888
assert len(b) == 5 * R and len(a) == 30 * R
for k in range(5):
    assert a[(6 * k + p) * R:(6 * k + p + 1) * R] == b[k * R:(k + 1) * R], k
PYEOF
done
# identity is bit-identical to the input records; the others are not
cmp -s "$T/p0.rec" "$T/good.rec" || fail "identity changed samples"
for p in 1 2 3 4 5; do cmp -s "$T/p$p.rec" "$T/good.rec" && fail "perm $p changed nothing"; done
# a permutation then its inverse restores the input
for pq in 1:1 2:2 3:4 4:3 5:5; do
	p=${pq%:*} q=${pq#*:}
	"$A" --perms $p "$G/good.bin" | "$A" --perms $q > "$T/back.bin" || fail "perms $p then $q"
	same_file "$T/back.bin" "$T/p0.bin"
done
# a list, in its order
expect_exit 0 "$A" --perms 5,0,3 -o "$T/list.bin" "$G/good.bin"
[ "$(samples "$T/list.bin")" -eq 15 ] || fail "--perms 5,0,3 count"
# stdin, several inputs, concatenated frames
cat "$G/good.bin" "$G/empty.bin" "$G/good.bin" | "$A" --perms 0,1 > "$T/cat.bin" || fail "stdin"
[ "$(samples "$T/cat.bin")" -eq 20 ] || fail "concatenated stdin count"
"$A" --perms 0,1 "$G/good.bin" - "$G/good.bin" < "$G/empty.bin" > "$T/cat2.bin" || fail "paths"
same_file "$T/cat.bin" "$T/cat2.bin"

# --perms random: one permutation per game, reproducible
cat "$G/good.bin" "$G/good.bin" > "$T/twice.bin"
"$A" --perms random --seed 7 "$T/twice.bin" > "$T/r7a.bin" || fail "random"
"$A" --perms random --seed 7 "$T/twice.bin" > "$T/r7b.bin" || fail "random again"
same_file "$T/r7a.bin" "$T/r7b.bin"
[ "$(samples "$T/r7a.bin")" -eq 10 ] || fail "random count"
records "$T/r7a.bin" "$T/r7a.rec"
$PY - "$T/r7a.rec" <<'PYEOF' || fail "random: the two copies of a game got different permutations"
import sys
a = open(sys.argv[1], "rb").read(); R = 5888
for k in range(5):
    assert a[k * R:(k + 1) * R] == a[(k + 5) * R:(k + 6) * R], k
PYEOF
"$A" --perms random --seed 0x8 "$T/twice.bin" > "$T/r8.bin" || fail "random seed 8"
cmp -s "$T/r7a.bin" "$T/r8.bin" && fail "seeds 7 and 8 gave the same permutations"
# each output sample is one of the 6 images of its input
$PY - "$T/r7a.rec" "$T/all.rec" <<'PYEOF' || fail "random: not a permutation image"
import sys
r, a = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read(); R = 5888
for k in range(10):
    imgs = [a[(6 * (k % 5) + p) * R:(6 * (k % 5) + p + 1) * R] for p in range(6)]
    assert r[k * R:(k + 1) * R] in imgs, k
PYEOF

# shards: structure seen by stock h5dump, numbers printed, lossless
expect_exit 0 "$A" -o "$T/all.h5" "$G/good.bin"
[ ! -s "$T/out" ] || fail "-o wrote to stdout"
need_cmd h5dump
h5dump -H "$T/all.h5" > "$T/h" || fail "h5dump -H"
for ds in obs mask opp_waits game score kyoku_delta logp value reward adv ret step action \
	seat grand_kyoku honba rank grp opp_tenpai flags; do
	grep -q "DATASET \"$ds\"" "$T/h" || fail "no dataset $ds in h5dump -H"
done
for at in format format_version encoder_version command_line sources; do
	grep -q "ATTRIBUTE \"$at\"" "$T/h" || fail "no attribute $at in h5dump -H"
done
grep -A2 'DATASET "obs"' "$T/h" | grep -q '16-bit little-endian floating-point' || fail "obs type"
grep -A2 'DATASET "obs"' "$T/h" | grep -q '( 30, 85, 34 ) / ( H5S_UNLIMITED, 85, 34 )' || fail "obs dims"
grep -A2 'DATASET "opp_waits"' "$T/h" | grep -q 'H5T_STD_U64LE' || fail "opp_waits type"
grep -A2 'DATASET "mask"' "$T/h" | grep -q '( 30 )' || fail "mask dims"
h5dump -p -H -d obs "$T/all.h5" > "$T/p" || fail "h5dump -p"
grep -q 'SHUFFLE' "$T/p" && grep -q 'DEFLATE' "$T/p" || fail "obs filters"
grep -q 'CHUNKED ( 128, 85, 34 )' "$T/p" || fail "obs chunking"
h5dump -d obs -s 0,0,0 -c 1,1,10 "$T/all.h5" > "$T/o" || fail "h5dump -d obs"
grep -q '(0,0,0): 0, 0.5, 0.0999756, 1, 0, 0, 0.5, 0.0999756, 1, 0' "$T/o" || { cat "$T/o"; fail "obs values"; }
h5dump -a format_version "$T/all.h5" | grep -q '(0): 2' || fail "format_version"
h5dump -a format "$T/all.h5" | grep -q '"hydra-samples"' || fail "format attribute"
h5dump -a sources "$T/all.h5" | grep -q "good.bin" || fail "sources"
h5dump -a command_line "$T/all.h5" | grep -q -- "-o $T/all.h5" || fail "command_line"
h5dump -d score "$T/all.h5" | grep -q -- '-3000' || fail "score values"
# stream -> shard -> stream is bit-exact; shards on stdin; --format
"$A" --perms 0 "$T/all.h5" > "$T/back.bin" || fail "shard to stream"
same_file "$T/back.bin" "$T/all.bin"
"$A" --perms 0 < "$T/all.h5" > "$T/back2.bin" || fail "shard on stdin"
same_file "$T/back2.bin" "$T/all.bin"
"$A" --perms 0 --format stream -o "$T/s.h5" "$G/good.bin" || fail "--format stream"
head -c 8 "$T/s.h5" | grep -q HYSAMPLE || fail "--format stream wrote no stream"
"$A" --perms 0 --format shard -o "$T/x.shard" "$G/good.bin" || fail "--format shard"
"$A" --perms 0 "$T/x.shard" > "$T/x.bin" && same_file "$T/x.bin" "$T/p0.bin"
# the committed golden shard still reads as the golden stream (its samples:
# it is unmarked, and so is the copy)
"$A" --perms 0 "$G/good.h5" > "$T/gold.bin" || fail "golden shard"
records "$T/gold.bin" "$T/gold.rec"
cmp -s "$T/gold.rec" "$T/p0.rec" || fail "golden shard samples"

# the observation version (lib/samples/sample.h): header byte 17 of a stream,
# attribute obs_version of a shard; a copy keeps its input's, unmarked (0)
# included; inputs of two versions are refused
obsv() { od -An -tu1 -j17 -N1 "$1" | tr -d ' '; }
[ "$(obsv "$G/good.bin")" = 4 ] || fail "golden stream version"
[ "$(obsv "$T/p0.bin")" = 4 ] || fail "copy of version 4"
[ "$(obsv "$T/gold.bin")" = 0 ] || fail "copy of an unmarked shard got a version"
h5dump -a obs_version "$T/all.h5" | grep -q '(0): 4' || fail "obs_version attribute"
"$A" --perms 3 "$G/good-unmarked.bin" > "$T/u.bin" || fail "unmarked stream"
[ "$(obsv "$T/u.bin")" = 0 ] || fail "copy of an unmarked stream got a version"
"$A" --perms 3 -o "$T/u.h5" "$G/good-unmarked.bin" || fail "unmarked to shard"
h5dump -a obs_version "$T/u.h5" > /dev/null 2>&1 && fail "copy of unmarked samples marked"
"$A" --perms 0 "$T/u.h5" > "$T/u2.bin" && same_file "$T/u2.bin" "$T/u.bin"
expect_exit 3 "$A" -o "$T/two.h5" "$G/good.bin" "$G/good-unmarked.bin"
expect_err "good-unmarked.bin: samples of observation version 0, the inputs before them 4"
[ ! -e "$T/two.h5" ] || fail "two versions: output left behind"
expect_exit 3 "$A" "$G/mixed-obs.bin"
expect_err "mixed-obs.bin:4: sample stream mixes observation versions: 0 in frame 2"

# broken inputs: exit code and a message naming the place; no output left
for c in bad-magic:3:"not a sample stream \\(bad magic\\)" newer-version:3:"version 2 is newer" \
	wrong-dims:3:"obs 84x34" wrong-record-size:3:"record size" truncated:1:"good|bad" \
	no-trailer:1:"no trailer after record 3" bad-crc:1:"bad-crc.bin:2: checksum mismatch" \
	bad-count:1:"count mismatch" bad-action:1:"bad-action.bin:2: bad sample record"; do
	f=${c%%:*} rest=${c#*:} code=${rest%%:*} msg=${rest#*:}
	[ "$f" = truncated ] && msg="truncated.bin:3: truncated sample stream"
	expect_exit "$code" "$A" -o "$T/broken.h5" "$G/$f.bin"
	expect_err "^hydra-augment: .*$msg"
	[ ! -e "$T/broken.h5" ] || fail "$f: output left behind"
	ls "$T" | grep -q 'tmp-' && fail "$f: temporary left behind"
	expect_exit "$code" "$A" -o "$T/broken.bin" "$G/$f.bin"
	[ ! -e "$T/broken.bin" ] || fail "$f: stream output left behind"
done
# a run that fails on a pipe ends its stream with an abort record, never a
# trailer: the next stage fails too, saying why
cat "$G/good.bin" "$G/bad-crc.bin" | "$A" --perms 0,1 2>/dev/null > "$T/part.bin" && fail "bad input accepted"
expect_exit 1 "$A" "$T/part.bin"
expect_err "input stream was aborted by its producer: hydra-augment failed"
expect_exit 1 "$A" "$T/no-such-file"
expect_err "no-such-file: cannot open: No such file"
head -c 20000 "$T/all.h5" > "$T/half.h5"
expect_exit 1 "$A" "$T/half.h5"
expect_err "half.h5: not a readable shard \(a truncated or corrupt HDF5 file, 20000 bytes\)"
printf 'hello' > "$T/junk"
expect_exit 3 "$A" "$T/junk"
exit 0
