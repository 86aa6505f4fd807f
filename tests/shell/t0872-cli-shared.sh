#!/bin/sh
# The shared options (lib/cli) give the same answer in every program that
# takes them: the same message after the program's name and the same exit
# status for -j 0, -j x, --seed x, --device bogus, --device cuda:N without
# that GPU (4, "requested device unavailable", before any input is read),
# the same --version line, -q and -v accepted everywhere, and the same -v
# line saying the device and the threads (whose default is the same
# everywhere); standard input at a terminal (script(1) gives one) gets one
# hint from the programs that read text and one refusal (status 2) from those
# that read binary streams. The test fails when one program diverges.
. tests/shell/lib.sh

ALL="mjai-parse hydra-encode hydra-augment hydra-hand hydra-fit hydra-sp hydra-eval hydra-bot
	hydra-review hydra-export"
THREADS="hydra-fit hydra-sp hydra-eval hydra-bot hydra-review hydra-export"
DEVICE="hydra-fit hydra-sp hydra-eval hydra-bot hydra-review"
SEED64="hydra-augment hydra-bot hydra-eval hydra-fit"

# args PROG: the least each program needs to get past its own checks, so
# that only the option under test can fail (nothing is read: an explicit
# device is checked first)
args() {
	case $1 in
	hydra-fit) echo "--steps 1 -o $T/fit /dev/null" ;;
	hydra-sp) echo "--games 1 --no-samples" ;;
	hydra-eval) echo "--challenger random --opponent random --seeds 1" ;;
	hydra-bot) echo "random" ;;
	hydra-review) echo "--model random /dev/null" ;;
	hydra-export) echo "-o $T/x.onnx $T/none.h5" ;;
	*) echo "" ;;
	esac
}

# same NAME PROGS -- OPTIONS...: every program in PROGS, run with OPTIONS and
# its args, exits with the same status and writes the same standard error
# (and output) once its name is replaced by PROG; sets $rc to that status
same() {
	name=$1; shift
	progs=$1; shift
	first=""
	for p in $progs; do
		# shellcheck disable=SC2046
		"$BIN/$p" "$@" $(args "$p") </dev/null >"$T/out" 2>"$T/err"
		rc=$?
		{ echo "exit $rc"; sed "s/$p/PROG/g" "$T/out" "$T/err"; } > "$T/got.$p"
		if [ -z "$first" ]; then
			first=$p
		elif ! cmp -s "$T/got.$first" "$T/got.$p"; then
			echo "$name: $first and $p differ:" >&2
			diff "$T/got.$first" "$T/got.$p" >&2
			fail "$name: $p answers differently from $first"
		fi
	done
	rc=$(sed -n 1p "$T/got.$first" | cut -d' ' -f2)
}
# answer: the last answer of same (without its exit line)
answer() { sed 1d "$T/got.$first"; }

same "-j 0" "$THREADS" -j 0
[ "$rc" = 2 ] || fail "-j 0: exit $rc"
[ "$(answer)" = "PROG: bad --threads '0': 1 to 1024
PROG: try 'PROG --help'" ] || { answer >&2; fail "-j 0: message"; }

same "-j x" "$THREADS" -j x
[ "$rc" = 2 ] || fail "-j x: exit $rc"
answer | grep -qx "PROG: bad --threads 'x': 1 to 1024" || fail "-j x: message"
same "--threads=2000" "$THREADS" --threads=2000
[ "$rc" = 2 ] || fail "--threads=2000: exit $rc"

same "--device bogus" "$DEVICE" --device bogus
[ "$rc" = 2 ] || fail "--device bogus: exit $rc"
[ "$(answer)" = "PROG: bad --device 'bogus': auto, cpu, cuda or cuda:N (N from 0 to 1023)
PROG: try 'PROG --help'" ] || { answer >&2; fail "--device bogus: message"; }
same "--device cuda:x" "$DEVICE" --device cuda:x
[ "$rc" = 2 ] || fail "--device cuda:x: exit $rc"

# a GPU that is not there: 4 and one line, before anything is read or made
ngpu=0
command -v nvidia-smi >/dev/null 2>&1 && ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
for dev in cuda:1023 cuda:1; do
	[ "$dev" = cuda:1 ] && [ "$ngpu" -ge 2 ] && continue
	same "--device $dev" "$DEVICE" --device $dev
	[ "$rc" = 4 ] || { answer >&2; fail "--device $dev: exit $rc, expected 4"; }
	answer | grep -Eqx "PROG: requested device unavailable: --device $dev: .+" ||
		{ answer >&2; fail "--device $dev: message"; }
	[ "$(answer | wc -l)" -eq 1 ] || { answer >&2; fail "--device $dev: one line"; }
	[ ! -e "$T/fit" ] || fail "--device $dev: hydra-fit made its output directory"
done

same "--seed x" "$SEED64" --seed x
[ "$rc" = 2 ] || fail "--seed x: exit $rc"
[ "$(answer)" = "PROG: bad --seed 'x': 0 to 2^64-1, decimal or 0x hex
PROG: try 'PROG --help'" ] || { answer >&2; fail "--seed x: message"; }
# hydra-sp's seeds go into JSON logs as signed numbers: the same words, 2^63
"$BIN/hydra-sp" --seed x --games 1 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -qx "hydra-sp: bad --seed 'x': 0 to 2^63-1, decimal or 0x hex" "$T/err" ||
	{ cat "$T/err" >&2; fail "hydra-sp --seed x"; }

# --version alike; -q and -v accepted by every program, in both spellings
same "--version" "$ALL" --version
[ "$rc" = 0 ] || fail "--version: exit $rc"
answer | grep -Eqx 'PROG \(hydra-c\) [0-9][^ ]*' || { answer >&2; fail "--version line"; }
for qv in "-q" "-v" "--quiet --verbose" "-v -v -q"; do
	# shellcheck disable=SC2086
	same "$qv --version" "$ALL" $qv --version
	[ "$rc" = 0 ] || fail "$qv: exit $rc"
	answer | grep -Eqx 'PROG \(hydra-c\) [0-9][^ ]*' || fail "$qv --version"
done
for p in $ALL; do
	"$BIN/$p" --help > "$T/help" || fail "$p --help"
	grep -Eq '^ +-q, --quiet ' "$T/help" && grep -Eq '^ +-v, --verbose ' "$T/help" ||
		fail "$p --help lists no -q, --quiet or no -v, --verbose"
	page="$TOP/man/$p.1"
	grep -q '^\.BR \\-q ", " \\-\\-quiet' "$page" && grep -q '^\.BR \\-v ", " \\-\\-verbose' "$page" ||
		fail "man/$p.1 has no -q, --quiet or no -v, --verbose"
done

# -v: one line of the device and the threads, the same everywhere, and the
# same default thread count (the usable CPUs) in every program
vline() { # PROG OPTIONS...: the -v line of PROG
	p=$1; shift
	# shellcheck disable=SC2046
	"$BIN/$p" -v "$@" $(args "$p") </dev/null >/dev/null 2>"$T/err"
	grep "^$p: device " "$T/err" | sed "s/^$p: //"
}
ref=""
for p in $THREADS; do
	dev="--device cpu"
	[ "$p" = hydra-export ] && dev=""
	# shellcheck disable=SC2086
	got=$(vline "$p" $dev -j 3)
	echo "$got" | grep -Eqx 'device cpu, 3 threads of [0-9]+ usable CPUs?, cpu path (openblas|onednn)[^,]*' ||
		{ cat "$T/err" >&2; fail "$p -v -j 3: '$got'"; }
	# shellcheck disable=SC2086
	def=$(vline "$p" $dev)
	echo "$def" | grep -Eqx 'device cpu, ([0-9]+) threads? of \1 usable CPUs?, cpu path (openblas|onednn)[^,]*' ||
		{ cat "$T/err" >&2; fail "$p -v: the default threads are not the usable CPUs: '$def'"; }
	[ -z "$ref" ] && ref=$def
	[ "$def" = "$ref" ] || fail "$p -v: '$def', expected '$ref'"
done
# auto on a machine without a usable GPU says why the CPU
if ! "$BIN/hydra-fit" --device cuda --steps 1 -o "$T/fit" /dev/null 2>/dev/null; then
	for p in $DEVICE; do
		got=$(vline "$p" --device auto -j 1)
		echo "$got" | grep -Eqx 'device cpu \(auto: no usable GPU: .+\), 1 thread of [0-9]+ usable CPUs?, cpu path (openblas|onednn)[^,]*' ||
			{ cat "$T/err" >&2; fail "$p -v --device auto: '$got'"; }
	done
fi
# --cpu-path (nn/cpupath.h): the same refusal everywhere, and the -v line
# names the engine asked for
for p in $DEVICE; do
	# shellcheck disable=SC2046
	"$BIN/$p" --cpu-path mkl $(args "$p") </dev/null >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "^$p: --cpu-path: unknown cpu path 'mkl': openblas, onednn, onednn-bf16 or auto" "$T/err" ||
		{ cat "$T/err" >&2; fail "$p --cpu-path mkl: exit $rc"; }
	got=$(vline "$p" --device cpu --cpu-path openblas -j 1)
	echo "$got" | grep -Eq ', cpu path openblas' || fail "$p --cpu-path openblas -v: '$got'"
	got=$(HYDRA_CPU_PATH=openblas vline "$p" --device cpu -j 1)
	echo "$got" | grep -Eq ', cpu path openblas' || fail "$p HYDRA_CPU_PATH=openblas -v: '$got'"
	# the oneDNN paths name their inference precision (a build with oneDNN)
	if "$BIN/$p" --cpu-path onednn --help >/dev/null 2>&1; then
		got=$(vline "$p" --device cpu --cpu-path onednn -j 1)
		echo "$got" | grep -Eq ', cpu path onednn [0-9.]+ fp32 inference on [a-z0-9_]+$' ||
			fail "$p --cpu-path onednn -v: '$got'"
		got=$(HYDRA_CPU_PATH=onednn-bf16 vline "$p" --device cpu -j 1)
		echo "$got" | grep -Eq ', cpu path onednn [0-9.]+ bf16 inference on [a-z0-9_]+$' ||
			fail "$p HYDRA_CPU_PATH=onednn-bf16 -v: '$got'"
	fi
done

# standard input at a terminal: a hint (text), a refusal (binary streams)
if command -v script >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1; then
	tty_run() { # NAME COMMAND: COMMAND at a terminal whose input ends at once
		(sleep 1; printf '\004') | timeout 20 script -qec "$2" /dev/null 2>&1 | tr -d '\r' |
			sed "s/$1/PROG/g" > "$T/tty.$1"
	}
	# (the six terminals at once: each waits a second before its end of input)
	text_cmds() {
		cat <<EOF
mjai-parse --json
hydra-encode -o $T/e.bin
hydra-hand --batch
hydra-bot random
hydra-review --model random -
hydra-fit --mode grp -o $T/grp
EOF
	}
	text_cmds | { while read -r cmd; do tty_run "${cmd%% *}" "$BIN/$cmd" & done; wait; }
	text_cmds | while read -r cmd; do
		p=${cmd%% *}
		[ "$(grep -c 'standard input' "$T/tty.$p")" -eq 1 ] &&
		grep -Eqx 'PROG: reading [a-z ]+ from standard input \(a terminal\); give files or a pipe, or see --help' \
			"$T/tty.$p" || { cat "$T/tty.$p" >&2; fail "$p at a terminal: no hint, or not once"; }
	done || exit 1
	first=""
	for cmd in "hydra-fit --device cpu --steps 1 -o $T/fit" "hydra-augment -o $T/a.bin" \
		"hydra-eval --model $T/none.h5 --data -" "hydra-export --reference -o $T/r.json $T/none.h5"; do
		p=${cmd%% *}
		timeout 20 script -qec "$BIN/$cmd; echo exit \$?" /dev/null </dev/null 2>&1 | tr -d '\r' |
			sed "s/$p/PROG/g" > "$T/tty.$p"
		[ -z "$first" ] && first=$p
		cmp -s "$T/tty.$first" "$T/tty.$p" ||
			{ diff "$T/tty.$first" "$T/tty.$p" >&2; fail "$p at a terminal: not as $first"; }
	done
	[ "$(cat "$T/tty.$first")" = "PROG: no input: standard input is a terminal
hint: give sample streams or shards as files or through a pipe
exit 2" ] || { cat "$T/tty.$first" >&2; fail "binary input at a terminal: message"; }
fi
exit 0
