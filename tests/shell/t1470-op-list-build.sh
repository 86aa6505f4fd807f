#!/bin/sh
# tier: full
# A new op is one row of lib/nn/ops.h (issue 55): a test build whose list has
# one more row (HY_NN_OPS_EXTRA, the hook ops.h keeps for this) gets the
# member in the backend table, a profiler wrapper and a check_gpu case — all
# three from the row alone, as check_gpu --list shows — and the CUDA table
# then asks for the op's kernel (cu_NAME) by name. The fast twin is t0056.
. tests/shell/lib.sh
need_cmd make
B=$T/build-op
# the row, in a header every file of the test build reads first (-include)
cat > "$T/extra.h" <<'ROW'
#define HY_NN_OPS_EXTRA(X) \
	X(V, void, probe_op, (const hy_nn_ctx *c, size_t n, float *h), (c, n, h), "probe_op")
ROW
san=""
grep -q fsanitize "${HY_BUILD:-$TOP/build}/.flags" 2>/dev/null && san="SANITIZE=1"
make -C "$TOP" --no-print-directory -j2 NO_CUDA=1 $san BUILD="$B" CFLAGS="-include $T/extra.h" \
	"$B/tests/check_gpu" > "$T/make.out" 2>&1 || { tail -30 "$T/make.out" >&2; fail "the test build with one more op failed"; }
"$B/tests/check_gpu" --list > "$T/list" || fail "check_gpu --list of the test build"
line=$(grep '^probe_op ' "$T/list") || { cat "$T/list" >&2; fail "the new op is not in check_gpu's table"; }
echo "$line" | grep -q 'prof=yes' || fail "the profiler does not wrap the new op: $line"
echo "$line" | grep -q 'check=probe_op' || fail "check_gpu has no case for the new op: $line"
echo "$line" | grep -q 'cpu=no' || fail "the CPU fills a device op it has no reference for: $line"
[ "$(wc -l < "$T/list")" -eq $(( $("${HY_BUILD:-$TOP/build}/tests/check_gpu" --list | wc -l) + 1 )) ] ||
	fail "the test build's list is not the list plus one"
# the CUDA table expands the row too: ctx.cu compiled with it refers to the
# op's kernel cu_probe_op (declared by internal.h's expansion), which the
# link then asks for
NV=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null) || true
if [ -n "$NV" ] && grep -q HY_HAVE_CUDA "${HY_BUILD:-$TOP/build}/.flags" 2>/dev/null; then
	"$NV" -std=c++17 -I"$TOP/lib" -DHY_HAVE_CUDA=1 --pre-include "$T/extra.h" \
		-c "$TOP/lib/nn/cuda/ctx.cu" -o "$T/ctx.o" > "$T/nvcc.out" 2>&1 ||
		{ cat "$T/nvcc.out" >&2; fail "ctx.cu with one more row did not compile"; }
	nm -C "$T/ctx.o" | grep -q ' U cu_probe_op(' ||
		fail "the CUDA table of the test build does not refer to cu_probe_op"
fi
exit 0
