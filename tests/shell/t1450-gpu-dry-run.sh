#!/bin/sh
# The GPU acceptance run planned on the CPU (issue 56): --dry-run prints
# every step with its time limit and runs nothing (no GPU, no build
# needed); the lease group, what one lent call of 8 minutes runs, has
# limits that add up to its budget or less, both kernel paths' training
# and check_gpu among them; the full run's limits are bounded by its own
# budget (each step gets at most what is left).
. tests/shell/lib.sh
A="$TOP/tests/gpu/acceptance.sh"
ACCEPT=lease BUILD="$T/nothing" sh "$A" --dry-run > "$T/lease" 2>&1 || { cat "$T/lease" >&2; fail "--dry-run: exit $?"; }
grep -q "budget 480 s" "$T/lease" || fail "the lease budget is not 8 minutes"
total=$(sed -n 's/.*limits add up to \([0-9]*\) s against a budget of \([0-9]*\) s.*/\1 \2/p' "$T/lease")
[ -n "$total" ] || fail "no total: $(cat "$T/lease")"
set -- $total
[ "$1" -le "$2" ] || fail "the lease's limits add up to $1 s, over its $2 s budget"
for want in "check_gpu" "train full bf16 batch 2048, kernels v1" "train full bf16 batch 2048, kernels v2" \
	"train full bf16 batch 2048, kernels v3" "infer full bf16 batch 1024, kernels v3" \
	"infer full bf16 batch 1, kernels v2" "ceilings"; do
	grep -q "^ *[0-9]* s  .*$want" "$T/lease" || fail "the lease has no step '$want'"
done
[ ! -e "$T/nothing" ] || fail "--dry-run made $T/nothing"
# the full run: planned steps, and the budget that bounds them
BUILD="$T/nothing" sh "$A" --dry-run > "$T/all" 2>&1 || fail "--dry-run of every group"
grep -q "budget 3600 s" "$T/all" || fail "the full run's budget"
BUDGET=100 ACCEPT=core BUILD="$T/nothing" sh "$A" --dry-run | grep -q "budget of 100 s" || fail "BUDGET ignored"
