/* Per-element maths of the network (ARCHITECTURE.md §7), written once as static
 * inline functions that gcc (lib/nn/cpu.c) and nvcc (the .cu files of
 * lib/nn/cuda) both compile: under nvcc HY_NN_DEVICE is
 * `__host__ __device__`. Every
 * backend uses these, so the CPU and CUDA results differ only by summation
 * order and by the libm each side links (expf/log1pf are used only by the
 * losses and the sigmoid; Mish uses hy_nn_exp below, the same arithmetic
 * on both sides). memcpy is the bit cast on both (nvcc compiles it in
 * device code to a register move). */
#ifndef HY_NN_MATH_H
#define HY_NN_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef HY_NN_DEVICE
#ifdef __CUDACC__
#define HY_NN_DEVICE __host__ __device__
#else
#define HY_NN_DEVICE
#endif
#endif

/* softplus with PyTorch's threshold: x for x > 20. */
static inline HY_NN_DEVICE float hy_nn_softplus(float x)
{
	return x > 20.0f ? x : log1pf(expf(x));
}

static inline HY_NN_DEVICE float hy_nn_sigmoid(float x)
{
	if (x >= 0.0f)
		return 1.0f / (1.0f + expf(-x));
	float e = expf(x);
	return e / (1.0f + e);
}

/* c ? a : b on the bit patterns, without a branch. fminf/fmaxf are libm
 * calls at -O2, and a plain ?: against a constant lets GCC's jump threading
 * split the loop body into paths, which stops vectorisation of loops over
 * hy_nn_exp. */
static inline HY_NN_DEVICE float hy_nn_selectf(int c, float a, float b)
{
	uint32_t ua, ub, m = (uint32_t)0 - (uint32_t)(c != 0);
	memcpy(&ua, &a, sizeof ua);
	memcpy(&ub, &b, sizeof ub);
	uint32_t u = (ua & m) | (ub & ~m);
	float r;
	memcpy(&r, &u, sizeof r);
	return r;
}

/* x clamped to [lo, hi]; NaN gives lo. */
static inline HY_NN_DEVICE float hy_nn_clampf(float x, float lo, float hi)
{
	x = hy_nn_selectf(x > lo, x, lo);
	return hy_nn_selectf(x < hi, x, hi);
}

/* eˣ for the elementwise passes: branch-free and inlinable, so that loops
 * over it vectorise. x is clamped to [−87, 88]; k = round(x/ln 2) by the
 * 1.5·2²³ trick, r = x − k·ln 2 in two parts, e^r by its degree-6 Taylor
 * polynomial (|r| ≤ 0.35: relative error < 2e-7), times 2^k built in the
 * exponent bits. */
static inline HY_NN_DEVICE float hy_nn_exp(float x)
{
	x = hy_nn_clampf(x, -87.0f, 88.0f);
	float kf = x * 1.44269504f + 12582912.0f;
	kf -= 12582912.0f;
	float r = (x - kf * 0.693145751953125f) - kf * 1.428606765330187e-06f;
	float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 +
		r * (1.0f / 120 + r * (1.0f / 720))))));
	int32_t k = (int32_t)kf;
	int32_t bits = (k + 127) << 23;
	float sc;
	memcpy(&sc, &bits, sizeof sc);
	return p * sc;
}

/* Mish(x) = x·tanh(softplus(x)), with one exponential: for n = eˣ,
 * tanh(log(1 + n)) = w / (w + 2) where w = n(n + 2). Above 20 it is x (as
 * PyTorch's softplus threshold; tanh(20) rounds to 1 in fp32). */
static inline HY_NN_DEVICE float hy_nn_mish(float x)
{
	float n = hy_nn_exp(hy_nn_selectf(x < 20.0f, x, 20.0f)), w = n * (n + 2.0f);
	return x * (w / (w + 2.0f)); /* w/(w+2) rounds to 1 above 20: no select */
}

/* d Mish / dx = tanh(sp) + x·σ(x)·(1 − tanh²(sp)) = t + 4x·n(n + 1)/(w + 2)². */
static inline HY_NN_DEVICE float hy_nn_mish_grad(float x)
{
	float n = hy_nn_exp(hy_nn_selectf(x < 20.0f, x, 20.0f)), w = n * (n + 2.0f), q = 1.0f / (w + 2.0f);
	float d = w * q + 4.0f * x * n * (n + 1.0f) * q * q;
	return hy_nn_selectf(x > 20.0f, 1.0f, d);
}

/* GroupNorm's mean and rstd (eps 1e-5) from a group's sums s = Σ v and
 * s2 = Σ v² over n values (path v3 carries sums from op to op, nn/ops.h;
 * the variance clamped at 0 against the rounding of s2/n − mean²). */
static inline HY_NN_DEVICE void hy_nn_gn_from_sums(float s, float s2, float n, float *mean,
	float *rstd)
{
	float m = s / n, v = s2 / n - m * m;
	*mean = m;
	*rstd = 1.0f / sqrtf((v > 0.0f ? v : 0.0f) + 1e-5f);
}

/* Binary cross-entropy with logits, numerically stable:
 * max(x,0) − x·y + log(1 + e^{−|x|}); its gradient is σ(x) − y. */
static inline HY_NN_DEVICE float hy_nn_bce_logits(float x, float y)
{
	return fmaxf(x, 0.0f) - x * y + log1pf(expf(-fabsf(x)));
}

/* One AdamW update of one parameter, PyTorch's formulation: decoupled decay
 * p ← p(1 − lr·wd), then p ← p − (lr/bc1)·m / (√v/√bc2 + eps), where
 * bc1 = 1 − β1^t and bc2 = 1 − β2^t. */
static inline HY_NN_DEVICE void hy_nn_adamw_elem(float *p, float g, float *m, float *v,
	float lr, float b1, float b2, float eps, float wd, float bc1, float sqrt_bc2)
{
	float mm = b1 * *m + (1.0f - b1) * g;
	float vv = b2 * *v + (1.0f - b2) * g * g;
	*m = mm;
	*v = vv;
	float q = *p * (1.0f - lr * wd);
	*p = q - (lr / bc1) * mm / (sqrtf(vv) / sqrt_bc2 + eps);
}

/* bf16 storage (ARCHITECTURE.md §8 mixed precision): the upper 16 bits of an fp32,
 * rounded to nearest, ties to even — the definition of CUDA's
 * __float2bfloat16_rn (cvt.rn.bf16.f32): every NaN becomes the canonical
 * 0x7fff, ±inf and subnormals are kept, a finite value that rounds past
 * the largest bf16 becomes ±inf. */
static inline HY_NN_DEVICE uint16_t hy_nn_bf16_round(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fffu;
	uint32_t lsb = (u >> 16) & 1u;
	return (uint16_t)((u + 0x7fffu + lsb) >> 16);
}

static inline HY_NN_DEVICE float hy_nn_bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
}

/* IEEE binary16 bits → fp32, exactly (normals, subnormals, ±0, ±inf, NaN
 * payloads): the observation planes are stored as binary16 and widened
 * on the host (model.c) or on the GPU from the compact form (expand_obs). */
static inline HY_NN_DEVICE float hy_nn_half_to_float(uint16_t h)
{
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (uint32_t)(h >> 10) & 31u, m = h & 1023u, u;
	if (e == 31) {
		u = s | 0x7f800000u | m << 13;
	} else if (e) {
		u = s | (e + 112) << 23 | m << 13;
	} else if (m == 0) {
		u = s;
	} else { /* subnormal m·2⁻²⁴: normalise */
		int k = 0;
		while (!(m & 1024u)) {
			m <<= 1;
			k++;
		}
		u = s | (uint32_t)(113 - k) << 23 | (m & 1023u) << 13;
	}
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
}

#endif
