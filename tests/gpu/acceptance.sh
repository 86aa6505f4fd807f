#!/bin/sh
# make gpu-acceptance: everything a GPU must pass and measure, in one run
# that writes one report (REPORT, default $BUILD/gpu-acceptance.txt).
# Without a usable GPU (or with a build without the CUDA backend) it prints
# "gpu-acceptance: skipped: no GPU (reason)" and exits 0.
#
#   1. the device and the build (nvidia-smi, the commit, the CUDA libraries
#      the programs load);
#   2. check_gpu: every op of backend.h against the CPU reference in fp32
#      and bf16 with the GEMM and the cuDNN convolution, the model forward
#      and backward, 50 training steps on both backends, checkpoints
#      CPU → GPU → CPU, determinism, and rows at real sizes: every
#      convolution mode trained, PPO, `full`, batch 4096, inference at
#      batches 1…1024 (tests/gpu/check_gpu.c);
#   3. hydra-fit end to end on data this script makes (rule-bot self-play,
#      never skipped for want of logs): --device cuda, resumed on the CPU
#      and back on the GPU, two identical runs, a too-large batch refused
#      (tests/gpu.sh);
#   4. issue 43's measurements (group speed): the ceilings measured in
#      this run (a 1 GiB device copy, the 8192³ bf16 GEMM); the three GEMMs
#      of a convolution of full's shape at batch 1024 and 2048 and the
#      stem's at K = 255 and padded to 256, by cublasGemmEx as conv.cu calls
#      them and by the best of cuBLASLt's first algorithms, as a share of
#      the ceiling; the taps, GroupNorm+Mish and SE kernels forward and
#      backward alone in GB/s and the whole convolution op, with the v1 and
#      the v2 kernels (bench/gpu/roof.cu); training samples/s and MFU of
#      `full` bf16 at batch 2048, the per-op profile (nn/prof.h) and
#      inference at batch 1, 64 and 1024 with each of v1, v2 and v3 (issue
#      56's fused block; HYDRA_CUDA_PATH; v2's and v3's inference replays
#      CUDA graphs); batch 256 and 1024, fp32 and --fast
#      once; the device side of the compact feed (bench/gpu/gpu_bench.c); ncu's
#      speed of light of the GEMM kernels where ncu runs; self-play on the
#      GPU with a small and a full checkpoint, hanchan per second, v1, v2
#      and v3;
#   5. the data feed with 1, 8 and 16 readers on the host, chunks decoded
#      outside HDF5's lock, and the old way (FEED_DECODE=hdf5) beside it
#      (bench/data/feed_bench.c); 1 to 16 separate reader processes
#      (bench/data/feed_procs.sh);
#   6. two MPI ranks sharing the GPU, overlap on and off, where mpirun is.
#
# Time, estimated for one H100 and 16 cores (build not included: make -j16
# of the CUDA objects takes about 2 minutes): 1. 5 s; 2. 90 s (55 s on an
# H200); 3. 60 s (self-play 15 s, 4 short hydra-fit runs); 4. about 6
# minutes (roof 60 s; about 20 s a gpu_bench configuration: start-up, the
# convolution timing, 20 steps; ncu 2 × 60 s; self-play 2 checkpoints and 4
# runs of 20-40 s); 5. 85 s (25 s of it the processes); 6. 30 s: about 10
# minutes in all, every step under its own time limit so that a hang costs
# its limit, not the run. ACCEPT="core speed" (the groups below) is about
# 7 minutes: what a GPU lent for one 10-minute call runs first.
# ACCEPT: the groups of steps to run (default all but lease, in this order):
#   lease  the device, check_gpu, the ceilings and the three paths' training
#          and inference rates, under 8 minutes in all (for one lent call)
#   core   the device and check_gpu
#   e2e    hydra-fit on self-play data, resumed on the CPU (tests/gpu.sh)
#   speed  issue 43's measurements: the ceilings and kernels (roof), training,
#          profile and inference with the v1, v2 and v3 kernels
#          (HYDRA_CUDA_PATH), ncu's speed of light of the GEMMs, and
#          self-play on the GPU with a small and a full checkpoint
#   feed   the data feed
#   mpi    two MPI ranks on one GPU
# so that a GPU lent for a few minutes runs ACCEPT="core speed" first.
#
# A lent GPU's time is counted (issue 56): BUDGET seconds (default 480, 8
# minutes, with lease; 3600 otherwise) bound the whole run — each step runs under the smaller of its own
# limit and what is left, and a step that would start with under 20 s left
# is reported as not run; the report (REPORT) and a summary of one line per
# step (SUMMARY) go to OUT when it is set (a borrowed machine brings back
# its $OUT), else to $BUILD; when check_gpu fails, the speed steps of the
# failing kernel path (v3 when only v3's cases fail, v2 and v3 when only
# theirs do, else all three) are not run; a step's status is its command's, never that of a pipe's last
# filter. --dry-run prints the steps with their limits and the budget,
# runs nothing and needs no GPU (tests/shell/t1450).
ACCEPT=${ACCEPT:-core e2e speed feed mpi}
want() { case " $ACCEPT " in *" $1 "*) return 0 ;; esac; return 1; }
BUILD=${BUILD:-build}
DRY=0
[ "${1:-}" = --dry-run ] && DRY=1
if want lease; then BUDGET=${BUDGET:-480}; else BUDGET=${BUDGET:-3600}; fi
DEST=${OUT:-$BUILD}
REPORT=${REPORT:-$DEST/gpu-acceptance.txt}
SUMMARY=${SUMMARY:-$DEST/gpu-summary.txt}
START=$(date +%s)
B=$BUILD/bin
G=$BUILD/bench/gpu_bench
CG=$BUILD/tests/check_gpu
T=$(mktemp -d "${TMPDIR:-/tmp}/gpu-acceptance.XXXXXX")
trap 'rm -rf "$T"' EXIT
if [ $DRY = 0 ]; then
	for f in "$CG" "$G" "$BUILD/bench/feed_bench" "$B/hydra-fit" "$B/hydra-sp"; do
		[ -x "$f" ] || { echo "gpu-acceptance: $f not built (make gpu-acceptance builds it)" >&2; exit 1; }
	done
	probe=$("$CG" --probe 2>&1)
	case $probe in
	"check-gpu: skipped"*)
		echo "gpu-acceptance: skipped: ${probe#check-gpu: skipped: }"
		exit 0 ;;
	esac
	mkdir -p "$(dirname "$REPORT")" "$(dirname "$SUMMARY")"
	: > "$REPORT" && : > "$SUMMARY" || exit 1
else
	REPORT=/dev/null SUMMARY=/dev/null
	echo "gpu-acceptance --dry-run: budget $BUDGET s, groups: $ACCEPT"
fi
failed=0 planned=0 skip_paths=""
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
sum() { printf '%s\n' "$*" >> "$SUMMARY"; }
# step NAME LIMIT COMMAND...: runs it under the smaller of its limit and the
# budget left, its output into the report as it comes, and one status line
# with the seconds it took (also into the summary); a step of a kernel path
# in skip_paths (its name ends "kernels v1", "kernels v2" or "kernels v3")
# is not run
step() {
	name=$1 limit=$2
	shift 2
	planned=$((planned + limit))
	if [ $DRY = 1 ]; then
		printf '%4d s  %s\n' "$limit" "$name"
		return 0
	fi
	for p in $skip_paths; do
		case $name in *"kernels $p"*)
			say "-- $name: not run (check_gpu failed on $p)"; sum "skip  $name (check_gpu failed on $p)"
			return 0 ;;
		esac
	done
	left=$((BUDGET - ($(date +%s) - START)))
	if [ $left -lt 20 ]; then
		say "-- $name: not run (${left} s of the ${BUDGET} s budget left)"
		sum "skip  $name (budget)"
		return 0
	fi
	[ $limit -gt $left ] && limit=$left
	say ""
	say "== $name"
	t0=$(date +%s)
	timeout -k 5 "$limit" "$@" > "$T/out" 2>&1
	rc=$?
	cat "$T/out" >> "$REPORT"
	tail -n 40 "$T/out"
	dt=$(( $(date +%s) - t0 ))
	case $rc in
	0) say "-- $name: ok (${dt} s)"; sum "ok    $name (${dt} s)" ;;
	124|137) say "-- $name: TIMEOUT after ${limit} s"; sum "FAIL  $name (timeout ${limit} s)"
		failed=$((failed + 1)) ;;
	*) say "-- $name: FAILED (status $rc, ${dt} s)"; sum "FAIL  $name (status $rc)"
		failed=$((failed + 1)) ;;
	esac
	return $rc
}

[ $DRY = 1 ] || say "gpu-acceptance: $(date -u '+%Y-%m-%d %H:%M UTC'), commit ${HY_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}, budget $BUDGET s"
# core_steps DEVICE-LIMIT CHECK-LIMIT: the device, then check_gpu; when it
# fails, the failing path's speed steps would measure wrong kernels: v3
# alone is left out when every failing case names v3 (bf16/v3 or a v3 op),
# v2 and v3 (which runs v2's kernels beside its own) when every one names
# v2 or v3, else all three
core_steps() {
	step "device" "$1" sh -c 'nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv;
		nproc; ldd '"$B"'/hydra-fit | grep -E "cud|cublas" || true'
	if ! step "check_gpu (ops, model, training, checkpoints, determinism, v1, v2 and v3 kernels, graphs)" "$2" "$CG"; then
		fails=$(grep -E 'FAIL' "$T/out")
		if [ -n "$fails" ] && ! printf '%s\n' "$fails" | grep -vq 'v3'; then skip_paths="v3"
		elif [ -n "$fails" ] && ! printf '%s\n' "$fails" | grep -Evq 'v2|v3'; then skip_paths="v2 v3"
		else skip_paths="v1 v2 v3"; fi
		say "-- check_gpu failed: the speed steps of kernels $skip_paths are not run"
	fi
}
want core && core_steps 30 300

# lease: what a GPU lent for one call of 8 minutes answers first — both
# kernel paths correct, their training and inference rates, the ceilings of
# the same run — with limits that add up to under the default budget
if want lease; then
core_steps 15 140
step "ceilings, conv and stem GEMMs bare, kernels and convolutions v1 and v2, C 256, batch 2048 (issue 43)" 80 \
	"$G" roof 256 2048
for path in v1 v2 v3; do
	step "train full bf16 batch 2048, kernels $path" 50 env HYDRA_CUDA_PATH=$path "$G" train full 2048 20
done
step "infer full bf16 batch 1, kernels v1" 15 env HYDRA_CUDA_PATH=v1 "$G" infer full 1 50
for b in 1 64 1024; do
	step "infer full bf16 batch $b, kernels v2 (CUDA graphs)" 15 env HYDRA_CUDA_PATH=v2 "$G" infer full $b 50
done
for b in 1 1024; do
	step "infer full bf16 batch $b, kernels v3 (CUDA graphs)" 15 env HYDRA_CUDA_PATH=v3 "$G" infer full $b 50
done
fi

# rule-bot self-play data: 64 hanchan as mjai logs, and shards of them
if want e2e || want speed || want feed || want mpi; then
step "self-play data (64 rulebot hanchan)" 120 sh -c '
	"'"$B"'/hydra-sp" --games 64 --tables 16 -j 16 --policy rulebot --seed 5 \
		--log-dir "'"$T"'/logs" --no-samples'
step "shards for the feed" 120 sh -c '
	"'"$B"'/mjai-parse" "'"$T"'/logs" | "'"$B"'/hydra-encode" -o "'"$T"'/train-%02d.h5" -n 4000'
fi
if want e2e; then
step "hydra-fit on the GPU, resumed on the CPU and back (tests/gpu.sh)" 240 \
	env BUILD="$BUILD" GPU_LOGS="$T/logs" sh tests/gpu.sh
fi

if want speed; then
step "ceilings, conv and stem GEMMs bare, kernels and convolutions v1 and v2, C 256, batch 1024 and 2048 (issue 43)" 180 \
	"$G" roof 256 1024 2048
for path in v1 v2 v3; do
	step "train full bf16 batch 2048, kernels $path" 90 env HYDRA_CUDA_PATH=$path "$G" train full 2048 20
	step "per-op time of a training step, full bf16 batch 1024, kernels $path" 90 \
		env HYDRA_CUDA_PATH=$path "$G" profile full 1024 10
	for b in 1 64 1024; do
		step "infer full bf16 batch $b, kernels $path$([ $path != v1 ] && echo ' (CUDA graphs)')" 60 \
			env HYDRA_CUDA_PATH=$path "$G" infer full $b 50
	done
done
step "train full bf16 batch 256" 60 "$G" train full 256 20
step "train full bf16 batch 1024" 60 "$G" train full 1024 20
step "train full fp32 batch 1024" 90 "$G" train full 1024 10 fp32
step "train full bf16 batch 1024 --fast" 60 "$G" train full 1024 20 bf16 fast
step "expand_obs and the batch copies, batch 1024" 30 "$G" expand 1024 50
# ncu's speed of light of the GEMM kernels of two training steps of full
# (v1 and v2), where ncu is installed and may read the counters
if command -v ncu > /dev/null 2>&1; then
	for path in v1 v2 v3; do
		# ncu's own status, not grep's: its output to a file, filtered after
		step "ncu speed of light, the GEMM kernels of full bf16 batch 2048, kernels $path" 150 sh -c '
			HYDRA_CUDA_PATH='"$path"' ncu --section SpeedOfLight --launch-skip 40 --launch-count 6 \
				-k "regex:gemm|Gemm|nvjet|cutlass|xmma|sm90" "'"$G"'" train full 2048 2 \
				> "'"$T"'/ncu.txt" 2>&1
			rc=$?
			grep -E "^  [A-Za-z_].*\(|Duration|Throughput|SM Busy|ERR|not permitted" "'"$T"'/ncu.txt" |
				head -60
			exit $rc'
	done
else
	say ""
	say "== ncu speed of light: not run: no ncu on this machine"
fi
# self-play on the GPU (issue 43 step 5): a small and a full checkpoint
# (one step of hydra-fit on the shards), 32 hanchan at 32 tables with the
# model at every seat, hanchan per second with each kernel path
for a in small full; do
	step "a $a checkpoint for self-play (hydra-fit, one step)" 120 \
		"$B/hydra-fit" --device cuda --arch $a --batch 64 --steps 1 -o "$T/sp-$a" "$T"/train-*.h5
	for path in v1 v2 v3; do
		step "self-play on the GPU, $a, kernels $path: 32 hanchan, 32 tables" 180 sh -c '
			t0=$(date +%s.%N)
			HYDRA_CUDA_PATH='"$path"' "'"$B"'/hydra-sp" --games 32 --tables 32 -j 16 --device cuda \
				--policy "'"$T/sp-$a"'/ckpt-00000001.h5" --no-samples -v || exit 1
			t1=$(date +%s.%N)
			awk -v a="$t0" -v b="$t1" "BEGIN { printf \"self-play '"$a"' '"$path"': 32 hanchan in %.1f s: %.2f hanchan/s\\n\", b - a, 32 / (b - a) }"'
	done
done
fi

if want feed; then
# the feed: shards of the self-play games, read by 8 and 16 loaders
for n in 1 8 16; do
	step "feed: $n loader threads, compact layout" 30 sh -c \
		'"'"$BUILD"'/bench/feed_bench" '"$n"' 1024 6 f16 "'"$T"'"/train-*.h5'
done
for n in 1 16; do # the old way for comparison: HDF5 decompresses under its lock
	step "feed: $n loader threads, compact layout, FEED_DECODE=hdf5" 30 sh -c \
		'FEED_DECODE=hdf5 "'"$BUILD"'/bench/feed_bench" '"$n"' 1024 6 f16 "'"$T"'"/train-*.h5'
done
step "feed: 1, 2, 4, 8 and 16 separate processes of one reader (bench/data/feed_procs.sh)" 90 \
	env BUILD="$BUILD" sh bench/data/feed_procs.sh 5 "1 2 4 8 16" "$T"/train-*.h5
for n in 8 16; do
	step "feed: hydra-fit --feed-only, $n loaders" 60 \
		"$B/hydra-fit" --feed-only --loader-threads "$n" --batch 1024 --steps 300 "$T"/train-*.h5
done
fi

if ! want mpi; then
	:
elif command -v mpirun > /dev/null 2>&1; then
	for ov in on off; do
		step "two MPI ranks on one GPU, overlap $ov" 120 mpirun --allow-run-as-root --oversubscribe -np 2 \
			"$B/hydra-fit" --device cuda --arch small --batch 128 --steps 20 $([ $ov = off ] && echo --no-overlap) \
			-o "$T/mpi-$ov" "$T"/train-*.h5
	done
else
	say ""
	say "== two MPI ranks on one GPU: not run: no mpirun on this machine"
fi

if [ $DRY = 1 ]; then
	echo "gpu-acceptance --dry-run: the limits add up to $planned s against a budget of $BUDGET s"
	exit 0
fi
say ""
if [ "$failed" -eq 0 ]; then
	say "gpu-acceptance: every step that ran passed"
else
	say "gpu-acceptance: $failed step(s) FAILED"
fi
sum "$failed failed, $(( $(date +%s) - START )) s of the $BUDGET s budget"
echo "gpu-acceptance: report in $REPORT, summary in $SUMMARY"
[ "$failed" -eq 0 ]
