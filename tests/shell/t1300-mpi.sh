#!/bin/sh
# Multi-process runs over MPI (lib/mpi, issue 13), two and three ranks on
# this machine (mpirun --oversubscribe): hydra-sp and hydra-eval give the
# same output as one process, with game (seed) i played by rank i mod N
# also when N does not divide the games; hydra-fit with 2 ranks matches 1
# rank on the same global batch within float summation order, repeats
# itself bit for bit, resumes a 1-rank checkpoint; a rank killed with
# SIGKILL fails the whole run (non-zero, the rank named) and leaves only
# complete checkpoints; a failing rank names the subject of its diagnostic.
# Skipped when the build has no MPI (NO_MPI=1, or no libopenmpi-dev).
#
# Tiers: the fast tier runs 2 ranks only: hydra-sp and hydra-eval against
# one process, hydra-fit 2 ranks against 1 (twice, bit for bit), standard
# input and a rank's diagnostic, the killed rank, and the shards read in
# two parts; the full tier adds 3 ranks, aborted games, --sequential, the
# resumes across rank counts, the batch of 1, --no-overlap and
# --loader-threads.
. tests/shell/lib.sh
FLAGS="${HY_BUILD:-$TOP/build}/.flags"
grep -q HY_HAVE_MPI "$FLAGS" 2>/dev/null || skip "built without MPI (skipped)"
need_cmd mpirun
need_cmd python3
export OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN="timeout 120 mpirun --oversubscribe --allow-run-as-root"
# SANITIZE=1: OpenMPI leaves allocations of its plugins at exit, which it
# has unloaded (LeakSanitizer sees "<unknown module>" and no suppression
# can name them): leak checks stay on for the single-process runs here
# and elsewhere, off under mpirun; ASan and UBSan errors stay fatal.
if grep -q fsanitize "$FLAGS"; then
	MPIRUN="env ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} $MPIRUN"
fi
MPI2="$MPIRUN -np 2" MPI3="$MPIRUN -np 3"
SP="$BIN/hydra-sp" EV="$BIN/hydra-eval" F="$BIN/hydra-fit"
cd "$T" || exit 1

# ---- hydra-sp: game i on rank i mod N, rank 0 writes the stream: same bytes
"$SP" --games 6 --seed 7 -o one.sms -l logs1 2>sp1.err || { cat sp1.err; fail "hydra-sp"; }
$MPI2 "$SP" --games 6 --seed 7 -o two.sms -l logs2 2>sp2.err || { cat sp2.err; fail "mpirun hydra-sp"; }
same_file one.sms two.sms
diff -r logs1 logs2 >/dev/null || fail "hydra-sp logs differ between 1 and 2 ranks"
"$SP" --games 1 --seed 9 --learner -o a.sms 2>/dev/null || fail "hydra-sp 1 game"
$MPI2 "$SP" --games 1 --seed 9 --learner -o b.sms 2>sp3.err || { cat sp3.err; fail "mpirun hydra-sp, a rank without games"; }
same_file a.sms b.sms

# ---- hydra-eval: the statistics over both ranks' seeds are one process's
"$EV" --challenger random --opponent baseline --seeds 5 -S 4 --json --log-dir el1 >e1.json \
	2>/dev/null || fail "hydra-eval"
$MPI2 "$EV" --challenger random --opponent baseline --seeds 5 -S 4 --json --log-dir el2 \
	>e2.json 2>ev.err || { cat ev.err; fail "mpirun hydra-eval"; }
[ "$(grep -c . e2.json)" -eq 1 ] || fail "hydra-eval: one report expected (rank 0's)"
diff -r el1 el2 >/dev/null || fail "hydra-eval logs differ between 1 and 2 ranks"
python3 - e1.json e2.json <<'EOF' || fail "hydra-eval reports differ between 1 and 2 ranks"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for r in (a, b):
    r.pop("elapsed_s"); r.pop("games_per_s")
sys.exit(a != b)
EOF

if in_full; then
# ---- 3 ranks, 7 games (seeds): ranks 0, 1, 2 play 3, 2, 2 of them,
# interleaved; rank 0 gathers them in game order: the same bytes again
"$SP" --games 7 --seed 7 -o one7.sms -l logs7a 2>/dev/null || fail "hydra-sp 7 games"
$MPI3 "$SP" --games 7 --seed 7 -o three7.sms -l logs7b 2>sp7.err ||
	{ cat sp7.err; fail "mpirun -np 3 hydra-sp"; }
same_file one7.sms three7.sms
diff -r logs7a logs7b >/dev/null || fail "hydra-sp logs differ between 1 and 3 ranks"
# --first, --rotate (seats by game index) and --learner go through it too
"$SP" --games 7 --first 5 --seed 2 --rotate random,baseline --learner -o one7f.sms \
	2>/dev/null || fail "hydra-sp --first 5"
$MPI3 "$SP" --games 7 --first 5 --seed 2 --rotate random,baseline --learner -o three7f.sms \
	2>sp7f.err || { cat sp7f.err; fail "mpirun -np 3 hydra-sp --first 5"; }
same_file one7f.sms three7f.sms
# which rank played which game: a seat-0 bot that dies aborts every game
# (--keep-going: all of them are played, and the run fails with no output),
# and mpirun --tag-output names the rank of each "aborted" line
"$SP" --keep-going --games 7 --seed 7 --seat0 "mjai:exit 0" --others baseline -o dead1.sms 2>/dev/null
[ $? -eq 1 ] || fail "hydra-sp, every game aborted: exit 1 expected"
$MPI3 --tag-output "$SP" --keep-going --games 7 --seed 7 --seat0 "mjai:exit 0" --others baseline \
	-o dead3.sms >dead3.out 2>&1
[ $? -ne 0 ] || fail "mpirun -np 3 hydra-sp, every game aborted: exit 0"
[ ! -e dead1.sms ] && [ ! -e dead3.sms ] || fail "hydra-sp, every game aborted: output left"
grep -q "all 7 games aborted" dead3.out || { cat dead3.out; fail "mpirun hydra-sp: no verdict"; }
python3 - dead3.out <<'EOF' || { cat dead3.out; fail "hydra-sp: game i not on rank i mod 3"; }
import re, sys
seen = {}
for l in open(sys.argv[1]):
    m = re.match(r"\[\d+,(\d+)\]<stderr>:hydra-sp: game \d+ \(index (\d+)\) aborted", l)
    if m:
        seen[int(m.group(2))] = int(m.group(1))
assert seen == {i: i % 3 for i in range(7)}, seen
EOF
"$EV" --challenger random --opponent baseline --seeds 7 -S 4 --json --log-dir el7a >e7a.json \
	2>/dev/null || fail "hydra-eval --seeds 7"
$MPI3 "$EV" --challenger random --opponent baseline --seeds 7 -S 4 --json --log-dir el7b \
	>e7b.json 2>ev7.err || { cat ev7.err; fail "mpirun -np 3 hydra-eval"; }
[ "$(grep -c . e7b.json)" -eq 1 ] || fail "hydra-eval: one report expected (rank 0's)"
diff -r el7a el7b >/dev/null || fail "hydra-eval logs differ between 1 and 3 ranks"
python3 - e7a.json e7b.json <<'EOF' || fail "hydra-eval reports differ between 1 and 3 ranks"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for r in (a, b):
    r.pop("elapsed_s"); r.pop("games_per_s")
assert a["seeds_counted"] == 7 and a["games"] == 28, a
sys.exit(a != b)
EOF
# seed k (its 4 rotations) on rank k mod 3
$MPI3 --tag-output "$EV" --challenger "mjai:exit 0" --opponent baseline --seeds 7 -q \
	--json >/dev/null 2>dev3.out
[ $? -ne 0 ] || fail "mpirun -np 3 hydra-eval, every game aborted: exit 0"
python3 - dev3.out <<'EOF' || { cat dev3.out; fail "hydra-eval: seed k not on rank k mod 3"; }
import re, sys
seen = {}
for l in open(sys.argv[1]):
    m = re.match(r"\[\d+,(\d+)\]<stderr>:hydra-eval: game aborted \(seed (\d+), "
                 r"rotation (\d)\)", l)
    if m:
        seen[(int(m.group(2)), int(m.group(3)))] = int(m.group(1))
assert seen == {(k, r): k % 3 for k in range(7) for r in range(4)}, seen
EOF
# --sequential decides after each look in one process: refused on 2 ranks
$MPI2 "$EV" --challenger baseline --opponent random --seeds 4 --sequential -q >/dev/null 2>seq2.err
[ $? -ne 0 ] || fail "mpirun hydra-eval --sequential: exit 0"
grep -q -- '--sequential decides after each look in one process' seq2.err ||
	{ cat seq2.err; fail "mpirun hydra-eval --sequential: no reason"; }

fi # (in_full: 3 ranks, aborted games, --sequential)

# ---- hydra-fit: 2 ranks vs 1 rank, same data, seed and global batch
FIT="--arch tiny --steps 20 --batch 64 --threads 1 --log-every 1 --seed 3"
"$F" $FIT --save-every 10 --out f1 one.sms 2>f1.err || { cat f1.err; fail "hydra-fit"; }
$MPI2 "$F" $FIT --out f2 one.sms 2>f2.err || { cat f2.err; fail "mpirun hydra-fit"; }
$MPI2 "$F" $FIT --out f2b one.sms 2>/dev/null || fail "mpirun hydra-fit (again)"
[ "$(ls f2 | tr '\n' ' ')" = "best ckpt-00000020.h5 latest metrics.jsonl " ] ||
	fail "2-rank output directory: $(ls f2)"
[ "$(grep -c . f2/metrics.jsonl)" -eq 20 ] || fail "metrics.jsonl: one line a step (rank 0 alone)"
grep -q "latest f2/ckpt-00000020.h5" f2.err || fail "closing message"
# Bound: the two runs differ only in float summation order (each rank's
# half-batch GEMM sums, then the all-reduce; normalisers rescaled by
# B_rank/B): ~1e-7 relative per step. Measured 3e-8 over these 20 steps;
# 1e-4 leaves room for other BLAS kernels without hiding a wrong
# normalisation (a half-batch mean or a missing rank is > 1e-2).
python3 - f1/metrics.jsonl f2/metrics.jsonl f2b/metrics.jsonl <<'EOF' || fail "2 ranks vs 1 rank"
import json, sys
a, b, c = ([json.loads(l) for l in open(p)] for p in sys.argv[1:])
assert len(a) == len(b) == len(c) == 20, "20 steps each"
keys = ("loss", "policy", "value", "grp", "tenpai", "danger", "grad_norm")
worst = max(abs(x[k] - y[k]) / max(abs(x[k]), 1e-12) for x, y in zip(a, b) for k in keys)
print("2 ranks vs 1: max relative difference %.3g" % worst)
assert worst <= 1e-4, "relative difference %g > 1e-4" % worst
assert all(x["acc"] == y["acc"] and x["samples"] == y["samples"] for x, y in zip(a, b))
assert all(x[k] == y[k] for x, y in zip(b, c) for k in keys), "2-rank runs differ"
EOF
# two checkpoints alike but for the command line each records (--out differs):
# the weights, the moments and every other attribute
same_ckpt() {
	h5diff "$1" "$2" /params > /dev/null && h5diff "$1" "$2" /adam > /dev/null || return 1
	attrs() { h5dump -A "$1" | tail -n +2 | sed '/ATTRIBUTE "train_command"/,/^   }$/d'; }
	[ "$(attrs "$1")" = "$(attrs "$2")" ]
}
if command -v h5diff >/dev/null 2>&1; then
	same_ckpt f2/ckpt-00000020.h5 f2b/ckpt-00000020.h5 ||
		fail "two 2-rank runs: checkpoints not bit-identical"
fi
if in_full; then
# the data cursor is global: a 1-rank checkpoint resumes on 2 ranks
$MPI2 "$F" --resume f1/ckpt-00000010.h5 --steps 20 --out f3 one.sms 2>f3.err ||
	{ cat f3.err; fail "mpirun hydra-fit --resume"; }
python3 - f1/metrics.jsonl f3/metrics.jsonl <<'EOF' || fail "resumed on 2 ranks"
import json, sys
a, b = ([json.loads(l) for l in open(p)] for p in sys.argv[1:])
a = {r["step"]: r["loss"] for r in a}
b = [r for r in b if r["step"] > 10]
assert len(b) == 10, "steps 11-20 logged"
assert all(abs(r["loss"] - a[r["step"]]) <= 1e-4 * a[r["step"]] for r in b)
EOF
# a global batch smaller than the ranks: rank 1's slice is empty
"$F" --arch tiny --steps 3 --batch 1 --threads 1 --log-every 1 --seed 5 --out g1 one.sms \
	2>/dev/null || fail "hydra-fit --batch 1"
$MPI2 "$F" --arch tiny --steps 3 --batch 1 --threads 1 --log-every 1 --seed 5 --out g2 one.sms \
	2>g2.err || { cat g2.err; fail "mpirun hydra-fit --batch 1"; }
python3 - g1/metrics.jsonl g2/metrics.jsonl <<'EOF' || fail "empty slice"
import json, sys
a, b = ([json.loads(l)["loss"] for l in open(p)] for p in sys.argv[1:])
assert len(a) == len(b) == 3 and all(abs(x - y) <= 1e-4 * abs(x) for x, y in zip(a, b)), (a, b)
EOF
fi # (in_full: the resume, the batch of 1)
# standard input reaches rank 0 only: refused, every rank ends, exit 2
$MPI2 "$F" --arch tiny --steps 1 --out s2 - <one.sms >/dev/null 2>s2.err
rc=$?
[ $rc -ne 0 ] || fail "mpirun hydra-fit on standard input: exit 0"
grep -q "give the inputs as files" s2.err || { cat s2.err; fail "standard input message"; }
# every rank's diagnostic keeps its subject, as a plain run's does
"$F" --arch tiny --steps 1 --out nx1 nonexist.h5 >/dev/null 2>nx1.err && fail "hydra-fit nonexist.h5: exit 0"
grep -q "nonexist.h5: cannot open: No such file or directory" nx1.err || { cat nx1.err; fail "plain run message"; }
$MPI2 "$F" --arch tiny --steps 1 --out nx2 nonexist.h5 >/dev/null 2>nx2.err && fail "mpirun hydra-fit nonexist.h5: exit 0"
grep -q "rank [01] of 2 failed: nonexist.h5: cannot open: No such file or directory" nx2.err ||
	{ cat nx2.err; fail "a rank's diagnostic lost its subject"; }

# ---- a rank killed with SIGKILL mid-run
$MPI2 "$F" --arch tiny --steps 1000000 --batch 64 --threads 1 --save-every 2 --seed 3 \
	--out k one.sms >/dev/null 2>k.err &
job=$!
i=0
while [ "$(cat k/metrics.jsonl 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
victim=""
for p in $(own_pids "--out k one.sms"); do
	tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" | grep -qx OMPI_COMM_WORLD_RANK=1 && victim=$p
done
[ -n "$victim" ] || { kill "$job"; fail "rank 1 of the run not found"; }
sleep 0.3
kill -9 "$victim"
wait "$job"
rc=$?
[ $rc -ne 0 ] || fail "a killed rank: the run exited 0"
grep -q "rank 1" k.err || { cat k.err; fail "the killed rank is not named"; }
[ -z "$(ls k | grep -v '^ckpt-[0-9]*\.h5$\|^latest$\|^best$\|^metrics\.jsonl$')" ] ||
	fail "temporary files left: $(ls k)"
last=$(readlink k/latest | sed 's/^ckpt-0*//; s/\.h5$//')
"$F" --resume k --steps $((last + 2)) --out k2 one.sms 2>k2.err >/dev/null ||
	{ cat k2.err; fail "the last checkpoint of the killed run does not resume"; }
# ---- [disjoint reads, overlapped sum] hydra-fit on shards, 2 ranks (issue
# 13): each rank reads only its own chunks of the shards (about half the
# samples each; together no more than one process reads), the steps match
# 1 rank within float summation order; the overlapped gradient sum (the
# default) gives the bits of --no-overlap (two ranks: one addition per
# float, whatever the buckets) and of the feed (--loader-threads), and
# repeats itself bit for bit; checkpoints resume across 1 and 2 ranks; a
# batch of 1 leaves one rank an empty part.
"$BIN/hydra-encode" -o sh.h5 logs1 2>/dev/null || fail "hydra-encode logs1 -o sh.h5"
SH="--arch tiny --steps 20 --batch 64 --threads 1 --log-every 1 --seed 3 --shuffle-buffer 1024"
"$F" $SH --save-every 10 --keep 5 --out h1 sh.h5 2>h1.err || { cat h1.err; fail "hydra-fit shards"; }
$MPI2 "$F" $SH --save-every 10 --keep 5 --out h2 sh.h5 2>h2.err ||
	{ cat h2.err; fail "mpirun hydra-fit shards"; }
grep -q "ranks: gradient sum during the backward pass: .* [1-9][0-9.]* started before it ended" \
	h2.err || { cat h2.err; fail "the overlap line"; }
# "ranks: input read by rank: 0 A samples (x chunks), 1 B samples (y chunks);
# T read in all, S in the steps"
python3 - h2.err <<'PY' || fail "each rank reads its part"
import re, sys
line = [l for l in open(sys.argv[1]) if "input read by rank" in l][0]
m = re.search(r"rank: 0 (\d+) samples \(\d+ chunks\), 1 (\d+) samples \(\d+ chunks\); "
              r"(\d+) read in all, (\d+) in the steps", line)
assert m, line
a, b, t, s = map(int, m.groups())
print("2 ranks read %d + %d = %d samples for the %d of the steps" % (a, b, t, s))
assert s == 20 * 64 and a + b == t, line
# one process reads the 2 buffers of 1024 the 1280 samples come from
assert s <= t <= 2048, line
assert 0.35 * t <= a <= 0.65 * t and 0.35 * t <= b <= 0.65 * t, line
PY
more=""
if in_full; then # (the runs again, with --no-overlap and with --loader-threads 1)
$MPI2 "$F" $SH --save-every 10 --keep 5 --out h2b sh.h5 2>/dev/null ||
	fail "mpirun hydra-fit shards (again)"
$MPI2 "$F" $SH --no-overlap --out h2n sh.h5 2>h2n.err || { cat h2n.err; fail "--no-overlap"; }
$MPI2 "$F" $SH --loader-threads 1 --out h2f sh.h5 2>h2f.err ||
	{ cat h2f.err; fail "mpirun hydra-fit --loader-threads 1"; }
grep -q "ranks: gradient sum after the backward pass" h2n.err || { cat h2n.err; fail "--no-overlap line"; }
more="h2b/metrics.jsonl h2n/metrics.jsonl h2f/metrics.jsonl"
fi
# shellcheck disable=SC2086
python3 - h1/metrics.jsonl h2/metrics.jsonl $more <<'PY' || fail "shards: 2 ranks vs 1 rank"
import json, sys
a, b, *more = ([json.loads(l) for l in open(p)] for p in sys.argv[1:])
assert all(len(r) == 20 for r in [a, b] + more), "20 steps each"
keys = ("loss", "policy", "value", "grp", "tenpai", "danger", "grad_norm")
worst = max(abs(x[k] - y[k]) / max(abs(x[k]), 1e-12) for x, y in zip(a, b) for k in keys)
print("shards, 2 ranks vs 1: max relative difference %.3g" % worst)
assert worst <= 1e-4, "relative difference %g > 1e-4" % worst
assert all(x["acc"] == y["acc"] and x["samples"] == y["samples"] for x, y in zip(a, b))
for name, o in zip(("again", "--no-overlap", "--loader-threads 1"), more):
    assert all(x[k] == y[k] for x, y in zip(b, o) for k in keys), "2-rank run differs: " + name
PY
in_full || exit 0
# ---- the full tier: the checkpoints bit for bit, resumes, a batch of 1
if command -v h5diff >/dev/null 2>&1; then
	same_ckpt h2/ckpt-00000020.h5 h2b/ckpt-00000020.h5 ||
		fail "two 2-rank shard runs: checkpoints not bit-identical"
fi
# resume across rank counts: 1 -> 2 and 2 -> 1
$MPI2 "$F" --resume h1/ckpt-00000010.h5 --steps 20 --out h3 sh.h5 2>h3.err ||
	{ cat h3.err; fail "shards: 1-rank checkpoint on 2 ranks"; }
"$F" --resume h2/ckpt-00000010.h5 --steps 20 --out h4 sh.h5 2>h4.err ||
	{ cat h4.err; fail "shards: 2-rank checkpoint on 1 rank"; }
python3 - h1/metrics.jsonl h3/metrics.jsonl h4/metrics.jsonl <<'PY' || fail "shards: resumed"
import json, sys
a, b, c = ([json.loads(l) for l in open(p)] for p in sys.argv[1:])
a = {r["step"]: r["loss"] for r in a}
for run in (b, c):
    run = [r for r in run if r["step"] > 10]
    assert len(run) == 10, "steps 11-20 logged"
    assert all(abs(r["loss"] - a[r["step"]]) <= 1e-4 * a[r["step"]] for r in run)
PY
# a global batch of 1: one rank's part is empty at every step
"$F" --arch tiny --steps 4 --batch 1 --threads 1 --log-every 1 --seed 5 --out h5a sh.h5 \
	2>/dev/null || fail "hydra-fit --batch 1 on shards"
$MPI2 "$F" --arch tiny --steps 4 --batch 1 --threads 1 --log-every 1 --seed 5 --out h5b sh.h5 \
	2>h5b.err || { cat h5b.err; fail "mpirun hydra-fit --batch 1 on shards"; }
python3 - h5a/metrics.jsonl h5b/metrics.jsonl <<'PY' || fail "shards: empty part"
import json, sys
a, b = ([json.loads(l)["loss"] for l in open(p)] for p in sys.argv[1:])
assert len(a) == len(b) == 4 and all(abs(x - y) <= 1e-4 * abs(x) for x, y in zip(a, b)), (a, b)
PY
# ---- [end of disjoint reads, overlapped sum]

exit 0
