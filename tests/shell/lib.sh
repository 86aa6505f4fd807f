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

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
need_data() { [ -d "$DATA/logs" ] || skip "shared data not found at $DATA (skipped)"; }
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
