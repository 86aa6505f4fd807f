/* Open melds and agari decomposition. */
#include "hand/agari.h"

#include <stdio.h>
#include <string.h>

#include "core/tile.h"

static const char *const meld_names[HY_MELD_TYPE_COUNT] = {
	"chi", "pon", "minkan", "ankan", "kakan",
};

const char *hy_meld_type_name(int type)
{
	return type >= 0 && type < HY_MELD_TYPE_COUNT ? meld_names[type] : "?";
}

hy_status hy_meld_check(const hy_meld *m, hy_diag *d)
{
	if (m->type >= HY_MELD_TYPE_COUNT)
		return hy_diag_set(d, HY_EDATA, 0, "bad meld type %d", m->type);
	int want = (m->type == HY_MELD_CHI || m->type == HY_MELD_PON) ? 3 : 4;
	const char *name = meld_names[m->type];
	if (m->ntiles != want)
		return hy_diag_set(d, HY_EDATA, 0, "%s needs %d tiles, not %d", name, want, m->ntiles);
	int kinds[4], red[3] = {0, 0, 0};
	for (int i = 0; i < want; i++) {
		int k = hy_tile_kind(m->tiles[i]);
		if (k < 0)
			return hy_diag_set(d, HY_EDATA, 0, "%s: bad tile code %d", name, m->tiles[i]);
		if (hy_tile_is_red(m->tiles[i]) && ++red[m->tiles[i] - HY_TILE_5MR] > 1)
			return hy_diag_set(d, HY_EDATA, 0, "%s: two red fives of one suit", name);
		kinds[i] = k;
	}
	if (m->type == HY_MELD_CHI) {
		int lo = kinds[0], hi = kinds[0];
		for (int i = 1; i < 3; i++) {
			lo = kinds[i] < lo ? kinds[i] : lo;
			hi = kinds[i] > hi ? kinds[i] : hi;
		}
		int seen = 0;
		for (int i = 0; i < 3 && hi - lo <= 2; i++) /* far apart: no shift */
			seen |= 1 << (kinds[i] - lo);
		if (lo >= 27 || hi - lo != 2 || seen != 7 || lo / 9 != hi / 9)
			return hy_diag_set(d, HY_EDATA, 0, "chi needs three consecutive tiles of one suit");
	} else {
		for (int i = 1; i < want; i++)
			if (kinds[i] != kinds[0])
				return hy_diag_set(d, HY_EDATA, 0, "%s needs %d tiles of one kind", name, want);
	}
	if (m->type == HY_MELD_ANKAN) {
		if (m->from != HY_FROM_SELF)
			return hy_diag_set(d, HY_EDATA, 0, "ankan takes no source marker");
	} else if (m->from < 1 || m->from > 3) {
		return hy_diag_set(d, HY_EDATA, 0, "%s needs a source seat (1-3), not %d", name, m->from);
	} else if (m->type == HY_MELD_CHI && m->from != HY_FROM_KAMICHA) {
		return hy_diag_set(d, HY_EDATA, 0, "chi can only be called from kamicha");
	}
	return HY_OK;
}

hy_status hy_meld_parse(const char *s, hy_meld *m, hy_diag *d)
{
	memset(m, 0, sizeof *m);
	const char *colon = strchr(s, ':');
	if (!colon)
		return hy_diag_set(d, HY_EDATA, 0, "meld '%s': expected TYPE:TILES", s);
	size_t tl = (size_t)(colon - s);
	int type = -1;
	for (int t = 0; t < HY_MELD_TYPE_COUNT; t++)
		if (strlen(meld_names[t]) == tl && !memcmp(s, meld_names[t], tl))
			type = t;
	if (tl == 3 && !memcmp(s, "kan", 3))
		type = HY_MELD_MINKAN;
	if (type < 0)
		return hy_diag_set(d, HY_EDATA, 0,
				   "meld '%s': unknown type (chi, pon, kan, minkan, ankan, kakan)", s);
	const char *end = NULL;
	uint8_t tiles[5];
	int n = hy_mpsz_parse(colon + 1, tiles, 5, &end);
	if (n < 0 || n > 4)
		return hy_diag_set(d, HY_EDATA, 0, "meld '%s': bad tiles", s);
	m->type = (uint8_t)type;
	m->ntiles = (uint8_t)n;
	memcpy(m->tiles, tiles, (size_t)n);
	m->from = type == HY_MELD_ANKAN ? HY_FROM_SELF : HY_FROM_KAMICHA;
	if (*end) {
		if (end[1] || type == HY_MELD_ANKAN)
			return hy_diag_set(d, HY_EDATA, 0, "meld '%s': trailing characters", s);
		switch (*end) {
		case '-': m->from = HY_FROM_KAMICHA; break;
		case '=': m->from = HY_FROM_TOIMEN; break;
		case '+': m->from = HY_FROM_SHIMOCHA; break;
		default: return hy_diag_set(d, HY_EDATA, 0, "meld '%s': bad source marker '%c'", s, *end);
		}
	}
	hy_status st = hy_meld_check(m, d);
	if (st != HY_OK && d) {
		char msg[sizeof d->msg];
		snprintf(msg, sizeof msg, "%s", d->msg);
		hy_diag_set(d, st, 0, "meld '%s': %s", s, msg);
	}
	return st;
}

int hy_meld_format(const hy_meld *m, char *buf, size_t size)
{
	char tiles[16];
	hy_mpsz_format(m->tiles, m->ntiles < 4 ? m->ntiles : 4, tiles, sizeof tiles);
	static const char marks[4] = {0, '+', '=', '-'};
	char mark = m->type == HY_MELD_ANKAN || m->from > 3 ? 0 : marks[m->from];
	if (mark)
		return snprintf(buf, size, "%s:%s%c", hy_meld_type_name(m->type), tiles, mark);
	return snprintf(buf, size, "%s:%s", hy_meld_type_name(m->type), tiles);
}

/* ---------------------------------------------------------- decomposition */

typedef struct dctx {
	uint8_t c[34];
	hy_block cur[7];
	int ncur;          /* melds + concealed mentsu so far */
	int pair;          /* kind of the head */
	hy_agari_form *out;
	int max, n;
} dctx;

static void emit_standard(dctx *x)
{
	if (x->n < x->max) {
		hy_agari_form *f = &x->out[x->n];
		f->shape = HY_AGARI_STANDARD;
		f->nblocks = 5;
		memcpy(f->blocks, x->cur, 4 * sizeof(hy_block));
		f->blocks[4] = (hy_block){HY_BLOCK_PAIR, (uint8_t)x->pair, 0, 0};
		memset(&f->blocks[5], 0, 2 * sizeof(hy_block));
	}
	x->n++;
}

static void mentsu(dctx *x, int k)
{
	while (k < 34 && x->c[k] == 0)
		k++;
	if (k == 34) {
		if (x->ncur == 4)
			emit_standard(x);
		return;
	}
	if (x->ncur == 4)
		return;
	if (x->c[k] >= 3) {
		x->c[k] -= 3;
		x->cur[x->ncur++] = (hy_block){HY_BLOCK_TRIPLET, (uint8_t)k, 0, 0};
		mentsu(x, k);
		x->ncur--;
		x->c[k] += 3;
	}
	if (k < 27 && k % 9 <= 6 && x->c[k + 1] && x->c[k + 2]) {
		x->c[k]--, x->c[k + 1]--, x->c[k + 2]--;
		x->cur[x->ncur++] = (hy_block){HY_BLOCK_SEQ, (uint8_t)k, 0, 0};
		mentsu(x, k);
		x->ncur--;
		x->c[k]++, x->c[k + 1]++, x->c[k + 2]++;
	}
}

/* A quick necessary test: in each suit the count must be ≡ 0 or 2 mod 3
 * (one suit holding the pair), honours 0, 2 or 3 of a kind. */
static int plausible(const uint8_t c[34])
{
	int twos = 0;
	for (int s = 0; s < 3; s++) {
		int sum = 0;
		for (int i = 0; i < 9; i++)
			sum += c[9 * s + i];
		if (sum % 3 == 1)
			return 0;
		twos += sum % 3 == 2;
	}
	for (int k = 27; k < 34; k++) {
		if (c[k] == 1 || c[k] == 4)
			return 0;
		twos += c[k] == 2;
	}
	return twos == 1;
}

static const uint8_t yaochu[13] = {0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33};

int hy_agari_decompose(const uint8_t c[34], const hy_meld *melds, int nmelds,
		       hy_agari_form *out, int max)
{
	if (nmelds < 0 || nmelds > 4)
		return -1;
	int total = 0;
	for (int k = 0; k < 34; k++) {
		if (c[k] > 4)
			return -1;
		total += c[k];
	}
	if (total != 3 * (4 - nmelds) + 2)
		return -1;

	dctx x;
	x.out = out;
	x.max = max;
	x.n = 0;
	x.ncur = 0;
	for (int i = 0; i < nmelds; i++) {
		if (!melds) {  /* shape test only: placeholders */
			x.cur[x.ncur++] = (hy_block){HY_BLOCK_TRIPLET, 0, 1, 1};
			continue;
		}
		const hy_meld *m = &melds[i];
		int k = hy_tile_kind(m->tiles[0]);
		for (int j = 1; j < m->ntiles && m->type == HY_MELD_CHI; j++) {
			int kj = hy_tile_kind(m->tiles[j]);
			k = kj < k ? kj : k;
		}
		uint8_t type = m->type == HY_MELD_CHI ? HY_BLOCK_SEQ
			     : m->type == HY_MELD_PON ? HY_BLOCK_TRIPLET : HY_BLOCK_QUAD;
		x.cur[x.ncur++] = (hy_block){type, (uint8_t)(k < 0 ? 0 : k),
					     (uint8_t)hy_meld_is_open(m), 1};
	}

	if (plausible(c)) {
		memcpy(x.c, c, 34);
		for (int k = 0; k < 34; k++) {
			if (x.c[k] < 2)
				continue;
			x.c[k] -= 2;
			x.pair = k;
			mentsu(&x, 0);
			x.c[k] += 2;
		}
	}
	if (nmelds)
		return x.n;

	int pairs = 0;
	for (int k = 0; k < 34; k++)
		pairs += c[k] == 2;
	if (pairs == 7) {
		if (x.n < max) {
			hy_agari_form *f = &out[x.n];
			f->shape = HY_AGARI_CHIITOI;
			f->nblocks = 7;
			int j = 0;
			for (int k = 0; k < 34; k++)
				if (c[k] == 2)
					f->blocks[j++] = (hy_block){HY_BLOCK_PAIR, (uint8_t)k, 0, 0};
		}
		x.n++;
	}

	int pair = -1, ok = 1;
	for (int i = 0; i < 13 && ok; i++) {
		int n = c[yaochu[i]];
		if (n == 0 || n > 2 || (n == 2 && pair >= 0))
			ok = 0;
		else if (n == 2)
			pair = yaochu[i];
	}
	if (ok && pair >= 0) {  /* 14 tiles, all yaochuu: no other kinds left */
		if (x.n < max) {
			hy_agari_form *f = &out[x.n];
			memset(f, 0, sizeof *f);
			f->shape = HY_AGARI_KOKUSHI;
			f->nblocks = 1;
			f->blocks[0] = (hy_block){HY_BLOCK_PAIR, (uint8_t)pair, 0, 0};
		}
		x.n++;
	}
	return x.n;
}

int hy_agari_is_complete(const uint8_t c[34], int nmelds)
{
	hy_agari_form f[1];
	return hy_agari_decompose(c, NULL, nmelds, f, 1) > 0;
}
