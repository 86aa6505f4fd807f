# Sourced by program tests. Provides $BIN, $DATA (shared logs), a scratch
# dir $T (removed on exit) and assertion helpers that exit 1 with a message.
BIN=${HY_BIN:?run through tests/run.sh}
SHARED=${HY_SHARED:-../shared}
DATA="$SHARED/data"
TOP=${HY_TOP:-$(pwd)}
GOLDEN="$TOP/tests/golden"
T=$(mktemp -d "${TMPDIR:-/tmp}/hydra-t.XXXXXX")
trap 'rm -rf "$T"' EXIT
export LC_ALL=C

# The tier of this run (tests/run.sh; README.md, "Tests"): fast, what `make
# check` runs, or full, what `make check-full` and CI run. A test that runs in
# both sizes itself by it: tier_size FAST FULL prints the number for this
# tier; in_full is true in the full tier (the assertions a test keeps for it).
HY_TIER=${HY_TIER:-fast}
case $HY_TIER in fast|full) ;; *) echo "FAIL: HY_TIER is fast or full, not '$HY_TIER'" >&2; exit 1 ;; esac
tier_size() { if [ "$HY_TIER" = full ]; then echo "$2"; else echo "$1"; fi; }
in_full() { [ "$HY_TIER" = full ]; }

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
# need_data [WHAT]: skip unless the shared real game logs are there, saying
# what is missing and where it is expected. They are public Tenhou and mjai
# logs kept beside the repository, never in it (README.md, "Test data").
need_data() {
	[ -d "$DATA/logs" ] || skip "skipped: needs ${1:-the real game logs} under $DATA/logs" \
		"(the shared test data: ../shared/data beside the repository, or" \
		"make check SHARED=DIR; README.md, \"Test data\")"
}
have_data() { [ -d "$DATA/logs" ]; }

# gen_logs [N [SEED]]: N self-play hanchan (default 4, seed 1; the rule
# teacher against random players, so calls, kans and draws of every kind
# come up) made once per test in $GEN: gzip'd mjai logs in $GEN/mjai/,
# and, when mjai-parse has the writers, the same games as Tenhou mjlog XML
# in $GEN/mjlog/*.mjlog and tenhou.net/6 JSON in $GEN/tenhou6/*.json.
# Tests use them where they need games but not real ones.
GEN="$T/gen"
gen_logs() {
	[ -d "$GEN/mjai" ] && return 0
	"$BIN/hydra-sp" --games "${1:-4}" --seed "${2:-1}" --rotate rulebot,random,rulebot,baseline \
		--no-samples --log-dir "$GEN/mjai" 2>"$T/gen.err" ||
		{ cat "$T/gen.err" >&2; fail "hydra-sp could not make the test games"; }
	"$BIN/mjai-parse" --help 2>/dev/null | grep -q -- '--format' || return 0
	mkdir -p "$GEN/mjlog" "$GEN/tenhou6"
	for f in "$GEN"/mjai/*.json.gz; do
		b=$(basename "$f" .json.gz)
		"$BIN/mjai-parse" --format mjlog -o "$GEN/mjlog/$b.mjlog" "$f" 2>"$T/gen.err" &&
		"$BIN/mjai-parse" --format tenhou6 -o "$GEN/tenhou6/$b.json" "$f" 2>"$T/gen.err" ||
			{ cat "$T/gen.err" >&2; fail "mjai-parse could not convert $f"; }
	done
}
# own_pids PATTERN: the processes whose command line matches PATTERN (as
# pgrep -f) and that run in this test's scratch directory $T or below it.
# Tests run side by side (tests/run.sh -j): a program of another test may
# match the same pattern, but never runs in this test's $T.
own_pids() {
	real=$(cd "$T" && pwd -P)
	for p in $(pgrep -f -- "$1"); do
		case $(readlink "/proc/$p/cwd" 2>/dev/null) in "$real"|"$real"/*) echo "$p" ;; esac
	done
}
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "$1 not installed (skipped)"; }

# expect_exit CODE cmd...: runs cmd with stdout to $T/out, stderr to $T/err.
expect_exit() {
	want=$1; shift
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" -eq "$want" ] || { cat "$T/err" >&2; fail "'$*' exited $got, expected $want"; }
}
# expect_err PATTERN: stderr of the last expect_exit matches (grep -E).
expect_err() {
	grep -Eq -- "$1" "$T/err" || { cat "$T/err" >&2; fail "stderr does not match '$1'"; }
}
same_file() { cmp -s "$1" "$2" || fail "$1 and $2 differ"; }

# gen_tenhou DIR [N]: DIR holds the N games of gen_logs (default 6) as Tenhou
# logs, each as mjlog XML (NAME.xml) and tenhou.net/6 JSON (NAME.json): the
# shape of the real mjlog2json pairs, made by the project.
gen_tenhou() {
	gen_logs "${2:-6}"
	[ -d "$GEN/mjlog" ] || fail "mjai-parse has no Tenhou writers (--format)"
	mkdir -p "$1"
	for f in "$GEN"/mjlog/*.mjlog; do
		b=$(basename "$f" .mjlog)
		cp "$f" "$1/$b.xml" && cp "$GEN/tenhou6/$b.json" "$1/$b.json" || fail "gen_tenhou"
	done
}
