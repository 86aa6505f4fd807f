/* Suit permutations of tiles and games (see permute.h). */
#include "events/permute.h"

#include "core/perm.h"

const uint8_t hy_suit_perm_table[HY_SUIT_PERMS][3] = {
	{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0},
};

int hy_suit_perm_inverse(int p)
{
	if (p < 0 || p >= HY_SUIT_PERMS)
		return -1;
	uint8_t q[3];
	for (int s = 0; s < 3; s++)
		q[hy_suit_perm_table[p][s]] = (uint8_t)s;
	return hy_perm_index(q, 3); /* the table is in lexicographic order */
}

int hy_suit_perm_compose(int a, int b)
{
	if (a < 0 || a >= HY_SUIT_PERMS || b < 0 || b >= HY_SUIT_PERMS)
		return -1;
	uint8_t q[3];
	for (int s = 0; s < 3; s++)
		q[s] = hy_suit_perm_table[b][hy_suit_perm_table[a][s]];
	return hy_perm_index(q, 3); /* the table is in lexicographic order */
}

hy_status hy_game_permute_suits(hy_game *g, int p)
{
	if (!g || p < 0 || p >= HY_SUIT_PERMS)
		return HY_EUSAGE;
	if (p == 0)
		return HY_OK;
	for (size_t i = 0; i < g->n; i++) {
		hy_event *e = &g->ev[i];
		e->pai = hy_tile_permute(p, e->pai);
		for (int k = 0; k < 4; k++)
			e->consumed[k] = hy_tile_permute(p, e->consumed[k]);
		for (int s = 0; s < 4; s++)
			for (int k = 0; k < 13; k++)
				e->tehais[s][k] = hy_tile_permute(p, e->tehais[s][k]);
		e->dora_marker = hy_tile_permute(p, e->dora_marker);
		for (int k = 0; k < 5; k++)
			e->ura[k] = hy_tile_permute(p, e->ura[k]);
	}
	return HY_OK;
}
