/* In-memory mjai events and games: their types, names, growth and copies
 * (event.h). */
#include "events/event.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

#include "core/tile.h"

static const char *const type_names[HY_EV_TYPE_COUNT] = {
	[HY_EV_NONE] = "none",
	[HY_EV_START_GAME] = "start_game",
	[HY_EV_START_KYOKU] = "start_kyoku",
	[HY_EV_TSUMO] = "tsumo",
	[HY_EV_DAHAI] = "dahai",
	[HY_EV_CHI] = "chi",
	[HY_EV_PON] = "pon",
	[HY_EV_DAIMINKAN] = "daiminkan",
	[HY_EV_KAKAN] = "kakan",
	[HY_EV_ANKAN] = "ankan",
	[HY_EV_DORA] = "dora",
	[HY_EV_REACH] = "reach",
	[HY_EV_REACH_ACCEPTED] = "reach_accepted",
	[HY_EV_HORA] = "hora",
	[HY_EV_RYUKYOKU] = "ryukyoku",
	[HY_EV_END_KYOKU] = "end_kyoku",
	[HY_EV_END_GAME] = "end_game",
};

const char *hy_ev_type_name(int type)
{
	if (type <= HY_EV_NONE || type >= HY_EV_TYPE_COUNT)
		return NULL;
	return type_names[type];
}

hy_ev_type hy_ev_type_from_name(const char *s, size_t len)
{
	for (int t = HY_EV_START_GAME; t < HY_EV_TYPE_COUNT; t++)
		if (strlen(type_names[t]) == len && memcmp(type_names[t], s, len) == 0)
			return (hy_ev_type)t;
	if (len == 3 && memcmp(s, "kan", 3) == 0)
		return HY_EV_DAIMINKAN;
	return HY_EV_NONE;
}

void hy_event_blank(hy_event *e, hy_ev_type type)
{
	memset(e, 0, sizeof *e);
	e->type = (uint8_t)type;
	e->actor = HY_NO_SEAT;
	e->target = HY_NO_SEAT;
	e->pai = HY_TILE_NONE;
	e->dora_marker = HY_TILE_NONE;
	e->bakaze = HY_TILE_NONE;
	e->oya = HY_NO_SEAT;
	memset(e->consumed, HY_TILE_NONE, sizeof e->consumed);
	memset(e->ura, HY_TILE_NONE, sizeof e->ura);
	memset(e->tehais, HY_TILE_NONE, sizeof e->tehais);
}

void hy_game_init(hy_game *g)
{
	memset(g, 0, sizeof *g);
}

void hy_game_clear(hy_game *g)
{
	for (size_t i = 0; i < g->nstrs; i++)
		free(g->strs[i]);
	g->nstrs = 0;
	g->n = 0;
	g->source = NULL;
	g->index = 0;
}

void hy_game_free(hy_game *g)
{
	hy_game_clear(g);
	free(g->strs);
	free(g->ev);
	memset(g, 0, sizeof *g);
}

const char *hy_game_strdup(hy_game *g, const char *s, size_t len)
{
	if (HY_GROW(g->strs, g->capstrs, g->nstrs + 1, 16))
		return NULL;
	char *copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	copy[len] = 0;
	g->strs[g->nstrs++] = copy;
	return copy;
}

hy_status hy_game_set_source(hy_game *g, const char *source, uint32_t index)
{
	g->index = index;
	g->source = hy_game_strdup(g, source ? source : "", source ? strlen(source) : 0);
	return g->source ? HY_OK : HY_ENOMEM;
}

hy_event *hy_game_push(hy_game *g, const hy_event *e)
{
	if (HY_GROW(g->ev, g->cap, g->n + 1, 256))
		return NULL;
	g->ev[g->n] = *e;
	return &g->ev[g->n++];
}
