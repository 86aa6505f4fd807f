#!/bin/sh
# bf16 on the oneDNN CPU path (issue 54), three checks in one run:
#  1. training: `small` behaviour-cloned from GAMES rulebot hanchan for
#     STEPS steps (batch 256) in fp32 with seeds 1 and 2 (the run-to-run
#     noise) and in bf16 (hydra-fit --precision bf16) with seed 1: each
#     run's samples/s and final validation loss on VAL_GAMES other games;
#  2. agreement: the fp32 seed-1 model's greedy action in fp32 and in bf16
#     on every decision of the real logs (LOGS, ../shared/data/logs beside
#     the repository; skipped without) and of AGREE_GAMES (200) rulebot
#     self-play hanchan (bench/nn/bf16_agree.c);
#  3. strength: that model against three rulebot at SEEDS seeds on each
#     master seed of MASTERS, greedy (hydra-eval's default), played on the path onednn (fp32) and
#     onednn-bf16 — the same seeds, so the two differ only by the
#     arithmetic.
# OUT (default /tmp/hydra-bf16) keeps each stage; a rerun skips what is
# there. Needs $BUILD/bench/bf16_agree and a build with oneDNN.
set -e
BUILD=${BUILD:-build}
BIN=$BUILD/bin
top=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/hydra-bf16}
GAMES=${GAMES:-400}
VAL_GAMES=${VAL_GAMES:-40}
STEPS=${STEPS:-2000}
SEEDS=${SEEDS:-400}
AGREE_GAMES=${AGREE_GAMES:-200}
MASTERS=${MASTERS:-31337 4242}
LOGS=${LOGS:-$top/../shared/data/logs}
J=${J:-2}
"$BIN/hydra-fit" --cpu-path onednn --help >/dev/null 2>&1 ||
	{ echo "bf16: skipped (no oneDNN in this build)"; exit 0; }
mkdir -p "$OUT"
echo "bf16: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), the CPU has $(grep -o 'avx512[a-z_0-9]*\|amx[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"

# ---- 1. training, fp32 twice and bf16
[ -f "$OUT/teacher.bin" ] ||
	"$BIN/hydra-sp" -q --policy rulebot --games "$GAMES" --seed 900 -j "$J" -o "$OUT/teacher.bin"
[ -f "$OUT/val.bin" ] ||
	"$BIN/hydra-sp" -q --policy rulebot --games "$VAL_GAMES" --seed 7900 -j "$J" -o "$OUT/val.bin"
fit() { # NAME SEED PRECISION
	[ -f "$OUT/$1.h5" ] && return 0
	rm -rf "$OUT/$1"
	s=$(date +%s.%N)
	"$BIN/hydra-fit" -q --cpu-path onednn --precision "$3" --arch small --steps "$STEPS" \
		--batch 256 --seed "$2" -j "$J" --val "$OUT/val.bin" --out "$OUT/$1" \
		"$OUT/teacher.bin" 2> "$OUT/$1.err" || { cat "$OUT/$1.err" >&2; exit 1; }
	e=$(date +%s.%N)
	echo "$s $e" > "$OUT/$1.time"
	cp -L "$OUT/$1/latest" "$OUT/$1.h5"
}
fit fp32-1 1 fp32
fit fp32-2 2 fp32
fit bf16-1 1 bf16
for r in fp32-1 fp32-2 bf16-1; do
	# the last validation loss the run logged (metrics.jsonl)
	v=$(/usr/bin/python3 -c 'import json,sys
v = None
for l in open(sys.argv[1]):
    m = json.loads(l)
    if m.get("val_loss") is not None: v = m["val_loss"]
print("%.4f" % v)' "$OUT/$r/metrics.jsonl")
	awk -v r="$r" -v v="$v" -v n="$STEPS" '{ printf "train %s: %d steps in %.1f s (%.0f samples/s), final validation loss %s\n", r, n, $2 - $1, n * 256 / ($2 - $1), v }' "$OUT/$r.time"
done

# ---- 2. agreement on real and self-play decisions
if [ ! -f "$OUT/agree.bin" ]; then
	: > "$OUT/agree.bin.tmp"
	if [ -d "$LOGS" ]; then
		"$BIN/mjai-parse" -k "$LOGS" 2>/dev/null | "$BIN/hydra-encode" -k > "$OUT/real.bin" 2>/dev/null || true
	fi
	"$BIN/hydra-sp" -q --policy rulebot --games "$AGREE_GAMES" --seed 5900 -j "$J" -o "$OUT/sp.bin"
	mv "$OUT/agree.bin.tmp" "$OUT/agree.bin"
fi
"$BUILD/bench/bf16_agree" "$OUT/fp32-1.h5" "$OUT/sp.bin" | sed 's/^/self-play: /'
if [ -s "$OUT/real.bin" ]; then
	"$BUILD/bench/bf16_agree" "$OUT/fp32-1.h5" "$OUT/real.bin" | sed 's/^/real games: /'
else
	echo "real games: skipped (no logs at $LOGS)"
fi

# ---- 3. strength, fp32 and bf16 on the same seeds
for s in $MASTERS; do
	for p in onednn onednn-bf16; do
		f=$OUT/arena-$p-$s.json
		[ -f "$f" ] || "$BIN/hydra-eval" -q --cpu-path $p --challenger "$OUT/fp32-1.h5" \
			--opponent rulebot --seeds "$SEEDS" --seed "$s" -j "$J" --json > "$f.tmp" && mv "$f.tmp" "$f"
		printf 'arena %s, master seed %s, %s seeds: ' "$p" "$s" "$SEEDS"
		/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); q=r["rank"]
print("%d games, mean rank %.4f [%.4f, %.4f]" % (r["games"], q["mean"], q["lo"], q["hi"]))' "$f"
	done
done
