/* The hidden state of a decision, from the table (encode/hidden.h). */
#include "encode/hidden.h"

#include <string.h>

#include "core/tile.h"
#include "hand/shanten.h"

/* An opponent's concealed tiles as sorted tile codes: the plain kinds in
 * order, then its red fives (codes 34–36 sort after every kind). */
static void hand_codes(const hy_player *p, uint8_t out[HY_HIDDEN_HAND])
{
	int n = 0;
	for (int k = 0; k < HY_TILE_KINDS && n < HY_HIDDEN_HAND; k++) {
		int c = p->cnt[k];
		int suit = hy_tile_red_of(k) >= 0 ? hy_tile_suit(k) : -1;
		if (suit >= 0)
			c -= p->red[suit];
		for (int i = 0; i < c && n < HY_HIDDEN_HAND; i++)
			out[n++] = (uint8_t)k;
	}
	for (int suit = 0; suit < 3; suit++)
		for (int i = 0; i < p->red[suit] && n < HY_HIDDEN_HAND; i++)
			out[n++] = (uint8_t)(HY_TILE_5MR + suit);
}

void hy_encode_hidden(const hy_table *t, int seat, hy_sample *s)
{
	const hy_engine *e = &t->e;
	hy_hidden *h = &s->hidden;
	memset(h, HY_TILE_NONE, sizeof *h);
	for (int o = 0; o < 3; o++) {
		const hy_player *p = &e->p[(seat + o + 1) % 4];
		hand_codes(p, h->hand[o]);
		int sh = hy_shanten(p->cnt, p->nmelds);
		h->shanten[o] = (uint8_t)(sh < 0 ? 0 : sh > 8 ? 8 : sh);
	}
	/* the live draws still to come: live_left of them from live_next (a
	 * kan's replacement shortens the live wall at its end) */
	int live = e->live_left < HY_HIDDEN_LIVE ? e->live_left : HY_HIDDEN_LIVE;
	for (int i = 0; i < live && t->live_next + i < HY_WALL_SIZE; i++)
		h->live[i] = t->wall[t->live_next + i];
	for (int i = t->rinshan_next; i < HY_WALL_DORA; i++)
		h->rinshan[i - t->rinshan_next] = t->wall[i];
	memcpy(h->dora, t->wall + HY_WALL_DORA, HY_HIDDEN_DORA);
	memcpy(h->ura, t->wall + HY_WALL_URA, HY_HIDDEN_DORA);
	s->flags |= HY_SAMPLE_F_HIDDEN;
}
