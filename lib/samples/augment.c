/* Suit-permutation augmentation of samples (see augment.h). */
#include "samples/augment.h"

#include <stdlib.h>
#include <string.h>

#include "events/permute.h"

enum { RED_PLANE = 40 }; /* planes 40–42: own red five of suit 0–2 */

uint8_t hy_augment_action(uint8_t a, int p)
{
	return a < 37 ? hy_tile_permute(p, a) : a; /* 0–36 read as tile codes */
}

uint64_t hy_augment_kind_mask(uint64_t m, int p)
{
	uint64_t out = m & ~((UINT64_C(1) << 27) - 1); /* honours and above */
	for (int s = 0; s < 3; s++) {
		uint64_t block = (m >> (9 * s)) & 0x1ff;
		out |= block << (9 * hy_suit_perm_table[p][s]);
	}
	return out;
}

uint64_t hy_augment_action_mask(uint64_t m, int p)
{
	uint64_t out = hy_augment_kind_mask(m, p) & ~(UINT64_C(7) << 34);
	for (int s = 0; s < 3; s++)
		if (m >> (34 + s) & 1)
			out |= UINT64_C(1) << (34 + hy_suit_perm_table[p][s]);
	return out;
}

static int cmp_u8(const void *a, const void *b)
{
	return (int)*(const uint8_t *)a - (int)*(const uint8_t *)b;
}

/* The hidden state's tile codes under permutation p (255 stays), each
 * opponent's hand sorted again. */
static void permute_hidden(hy_hidden *h, int p)
{
	uint8_t *t = (uint8_t *)h;
	for (size_t i = 0; i < sizeof *h; i++) {
		int shanten = i >= sizeof h->hand && i < sizeof h->hand + sizeof h->shanten;
		if (!shanten && t[i] < 37)
			t[i] = hy_tile_permute(p, t[i]);
	}
	for (int o = 0; o < 3; o++) {
		int n = 0;
		while (n < HY_HIDDEN_HAND && h->hand[o][n] != 255)
			n++;
		qsort(h->hand[o], (size_t)n, 1, cmp_u8);
	}
}

hy_status hy_augment_sample(const hy_sample *in, hy_sample *out, int p)
{
	if (!in || !out || p < 0 || p >= HY_SUIT_PERMS)
		return HY_EUSAGE;
	if (p == 0) {
		if (out != in)
			memcpy(out, in, sizeof *out);
		return HY_OK;
	}
	const uint8_t *pi = hy_suit_perm_table[p];
	hy_sample tmp;
	if (out == in) {
		memcpy(&tmp, in, sizeof tmp);
		in = &tmp;
	} else {
		memcpy(out, in, sizeof *out);
	}
	for (int c = 0; c < HY_OBS_CHANNELS; c++) {
		if (c >= RED_PLANE && c < RED_PLANE + 3)
			continue;
		const uint16_t *src = in->obs + c * HY_OBS_TILES;
		uint16_t *dst = out->obs + c * HY_OBS_TILES;
		for (int s = 0; s < 3; s++)
			memcpy(dst + 9 * pi[s], src + 9 * s, 9 * sizeof *dst);
		/* honours 27–33 were copied with the sample */
	}
	for (int s = 0; s < 3; s++)
		memcpy(out->obs + (RED_PLANE + pi[s]) * HY_OBS_TILES,
		       in->obs + (RED_PLANE + s) * HY_OBS_TILES, HY_OBS_TILES * sizeof *out->obs);
	out->action = hy_augment_action(in->action, p);
	out->mask = hy_augment_action_mask(in->mask, p);
	for (int o = 0; o < 3; o++)
		out->opp_waits[o] = hy_augment_kind_mask(in->opp_waits[o], p);
	if (out->flags & HY_SAMPLE_F_HIDDEN)
		permute_hidden(&out->hidden, p);
	return HY_OK;
}

static uint64_t splitmix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

int hy_augment_random_perm(uint64_t seed, uint64_t game)
{
	return (int)(splitmix64(seed ^ splitmix64(game)) % HY_SUIT_PERMS);
}
