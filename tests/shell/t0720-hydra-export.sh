#!/bin/sh
# hydra-export: --help and the man page agree, usage errors; a tiny model
# trained a few steps on real samples (shared logs through mjai-parse |
# hydra-encode, else games of hydra-sp) is exported as ONNX; ONNX's checker
# (Debian python3-onnx, /usr/bin/python3) accepts it, and onnxruntime-node
# (npm, installed once into $HY_BUILD/onnx-node) gives hydra's own forward
# outputs (hydra-export --reference) on 100 observations within 1e-4
# (tests/shell/onnx_check.js); the reference of another checkpoint does
# not match, so the comparison can fail. Parts whose tools are absent are
# skipped with a message (exit 77 after the rest passed).
. tests/shell/lib.sh
X="$BIN/hydra-export"
PY=/usr/bin/python3
ORT_VERSION=1.30.0
ORT_DIR="${HY_BUILD:-$TOP/build}/onnx-node"

# --help, man page, -V
expect_exit 0 "$X" --help
sed 's/\\-/-/g' "$TOP/man/hydra-export.1" > "$T/man.txt"
grep -q '^usage: hydra-export \[options\] CKPT$' "$T/out" || fail "--help usage line"
grep -A1 '^\.B hydra-export$' "$TOP/man/hydra-export.1" | grep -q 'options.*CKPT' ||
	fail "man SYNOPSIS"
for o in output reference weights limit threads help version; do
	grep -q -- "--$o" "$T/out" || fail "--help lacks --$o"
	grep -q -- "--$o" "$T/man.txt" || fail "man page lacks --$o"
done
for name in obs legal policy_logits value grp_logits tenpai_logits danger_logits; do
	grep -q "$name" "$T/out" || fail "--help does not name $name"
	grep -q "$name" "$T/man.txt" || fail "man page does not name $name"
	grep -q "\`$name\`" "$TOP/ARCHITECTURE.md" || fail "ARCHITECTURE.md does not name $name"
done
expect_exit 0 "$X" -V
grep -q '^hydra-export (hydra-c) ' "$T/out" || fail "-V"

# usage errors
expect_exit 2 "$X"
expect_err "no checkpoint given"
expect_exit 2 "$X" --no-such-option
expect_err "try 'hydra-export --help'"
expect_exit 2 "$X" --limit 5 x.h5
expect_err "--limit is an option of --reference"
expect_exit 2 "$X" --reference --limit 0 x.h5
expect_exit 2 "$X" a.h5 b.h5
expect_err "samples go with --reference"
expect_exit 2 "$X" --weights x.h5
expect_err "give -o FILE.h5"
expect_exit 2 "$X" --weights --reference -o y.h5 x.h5
expect_exit 1 "$X" "$T/missing.h5" -o "$T/m.onnx"
[ ! -e "$T/m.onnx" ] || fail "a failed export left $T/m.onnx"

# samples: real observations, else self-play ones
if [ -d "$DATA/logs/tsubakisakura_mjlog2json" ] && [ -x "$BIN/mjai-parse" ] && [ -x "$BIN/hydra-encode" ]; then
	"$BIN/mjai-parse" -k "$DATA/logs/tsubakisakura_mjlog2json" 2>"$T/parse.err" |
		"$BIN/hydra-encode" -k >"$T/s.bin" 2>"$T/enc.err" ||
		{ cat "$T/parse.err" "$T/enc.err" >&2; fail "mjai-parse | hydra-encode"; }
	echo "samples: the shared logs (tsubakisakura_mjlog2json)"
else
	"$BIN/hydra-sp" --games 1 --tables 1 >"$T/s.bin" 2>"$T/sp.err" ||
		{ cat "$T/sp.err" >&2; fail "hydra-sp"; }
	echo "samples: one hydra-sp game (shared logs not found at $DATA/logs)"
fi
"$BIN/hydra-fit" -q --arch tiny --steps 3 --batch 32 --threads 1 --save-every 2 \
	--out "$T/run" "$T/s.bin" 2>"$T/fit.err" || { cat "$T/fit.err" >&2; fail "hydra-fit"; }
CK2="$T/run/ckpt-00000002.h5" CK3="$T/run/ckpt-00000003.h5"
[ -f "$CK2" ] && [ -f "$CK3" ] || fail "checkpoints missing"

# the reference: 100 lines, the documented keys and lengths
expect_exit 0 "$X" --reference "$CK3" "$T/s.bin" -o "$T/ref.jsonl"
[ "$(wc -l < "$T/ref.jsonl")" -eq 100 ] || fail "--reference wrote $(wc -l < "$T/ref.jsonl") lines, not 100"
"$X" --reference --limit 3 "$CK3" < "$T/s.bin" > "$T/ref3.jsonl" || fail "--reference from stdin"
# the same inputs (the outputs may differ in the last bits: another batch size
# sums in another order)
head -n 3 "$T/ref.jsonl" | sed 's/,"policy_logits".*//' > "$T/in100"
sed 's/,"policy_logits".*//' "$T/ref3.jsonl" | cmp -s - "$T/in100" ||
	fail "--limit 3 does not give the first 3 samples"
expect_exit 3 "$X" --reference "$CK3" "$CK2"
expect_err "not a sample shard"

# --weights: the weights alone, the same outputs, a run starts from it and
# none resumes it
expect_exit 0 "$X" --weights -o "$T/w.h5" "$CK3"
[ "$(wc -c < "$T/w.h5")" -lt "$(($(wc -c < "$CK3") / 2))" ] || fail "--weights is not smaller"
h5dump -a weights_only "$T/w.h5" 2>/dev/null | grep -q '(0): 1' || fail "no weights_only attribute"
h5dump -a obs_version "$T/w.h5" > "$T/ov.w" 2>/dev/null && h5dump -a obs_version "$CK3" > "$T/ov.c" 2>/dev/null
sed 1d "$T/ov.w" | cmp -s - "$(sed 1d "$T/ov.c" > "$T/ov.c2"; echo "$T/ov.c2")" || fail "obs_version not copied"
! h5ls -r "$T/w.h5" | grep -q adam || fail "--weights kept the moments"
expect_exit 0 "$X" --reference --limit 5 "$CK3" "$T/s.bin"
mv "$T/out" "$T/ref5.jsonl"
expect_exit 0 "$X" --reference --limit 5 "$T/w.h5" "$T/s.bin"
cmp -s "$T/ref5.jsonl" "$T/out" || fail "--weights changed the outputs"
expect_exit 0 "$BIN/hydra-fit" -q --init "$T/w.h5" --steps 1 --batch 32 --threads 1 --out "$T/run2" "$T/s.bin"
expect_exit 3 "$BIN/hydra-fit" -q --resume "$T/w.h5" --steps 5 --batch 32 --threads 1 --out "$T/run3" "$T/s.bin"
expect_err "weights alone"

# the model, or a clear message where this build has no exporter
"$X" "$CK3" -o "$T/m.onnx" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'has no ONNX exporter' "$T/err"; then
	[ $rc -eq 1 ] || fail "a build without the exporter exits $rc, not 1"
	skip "hydra-export: this build has no ONNX exporter (no protoc-c, libprotobuf-c or onnx.proto: make deps); ONNX checks skipped"
fi
[ $rc -eq 0 ] || { cat "$T/err" >&2; fail "hydra-export exited $rc"; }
[ -s "$T/m.onnx" ] || fail "empty ONNX file"
ls "$T" | grep -q 'tmp-' && fail "temporary file left"
"$X" "$CK3" > "$T/m-stdout.onnx" || fail "export to standard output"
same_file "$T/m.onnx" "$T/m-stdout.onnx"
"$X" "$CK2" -o "$T/m2.onnx" || fail "export of step 2"

skipped=""
# ONNX's checker, and what the graph declares
if "$PY" -c 'import onnx' 2>/dev/null; then
	"$PY" - "$T/m.onnx" <<'PYEOF' || fail "onnx.checker"
import sys, onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
assert m.ir_version == 8 and [(o.domain, o.version) for o in m.opset_import] == [("", 17)]
def dims(v):
    return [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
ins = {v.name: (v.type.tensor_type.elem_type, dims(v)) for v in m.graph.input}
outs = {v.name: (v.type.tensor_type.elem_type, dims(v)) for v in m.graph.output}
F, B = onnx.TensorProto.FLOAT, onnx.TensorProto.BOOL
assert ins == {"obs": (F, ["N", 85, 34]), "legal": (B, ["N", 46])}, ins
assert outs == {"policy_logits": (F, ["N", 46]), "value": (F, ["N"]),
    "grp_logits": (F, ["N", 24]), "tenpai_logits": (F, ["N", 3]),
    "danger_logits": (F, ["N", 3, 34])}, outs
names = {t.name for t in m.graph.initializer}
assert "blocks/01/conv2/weight" in names and "policy/fc/weight" in names
# the observation version the obs input must hold (lib/samples/sample.h)
assert {p.key: p.value for p in m.metadata_props} == {"obs_version": "4"}, m.metadata_props
print("onnx %s checker: ok, %d nodes, %d initializers" % (onnx.__version__, len(m.graph.node), len(m.graph.initializer)))
PYEOF
else
	skipped="$skipped; ONNX's checker ($PY cannot import onnx: apt-get install python3-onnx)"
fi

# onnxruntime-node: installed once into $ORT_DIR (its install script would
# download GPU libraries: --ignore-scripts keeps the CPU build it ships)
if ! command -v node >/dev/null 2>&1; then
	skipped="$skipped; onnxruntime (node not installed)"
elif [ ! -d "$ORT_DIR/node_modules/onnxruntime-node" ] && ! command -v npm >/dev/null 2>&1; then
	skipped="$skipped; onnxruntime (npm not installed)"
elif [ ! -d "$ORT_DIR/node_modules/onnxruntime-node" ] &&
	! timeout 300 npm install --prefix "$ORT_DIR" --no-audit --no-fund --ignore-scripts \
		--fetch-retries 1 --fetch-timeout 60000 "onnxruntime-node@$ORT_VERSION" \
		>"$T/npm.log" 2>&1; then
	tail -n 5 "$T/npm.log"
	rm -rf "$ORT_DIR"
	skipped="$skipped; onnxruntime (npm install onnxruntime-node@$ORT_VERSION failed: no registry?)"
else
	NODE_PATH="$ORT_DIR/node_modules" node "$TOP/tests/shell/onnx_check.js" "$T/m.onnx" \
		"$T/ref.jsonl" || fail "onnxruntime differs from hydra's forward pass"
	# the comparison can fail: step 2's outputs against step 3's model
	"$X" --reference "$CK2" "$T/s.bin" -o "$T/ref2.jsonl" || fail "--reference of step 2"
	NODE_PATH="$ORT_DIR/node_modules" node "$TOP/tests/shell/onnx_check.js" "$T/m.onnx" \
		"$T/ref2.jsonl" > "$T/neg.out" 2>&1 && fail "step 2's reference matched step 3's model"
	grep -q 'values out of tolerance' "$T/neg.out" || { cat "$T/neg.out"; fail "negative check"; }
	NODE_PATH="$ORT_DIR/node_modules" node "$TOP/tests/shell/onnx_check.js" "$T/m2.onnx" \
		"$T/ref2.jsonl" >/dev/null || fail "step 2's model against its reference"
fi
[ -z "$skipped" ] || skip "skipped${skipped#;}"
exit 0
