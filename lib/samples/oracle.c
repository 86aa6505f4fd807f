/* The 205 oracle planes of a sample's hidden state (samples/oracle.h). */
#include "samples/oracle.h"

#include <string.h>

#include "core/tile.h"

/* Two planes of one tile at plane c: its kind one-hot, a red five's fill. */
static void tile_planes(float *out, int c, uint8_t code, float v)
{
	if (code == HY_TILE_NONE)
		return;
	out[c * HY_OBS_TILES + hy_tile_code_kind(code)] = v;
	if (hy_tile_is_red(code))
		for (int t = 0; t < HY_OBS_TILES; t++)
			out[(c + 1) * HY_OBS_TILES + t] = v;
}

static void fill(float *out, int c, float v)
{
	for (int t = 0; t < HY_OBS_TILES; t++)
		out[c * HY_OBS_TILES + t] = v;
}

static void opponent(const hy_sample *s, int o, float v, float *out)
{
	const hy_hidden *h = &s->hidden;
	int base = HY_ORACLE_OPP_PLANES * o;
	uint8_t cnt[HY_OBS_TILES] = {0};
	for (int i = 0; i < HY_HIDDEN_HAND && h->hand[o][i] != HY_TILE_NONE; i++) {
		int code = h->hand[o][i];
		cnt[hy_tile_code_kind(code)]++;
		if (hy_tile_is_red(code))
			fill(out, base + 4 + (code - HY_TILE_5MR), v);
	}
	for (int t = 0; t < HY_OBS_TILES; t++)
		for (int j = 0; j < 4; j++)
			if (j == 3 ? cnt[t] >= 4 : cnt[t] >= j + 1)
				out[(base + j) * HY_OBS_TILES + t] = v;
	int sh = h->shanten[o] > 3 ? 3 : h->shanten[o];
	fill(out, base + 7 + sh, v);
	for (uint64_t m = s->opp_waits[o]; m; m &= m - 1)
		out[(base + 11) * HY_OBS_TILES + __builtin_ctzll(m)] = v;
	if ((s->opp_tenpai >> o & 1) && (s->flags & HY_SAMPLE_F_FURITEN_OF(o)))
		fill(out, base + 12, v);
}

void hy_oracle_planes(const hy_sample *s, float scale_opp, float scale_wall,
		      float out[HY_ORACLE_SIZE])
{
	memset(out, 0, sizeof(float) * HY_ORACLE_SIZE);
	if (!(s->flags & HY_SAMPLE_F_HIDDEN))
		return;
	if (scale_opp != 0)
		for (int o = 0; o < 3; o++)
			opponent(s, o, scale_opp, out);
	if (scale_wall == 0)
		return;
	const hy_hidden *h = &s->hidden;
	for (int i = 0; i < HY_HIDDEN_LIVE; i++)
		tile_planes(out, HY_ORACLE_LIVE + 2 * i, h->live[i], scale_wall);
	for (int i = 0; i < HY_HIDDEN_RINSHAN; i++)
		tile_planes(out, HY_ORACLE_RINSHAN + 2 * i, h->rinshan[i], scale_wall);
	for (int i = 0; i < HY_HIDDEN_DORA; i++) {
		tile_planes(out, HY_ORACLE_DORA + 2 * i, h->dora[i], scale_wall);
		tile_planes(out, HY_ORACLE_URA + 2 * i, h->ura[i], scale_wall);
	}
}
