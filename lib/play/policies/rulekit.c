/* Shared readings of the rule bots; see rulekit.h. */
#include <string.h>

#include "core/tile.h"
#include "hand/score.h"
#include "play/policies/rulekit.h"

void hy_rk_visible_counts(const hy_engine *e, uint8_t vis[34])
{
	memset(vis, 0, 34);
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		for (int i = 0; i < p->nriver; i++)
			if (!(p->river_flags[i] & HY_RIVER_CALLED)) {
				int k = hy_tile_kind(p->river[i]);
				if (k >= 0)
					vis[k]++;
			}
		for (int m = 0; m < p->nmelds; m++)
			for (int j = 0; j < p->melds[m].ntiles; j++) {
				int k = hy_tile_kind(p->melds[m].tiles[j]);
				if (k >= 0)
					vis[k]++;
			}
	}
	for (int i = 0; i < e->ndora && i < 5; i++) {
		int k = hy_tile_kind(e->dora_ind[i]);
		if (k >= 0)
			vis[k]++;
	}
}

int hy_rk_seat_wind(const hy_engine *e, int seat)
{
	return 27 + (seat - e->oya + 4) % 4;
}

int hy_rk_is_value_honour(const hy_engine *e, int seat, int k)
{
	return k >= 31 || k == 27 + e->bakaze || k == hy_rk_seat_wind(e, seat);
}

uint64_t hy_rk_discard_kinds(uint64_t legal)
{
	uint64_t m = legal & ((1ull << 34) - 1);
	for (int s = 0; s < 3; s++)
		if (legal >> (HY_TILE_5MR + s) & 1)
			m |= 1ull << (4 + 9 * s);
	return m;
}

int hy_rk_discard_index(const hy_player *p, uint64_t legal, int k)
{
	int red = hy_tile_red_of(k);
	if (red < 0)
		return k;
	int nred = p->red[red - HY_TILE_5MR];
	if ((legal >> k & 1) && p->cnt[k] > nred)
		return k;
	if (legal >> red & 1)
		return red;
	return k;
}

void hy_rk_dora_counts(const hy_engine *e, uint8_t dora[34])
{
	memset(dora, 0, 34);
	for (int i = 0; i < e->ndora && i < 5; i++) {
		int k = hy_dora_from_indicator(hy_tile_kind(e->dora_ind[i]));
		if (k >= 0 && k < 34)
			dora[k]++;
	}
}

uint32_t hy_rk_keep_key(const hy_engine *e, int seat, int k)
{
	const hy_player *p = &e->p[seat];
	int dora = 0;
	for (int i = 0; i < e->ndora && i < 5; i++)
		dora += hy_dora_from_indicator(hy_tile_kind(e->dora_ind[i])) == k;
	int red = hy_tile_red_of(k);
	if (red >= 0 && p->red[red - HY_TILE_5MR] >= p->cnt[k])
		dora++; /* only red copies left: this discard throws a red five */
	int connected;
	if (k >= 27) {
		connected = p->cnt[k] >= 2;
	} else {
		connected = p->cnt[k] >= 2;
		int n = k % 9;
		for (int dd = -2; dd <= 2 && !connected; dd++)
			if (dd && n + dd >= 0 && n + dd < 9 && p->cnt[k + dd])
				connected = 1;
	}
	int cat;
	if (k >= 27)
		cat = hy_rk_is_value_honour(e, seat, k) ? 1 : 0;
	else if (k % 9 == 0 || k % 9 == 8)
		cat = 2;
	else if (k % 9 == 1 || k % 9 == 7)
		cat = 3;
	else
		cat = 4;
	if (dora > 7)
		dora = 7;
	return (uint32_t)dora << 16 | (uint32_t)connected << 12 | (uint32_t)cat << 8 | (uint32_t)k;
}
