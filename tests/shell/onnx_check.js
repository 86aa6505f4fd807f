// node onnx_check.js MODEL.onnx REF.jsonl: runs the ONNX model of
// hydra-export in onnxruntime-node on the inputs of hydra-export --reference
// and compares every output with hydra's own forward pass: the whole set as
// one batch, then batches of 1 and 7 (the batch dimension is dynamic).
// Tolerance |onnx - hydra| <= 1e-4 * max(1, |hydra|): both sides compute in
// fp32, in other summation orders (OpenBLAS's blocked GEMMs against ORT's,
// the GroupNorm variance as InstanceNormalization computes it) and with other
// transcendental functions (our one-exponential Mish against Softplus and
// Tanh), which differ by about 1e-6 relative; 1e-4 leaves room and still
// catches any wrong layout, op or weight. An illegal action must come out as
// -Infinity (null in the reference). Exit 0 pass, 1 fail.
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

const [model, refPath] = process.argv.slice(2);
const rows = fs.readFileSync(refPath, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
const names = ['policy_logits', 'value', 'grp_logits', 'tenpai_logits', 'danger_logits'];
const flat = (r, k) => (Array.isArray(r[k]) ? r[k] : [r[k]]);

function inputs(set) {
	const n = set.length;
	const obs = new Float32Array(n * 85 * 34), legal = new Uint8Array(n * 46);
	set.forEach((r, i) => {
		if (r.obs.length !== 85 * 34 || r.legal.length !== 46) throw new Error('bad reference row');
		obs.set(r.obs, i * 85 * 34);
		legal.set(r.legal, i * 46);
	});
	return {
		obs: new ort.Tensor('float32', obs, [n, 85, 34]),
		legal: new ort.Tensor('bool', legal, [n, 46]),
	};
}

async function main() {
	const sess = await ort.InferenceSession.create(model);
	const want = ['obs', 'legal'];
	if (JSON.stringify(sess.inputNames) !== JSON.stringify(want)) throw new Error(`inputs ${sess.inputNames}, expected ${want}`);
	if (JSON.stringify(sess.outputNames) !== JSON.stringify(names)) throw new Error(`outputs ${sess.outputNames}, expected ${names}`);
	let bad = 0;
	const worst = {};
	async function check(set, off, label) {
		const out = await sess.run(inputs(set));
		for (const k of names) {
			const per = flat(set[0], k).length, got = out[k].data;
			if (got.length !== set.length * per || out[k].dims[0] !== set.length) {
				console.log(`FAIL: ${label}: ${k} has dims [${out[k].dims}]`);
				bad++;
				continue;
			}
			set.forEach((r, i) => flat(r, k).forEach((x, j) => {
				const y = got[i * per + j];
				const ok = x === null ? y === -Infinity : Math.abs(y - x) <= 1e-4 * Math.max(1, Math.abs(x));
				if (x !== null) worst[k] = Math.max(worst[k] || 0, Math.abs(y - x));
				if (!ok && bad++ < 10) console.log(`FAIL: ${label}: sample ${off + i} ${k}[${j}]: onnxruntime ${y}, hydra ${x}`);
			}));
		}
	}
	await check(rows, 0, `batch of ${rows.length}`);
	await check(rows.slice(0, 1), 0, 'batch of 1');
	if (rows.length > 8) await check(rows.slice(1, 8), 1, 'batch of 7');
	console.log(`onnxruntime-node ${ort.env.versions.node}: ${rows.length} samples, largest |difference|: ` +
		names.map((k) => `${k} ${(worst[k] || 0).toExponential(2)}`).join(', '));
	if (bad) {
		console.log(`FAIL: ${bad} values out of tolerance`);
		process.exit(1);
	}
}

main().catch((e) => {
	console.log(`FAIL: ${e && e.stack ? e.stack : e}`);
	process.exit(1);
});
