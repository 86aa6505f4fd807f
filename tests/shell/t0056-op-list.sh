#!/bin/sh
# tier: fast
# The one list of the network's ops (lib/nn/ops.h, issue 55): every row is a
# member of the backend table that the CPU's table fills (its core ops), the
# CUDA backend's fills (all of them, where it is built), the profiler wraps,
# and check_gpu checks by the comparisons the row names — as check_gpu --list
# prints them from the built tables. The full tier's twin (t1470) adds an op
# row in a test build and sees it in all three.
. tests/shell/lib.sh
CG=${HY_BUILD:-$TOP/build}/tests/check_gpu
[ -x "$CG" ] || fail "no $CG (make test-run builds it)"
"$CG" --list > "$T/list" || fail "check_gpu --list failed"
# the rows of the list, in order: core then device
sed -n '/^#define HY_NN_OPS_CORE(X)/,/^$/p' "$TOP/lib/nn/ops.h" |
	sed -n 's/^[[:space:]]*X([VR], [a-z]*, \([a-z0-9_]*\),.*/\1/p' > "$T/core"
sed -n '/^#define HY_NN_OPS_DEVICE(X)/,/^$/p' "$TOP/lib/nn/ops.h" |
	sed -n 's/^[[:space:]]*X([VR], [a-z]*, \([a-z0-9_]*\),.*/\1/p' > "$T/device"
[ "$(wc -l < "$T/core")" -ge 20 ] || fail "fewer than 20 core ops read from ops.h"
[ "$(wc -l < "$T/device")" -ge 4 ] || fail "fewer than 4 device ops read from ops.h"
cat "$T/core" "$T/device" > "$T/all"
awk '{print $1}' "$T/list" > "$T/listed"
cmp -s "$T/all" "$T/listed" || { diff "$T/all" "$T/listed" >&2; fail "check_gpu --list is not ops.h's rows in order"; }
cuda=$(grep -c 'cuda=-' "$T/list")
while read -r op; do
	line=$(grep "^$op " "$T/list")
	echo "$line" | grep -q 'prof=yes' || fail "the profiler does not wrap $op: $line"
	echo "$line" | grep -q 'check=.' || fail "check_gpu has no comparison for $op: $line"
	[ "$cuda" -gt 0 ] || echo "$line" | grep -q 'cuda=yes' || fail "the CUDA table lacks $op: $line"
done < "$T/all"
while read -r op; do
	grep "^$op " "$T/list" | grep -q 'cpu=yes' || fail "the CPU table lacks the core op $op"
done < "$T/core"
while read -r op; do
	grep "^$op " "$T/list" | grep -q 'cpu=no' || fail "the CPU table fills the device op $op"
done < "$T/device"
# nothing outside the list is spelled per op any more: the tables are expansions
grep -q 'HY_NN_OPS_CORE(CPU_ENTRY)' "$TOP/lib/nn/cpu.c" || fail "cpu.c's table is not the list's expansion"
grep -q 'HY_NN_OPS(CU_ENTRY)' "$TOP/lib/nn/cuda/ctx.cu" || fail "ctx.cu's table is not the list's expansion"
grep -q 'HY_NN_OPS(CU_DECL)' "$TOP/lib/nn/cuda/internal.h" || fail "internal.h's entries are not the list's expansion"
grep -q 'HY_NN_OPS(HY_NN_OP_MEMBER)' "$TOP/lib/nn/backend.h" || fail "backend.h's members are not the list's expansion"
if grep -n 'FWD(gemm\|FWD(conv3_fwd' "$TOP/lib/nn/prof.c" >&2; then fail "prof.c spells an op's signature"; fi
exit 0
