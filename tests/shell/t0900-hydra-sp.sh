#!/bin/sh
# hydra-sp: --help and the man page agree, usage errors (exit 2), logs that
# pass mjai-parse --check and re-encode with hydra-encode, a complete sample
# stream with PPO fields, byte-identical logs and samples whatever --threads
# and --tables, a failing run leaves no output, a tiny model plays (the same
# games with 1 and 2 threads), --device cuda without CUDA exits 4.
. tests/shell/lib.sh
S="$BIN/hydra-sp"
PY=/usr/bin/python3

# --help, man page, -V
expect_exit 0 "$S" --help
grep -q '^usage: hydra-sp --games N \[options\]' "$T/out" || fail "--help usage line"
grep -A3 '^\.B hydra-sp' "$TOP/man/hydra-sp.1" | grep -q 'games' || fail "man SYNOPSIS"
sed 's/\\-/-/g' "$TOP/man/hydra-sp.1" > "$T/man.txt"
for o in games first tables threads seed policy seat0 others rotate temperature device \
	model-threads bot-timeout gae-lambda gamma log-dir output no-samples label-by help version; do
	grep -q -- "--$o" "$T/out" || fail "--help lacks --$o"
	grep -q -- "--$o" "$T/man.txt" || fail "man page lacks --$o"
done
expect_exit 0 "$S" -V
grep -q '^hydra-sp (hydra-c) ' "$T/out" || fail "-V"

# usage errors
expect_exit 2 "$S"
expect_err "--games is required"
expect_exit 2 "$S" --games 0
expect_exit 2 "$S" --games 1 --seed 0x8000000000000000
expect_err "bad --seed"
expect_exit 2 "$S" --games 1 --seat0 baseline
expect_err "go together"
expect_exit 2 "$S" --games 1 --policy random --rotate random,baseline
expect_exit 2 "$S" --games 1 --rotate a,b,c,d,e
expect_exit 2 "$S" --games 1 --policy nonsense --no-samples
expect_err "unknown policy 'nonsense'"
expect_exit 2 "$S" --games 1 --temperature -1
expect_exit 2 "$S" --games 1 --device tpu
expect_exit 2 "$S" --games 1 --no-samples -o x
expect_exit 2 "$S" --games 1 --bogus
expect_err "try 'hydra-sp --help'"

# logs and samples of baseline games
expect_exit 0 "$S" --games 12 --seed 42 --log-dir "$T/L1" -o "$T/s1.bin"
[ "$(ls "$T/L1" | wc -l)" -eq 12 ] || fail "12 logs expected"
[ -f "$T/L1/game-00000000.json.gz" ] && [ -f "$T/L1/game-00000011.json.gz" ] || fail "log names"
ls -a "$T/L1" "$T" | grep -q 'tmp-' && fail "temporary files left"
gzip -dc "$T/L1/game-00000003.json.gz" | head -n 1 > "$T/first"
grep -q '^{"type":"start_game","names":\["baseline","baseline","baseline","baseline"\],"seed":\[42,3\]}$' \
	"$T/first" || { cat "$T/first" >&2; fail "start_game line"; }
gzip -dc "$T/L1/game-00000003.json.gz" | tail -n 1 | grep -q '^{"type":"end_game","scores":\[' ||
	fail "end_game line"
"$BIN/mjai-parse" --check "$T/L1" 2> "$T/check" > /dev/null || { cat "$T/check" >&2; fail "mjai-parse --check"; }
grep -q 'check: 12 games.* 0 illegal events, 0 score mismatches' "$T/check" ||
	{ cat "$T/check" >&2; fail "check summary"; }
"$BIN/hydra-encode" --stats "$T/L1" > "$T/re.bin" 2> "$T/enc" || { cat "$T/enc" >&2; fail "hydra-encode of the logs"; }
if [ -x "$BIN/hydra-augment" ]; then
	"$BIN/hydra-augment" --perms 0 --stats "$T/s1.bin" > /dev/null 2> "$T/aug" ||
		{ cat "$T/aug" >&2; fail "sample stream unreadable"; }
fi

if [ -x "$PY" ]; then
	$PY - "$T/s1.bin" "$T/re.bin" <<'PYEOF' || fail "sample fields"
import struct, sys
def recs(p):
    b = open(p, "rb").read()
    out = []
    off = 32
    while off + 5888 <= len(b):
        if b[off] != 1:
            break
        out.append(b[off:off + 5888])
        off += 5888
    return out
sp, re = recs(sys.argv[1]), recs(sys.argv[2])
assert len(sp) >= len(re) > 1000, (len(sp), len(re))
# every seat's last step of a game has the placement reward
rewards = [struct.unpack_from("<f", r, 28)[0] for r in sp]
assert sorted(set(round(x, 3) for x in rewards)) == [-1.35, 0.0, 0.45, 0.9], set(rewards)
assert sum(1 for x in rewards if x != 0) >= 12 * 3, "rewards"
# baseline: logp 0, value 0 -> adv = ret = discounted reward (gamma 1, lambda 0.95)
for r in sp:
    logp, value, reward, adv, ret = struct.unpack_from("<5f", r, 20)
    assert logp == 0 and value == 0 and abs(adv - ret) < 1e-6
# the re-encoded observations are among the self-play ones
obs = set(r[96:96 + 5780] + r[40:48] + r[1:2] for r in sp)
miss = sum(1 for r in re if r[96:96 + 5780] + r[40:48] + r[1:2] not in obs)
assert miss == 0, "%d re-encoded samples not in self-play" % miss
print("samples: self-play %d, re-encoded %d" % (len(sp), len(re)))
PYEOF
fi

# the same bytes whatever --threads and --tables
expect_exit 0 "$S" --games 12 --seed 42 --threads 2 --tables 5 --log-dir "$T/L2" -o "$T/s2.bin"
same_file "$T/s1.bin" "$T/s2.bin"
diff -r "$T/L1" "$T/L2" > /dev/null || fail "logs differ with --threads 2 --tables 5"
"$S" --games 12 --seed 42 --tables 1 > "$T/s3.bin" 2> "$T/err" || fail "stdout run"
same_file "$T/s1.bin" "$T/s3.bin"
expect_exit 0 "$S" --games 9 --seed 0x2a --rotate random,baseline --tables 3 -o "$T/r1.bin"
expect_exit 0 "$S" --games 9 --seed 0x2a --rotate random,baseline --tables 9 --threads 2 -o "$T/r2.bin"
same_file "$T/r1.bin" "$T/r2.bin"
expect_exit 0 "$S" --games 9 --seed 43 --rotate random,baseline -o "$T/r3.bin"
cmp -s "$T/r1.bin" "$T/r3.bin" && fail "another seed gave the same samples"
expect_exit 0 "$S" --games 3 --first 9 --seed 42 --seat0 random --others baseline --log-dir "$T/L4" --no-samples
[ -f "$T/L4/game-00000011.json.gz" ] || fail "--first numbering"
gzip -dc "$T/L4/game-00000009.json.gz" | head -n 1 | grep -q '"names":\["random","baseline","baseline","baseline"\],"seed":\[42,9\]' ||
	fail "--seat0/--others names"

# a failing run leaves no output: the log directory is a file
: > "$T/notdir"
expect_exit 1 "$S" --games 2 --log-dir "$T/notdir" -o "$T/fail.bin"
[ ! -e "$T/fail.bin" ] || fail "output of a failed run left behind"
ls "$T" | grep -q 'fail.bin.tmp' && fail "temporary output left behind"
# on a pipe the stream ends with an abort record: readers fail
"$S" --games 2 --log-dir "$T/notdir" 2>/dev/null > "$T/fail2.bin"
if [ -x "$BIN/hydra-augment" ]; then
	"$BIN/hydra-augment" "$T/fail2.bin" > /dev/null 2>&1 && fail "an aborted stream reads as complete"
fi

# an external mjai bot: hydra-bot serving the baseline plays the same games;
# a bot that dies aborts its game: the run fails there (exit 1, no output),
# or with --keep-going goes on (reported), and fails when every game aborted
if [ -x "$BIN/hydra-bot" ]; then
	expect_exit 0 "$S" --games 3 --seed 9 --seat0 "mjai:$BIN/hydra-bot baseline" --others baseline -o "$T/b1.bin"
	expect_exit 0 "$S" --games 3 --seed 9 --policy baseline -o "$T/b2.bin"
	same_file "$T/b1.bin" "$T/b2.bin"
fi
expect_exit 1 "$S" --games 3 --seed 9 --seat0 "mjai:exit 0" --others baseline -o "$T/dead.bin"
expect_err "game 1 \(index 0\) aborted: "
expect_err "hint: --keep-going"
grep -q "game 2 " "$T/err" && fail "the run went on after an aborted game"
[ ! -e "$T/dead.bin" ] || fail "a run with an aborted game left its output"
expect_exit 1 "$S" --keep-going --games 3 --seed 9 --seat0 "mjai:exit 0" --others baseline -o "$T/dead.bin"
expect_err "game 2 \(index 1\) aborted: "
expect_err "all 3 games aborted"
[ ! -e "$T/dead.bin" ] || fail "a run whose every game aborted left its output"

# a tiny model (one training step on the baseline samples)
[ -x "$BIN/hydra-fit" ] || skip "hydra-fit not built (model part skipped)"
"$BIN/hydra-fit" --arch tiny --steps 1 --batch 32 --out "$T/run" "$T/s1.bin" 2> "$T/fit" ||
	{ cat "$T/fit" >&2; fail "hydra-fit"; }
expect_exit 0 "$S" --games 4 --seed 5 --rotate "$T/run/latest",baseline --tables 4 -o "$T/m1.bin" --log-dir "$T/M1"
expect_exit 0 "$S" --games 4 --seed 5 --rotate "$T/run/latest",baseline --tables 4 --threads 2 -o "$T/m2.bin"
same_file "$T/m1.bin" "$T/m2.bin"
"$BIN/mjai-parse" --check "$T/M1" > /dev/null 2>&1 || fail "model game logs"
expect_exit 0 "$S" --games 2 --seed 5 --policy "$T/run/latest" --temperature 0 --no-samples
expect_exit 4 "$S" --games 1 --policy "$T/run/latest" --device cuda --no-samples
expect_err "requested device unavailable"
if [ -x "$PY" ]; then
	$PY - "$T/m1.bin" <<'PYEOF' || fail "model sample fields"
import struct, sys
b = open(sys.argv[1], "rb").read()
n = nz = 0
for off in range(32, len(b) - 5888 + 1, 5888):
    if b[off] != 1:
        break
    logp, value = struct.unpack_from("<2f", b, off + 20)
    assert logp <= 0
    n += 1
    nz += value != 0
assert n > 100 and nz > n // 4, (n, nz)
PYEOF
fi
# --learner: only the first policy's decisions (seat 0 here), for PPO
"$BIN/hydra-sp" --games 4 --seat0 random --others baseline --learner -o "$T/learner.bin" ||
	fail "--learner"
/usr/bin/python3 -c "
import sys
d = open(sys.argv[1], 'rb').read(); R = 5888
n = (len(d) - 32) // R - 1
seats = set(d[32 + i * R + 2] for i in range(n))
assert n > 0 and seats == {0}, (n, seats)" "$T/learner.bin" || fail "--learner wrote other seats' samples"

# --label-by: labelling by the playing policy itself changes no byte; by
# another policy, the same games and samples with other action labels
expect_exit 2 "$S" --games 1 --label-by rulebot --no-samples
expect_err "not with --no-samples"
expect_exit 2 "$S" --games 1 --label-by nonsense
expect_err "--label-by 'nonsense'"
"$S" -q --games 3 --policy rulebot -o "$T/rb.bin" || fail "rulebot samples"
"$S" -q --games 3 --policy rulebot --label-by rulebot -o "$T/rb-rb.bin" || fail "--label-by rulebot"
cmp -s "$T/rb.bin" "$T/rb-rb.bin" || fail "--label-by the playing policy changed the samples"
"$S" -q --games 4 --seat0 random --others baseline --learner --label-by rulebot \
	-o "$T/dagger.bin" || fail "--label-by with --learner"
/usr/bin/python3 -c "
import struct, sys
a = open(sys.argv[1], 'rb').read(); b = open(sys.argv[2], 'rb').read(); R = 5888
assert len(a) == len(b), (len(a), len(b))
n = (len(a) - 32) // R - 1
differ = 0
for i in range(n):
    o = 32 + i * R
    ra, rb = a[o:o + R], b[o:o + R]
    assert ra[0] == 1 and ra[:1] + ra[2:] == rb[:1] + rb[2:], i  # all but the label
    mask = struct.unpack_from('<Q', rb, 40)[0]
    assert mask >> rb[1] & 1, i                                   # a legal label
    differ += ra[1] != rb[1]
assert n > 100 and n // 2 < differ < n, (n, differ)  # random's choices mostly relabelled
" "$T/learner.bin" "$T/dagger.bin" || fail "--label-by changed more than the labels, or too few"
# --hidden: the same games and samples, each record extended by its hidden
# state (formats/samples.md: header byte 24 = 1, 6016-byte records); the
# opponents' hands hold as many tiles as the engine says they do, and the
# plain records are the hidden ones' first 5888 bytes (flags bit 4 aside)
expect_exit 2 "$S" --games 1 --hidden --no-samples
expect_err "not with --no-samples"
"$S" -q --games 3 --policy rulebot --hidden -o "$T/rb-hidden.bin" || fail "--hidden"
/usr/bin/python3 -c "
import struct, sys
a = open(sys.argv[1], 'rb').read(); h = open(sys.argv[2], 'rb').read()
assert h[:8] == b'HYSAMPLE' and h[24] == 1 and struct.unpack_from('<I', h, 12)[0] == 6016
n = (len(a) - 32) // 5888 - 1
assert (len(h) - 32) // 6016 - 1 == n, n
for i in range(n):
    ra = a[32 + i * 5888:32 + (i + 1) * 5888]; rh = h[32 + i * 6016:32 + (i + 1) * 6016]
    assert rh[8] & 0x10 and ra[:8] + bytes([ra[8] | 0x10]) + ra[9:] == rh[:5888], i
    x = rh[5888:]
    hands = [x[14 * o:14 * o + 14] for o in range(3)]
    assert all(sum(t != 255 for t in hd) % 3 == 1 for hd in hands), (i, hands)
    assert all(t <= 36 or t == 255 for t in x[:42] + x[45:]) and max(x[42:45]) <= 8, i
assert n > 100, n
" "$T/rb.bin" "$T/rb-hidden.bin" || fail "--hidden: not the plain samples with their hidden state"
# a policy that reads the hidden tiles plays only with --oracle
expect_exit 2 "$S" --games 1 --seat0 rulebot-waits:1,tenpai --others rulebot -o "$T/x.bin"
"$S" -q --games 2 --oracle --seat0 rulebot-waits:1,tenpai --others rulebot --learner --hidden \
	-o "$T/oracle.bin" || fail "--oracle with the rule oracle at seat 0"
# a shard does not hold the hidden state: hydra-augment refuses, writes nothing
expect_exit 2 "$HY_BIN/hydra-augment" --perms 0 -o "$T/h.h5" "$T/rb-hidden.bin"
expect_err "does not hold the hidden state"
[ ! -e "$T/h.h5" ] || fail "a partial shard of hidden samples was left"
"$HY_BIN/hydra-augment" --perms all -o "$T/h6.bin" "$T/rb-hidden.bin" || fail "augment a hidden stream"
[ $(($(wc -c < "$T/h6.bin") - 32)) -eq $((6 * ($(wc -c < "$T/rb-hidden.bin") - 32) - 5 * 6016)) ] ||
	fail "hydra-augment --perms all of a hidden stream: not six images of every record"
exit 0
