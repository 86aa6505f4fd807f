#!/bin/sh
# tier: full
# A benchmark is a test too (issue 57, item 12): every script under bench/
# runs here at its smallest size, each in its own directory, and must exit 0
# and print its figure; a script this list does not name fails the test, so
# a new benchmark comes with its smallest size. Scripts that need what this
# machine may lack say so themselves and still exit 0 (gpu.sh without a
# GPU, the real-log rows without ../shared). bench/learn/learn.sh runs in t0937
# and bench/learn/reader.sh in t0712 (their own tests), feed_procs.sh inside
# feed.sh; the fast tier's twin is t1430 part 12 (selfplay_bench's
# checkpoints play).
. tests/shell/lib.sh
need_cmd python3
cd "$T"
B="$TOP/bench"
export BUILD="${HY_BUILD:-$TOP/build}" BIN="$HY_BIN" SHARED="$HY_SHARED" J=2
export TOOLS="$BUILD/bench"

# the models league.sh and the PPO scripts start from
"$BIN/hydra-sp" --policy rulebot --games 6 --log-dir L -o s.bin -q || fail "hydra-sp"
"$BIN/hydra-fit" --arch tiny --steps 4 -b 32 -q -o w s.bin 2>/dev/null || fail "hydra-fit"
"$BIN/hydra-fit" --mode grp --epochs 1 -q -o g L 2>/dev/null || fail "hydra-fit --mode grp"

# NAME, the environment of its smallest size, a pattern its output must show
run_bench() {
	name=$1 envs=$2 want=$3
	shift 3
	mkdir -p "run-$name"
	# the script in its subject's folder (bench/SUBJECT/NAME.sh), or at the top
	f=$(ls "$B/$name.sh" "$B"/*/"$name.sh" 2>/dev/null | head -1)
	[ -n "$f" ] || fail "no bench/*/$name.sh"
	rel=${f#"$TOP/"}
	(cd "run-$name" && env $envs sh "$f" "$@") > "$name.out" 2>&1 ||
		{ tail -30 "$name.out" >&2; fail "$rel exited non-zero"; }
	grep -Eq -- "$want" "$name.out" || { tail -30 "$name.out" >&2; fail "$rel: no '$want'"; }
	echo "ok $rel"
	done_list="$done_list $name"
}
done_list=""
run_bench hand "" "hands/s"
run_bench samples "" "samples/s"
run_bench events "" "events/s"
run_bench nn "STEPS=1" "samples/s"
run_bench ceiling "STEPS=1 INFER_STEPS=2" "the 3-tap convolutions [0-9.]+ GFLOP/s"
run_bench bot "" "hydra-bot small"
run_bench engine "" "games/s"
run_bench selfplay "GAMES=20" "hanchan per CPU-second"
run_bench arena "SEEDS=4" "average rank [0-9.]+"
run_bench rulebot "SEEDS=4 MASTERS=0" "rank [0-9.]+ \["
run_bench parse "REPEAT=1" "events/s|skipped|not found"
run_bench encode "MIN_SECONDS=1" "samples/s|not found: skipped"
run_bench streamfit "STEPS=4 LOG_EVERY=1 ARCHS=tiny" "stream [0-9]+ samples/s, shard [0-9]+ samples/s"
run_bench mpi "" "ranks|skipped"
run_bench feed "FEED_SECONDS=1 FEED_THREADS=1 FEED_PROCS=1" "samples/s|skipped: no shared logs"
run_bench threads "ROUNDS=1 TINY_STEPS=2 SMALL_STEPS=2" "threads"
run_bench gpu "" "skipped|GB/s|TFLOP"
run_bench tests "TIERS=fast T=test_tile" "tier fast: [0-9]+ s wall"
run_bench waits "SEEDS=3 ALPHAS=0 LOGIT_ALPHAS=1 SCOPES=riichi OUT=$T/wt" "\|"
run_bench league "INIT=$T/w/latest GRP=$T/g/grp.h5 OUT=$T/lg GAMES=8 SEEDS=3 BATCH=32 MAXITERS=1 DEADLINE=600" "vs rulebot [0-9.]+ \\["
run_bench ppo-signal "OUT=$T/ps ITERS=1 GAMES=8 GAMES_W=4 STEPS_W=4 SEEDS=3 BATCH=32" "^base[[:space:]]+0[[:space:]]+31337[[:space:]]+3[[:space:]]+[0-9.]+" base
run_bench ppo-snr "OUT=$T/ps K=2 GAMES=8 BATCH=32" "all[[:space:]]+-?[0-9.]+$"
run_bench bf16 "OUT=$T/bf GAMES=4 VAL_GAMES=2 AGREE_GAMES=2 STEPS=4 SEEDS=3 MASTERS=31337 LOGS=$T/none" "arena onednn-bf16, master seed 31337, 3 seeds: [0-9]+ games, mean rank [0-9.]+|skipped"
run_bench ppo-update "GAMES=4 MODEL=$T/w/latest" "ppo-update, cpu path openblas: 4 games"
run_bench ppo-flaw "OUT=$T/pf W=$T/w/latest ITERS=1 GAMES=8 SEEDS=3 MASTERS=31337 BATCH=32 REWARDS=kyoku" "^kyoku[[:space:]]+master 31337[[:space:]]+rank [0-9.]+ \\["
run_bench curve "OUT=$T/cv START=$T/w/latest GAMES=8 SEEDS=3 BUDGET=5 MAXITERS=2 EVAL_EVERY=1 BATCH=32" "^fit: rank = [0-9.]+"
run_bench fit-curve "" "target 2.45: 50000 games at the fitted slope" --self-test
run_bench oracle "OUT=$T/or START=$T/w/latest GAMES=8 TEACHER_STEPS=4 STUDENT_STEPS=8 SEEDS=3 TEACHER_SEEDS=3 MASTERS=31337 BATCH=32" "^gate \\(student at least 0.05 better"

# every script is named above, or said why not
for f in "$B"/*.sh "$B"/*/*.sh; do
	n=$(basename "$f" .sh)
	case " $done_list learn reader feed_procs " in
	*" $n "*) ;;
	*) fail "${f#"$TOP/"} has no smallest size in t1440" ;;
	esac
done
