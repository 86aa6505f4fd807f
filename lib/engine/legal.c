/* The four-player Tenhou game engine: legal actions. Who decides, the
 * action lists, the HY_A_* masks computed directly, index⇄action
 * mapping and the legality check, plus the call-window options that
 * apply.c stores when it opens a window. Nothing here changes the state. */
#include "engine/engine.h"

#include <string.h>

#include "core/tile.h"
#include "engine/internal.h"
#include "engine/win.h"
#include "hand/shanten.h"

/* ------------------------------------------------------------ helpers */

static int has_code(const hy_player *p, int t)
{
	if (hy_tile_is_red(t))
		return p->red[t - HY_TILE_5MR] > 0;
	return plain_count(p, t) > 0;
}

/* A tile of kind k to give away: plain when there is one, unless want_red. */
static int pick_code(const hy_player *p, int k, int want_red)
{
	int r = hy_tile_red_of(k);
	if (r >= 0 && p->red[k / 9] && (want_red || plain_count(p, k) == 0))
		return r;
	return k;
}

static int is_closed(const hy_player *p)
{
	for (int i = 0; i < p->nmelds; i++)
		if (p->melds[i].type != HY_MELD_ANKAN)
			return 0;
	return 1;
}

static int furiten(const hy_player *p)
{
	return (p->waits & p->discarded) || p->temp_furiten || p->riichi_furiten;
}

/* ------------------------------------------------------------ legality */

static int can_riichi(const hy_engine *e, int s)
{
	const hy_player *p = &e->p[s];
	if (p->riichi || !is_closed(p) || e->scores[s] < 1000 || e->live_left < 4)
		return 0;
	return hy_shanten(p->cnt, p->nmelds) <= 0;
}

static int can_kyuushu(const hy_engine *e, int s)
{
	const hy_player *p = &e->p[s];
	if (!e->first_go || p->nriver != 0 || e->after_call)
		return 0;
	int n = 0;
	for (int k = 0; k < 34; k++)
		n += hy_tile_is_yaochu(k) && p->cnt[k];
	return n >= 9;
}

static int kan_allowed(const hy_engine *e)
{
	return e->nkans < 4 && e->live_left > 0;
}

/* Ankan of kind k legal for seat s in TURN (counts checked by caller). */
static int ankan_ok(const hy_engine *e, int s, int k)
{
	const hy_player *p = &e->p[s];
	if (!p->riichi)
		return 1;
	/* In riichi: only with the drawn tile, and the waits must not change. */
	if (p->drawn == HY_TILE_NONE || hy_tile_code_kind(p->drawn) != k)
		return 0;
	uint8_t c[34];
	memcpy(c, p->cnt, 34);
	c[k] -= 1;
	uint64_t before = hy_hand_waits(c, p->nmelds);
	c[k] -= 3;
	uint64_t after = hy_hand_waits(c, p->nmelds + 1);
	return before == after && before != 0;
}

/* Kinds a hand can discard after a call (kuikae): some tile outside mask. */
static int has_discard_outside(const uint8_t c[34], uint64_t forbid)
{
	for (int k = 0; k < 34; k++)
		if (c[k] && !(forbid >> k & 1))
			return 1;
	return 0;
}

/* ------------------------------------------------------------ call windows */

static unsigned call_options(const hy_engine *e, int s, int t)
{
	const hy_player *p = &e->p[s];
	int k = hy_tile_code_kind(t);
	unsigned o = 0;
	int d = e->actor;
	if ((p->waits >> k & 1) && !furiten(p) &&
	    hy_engine_win_eval(e, s, d, t, 0, 1, NULL))
		o |= O_RON;
	if (e->live_left == 0 || p->riichi || e->abort_kan)
		return o;
	uint8_t c[34];
	if (p->cnt[k] >= 2) {
		memcpy(c, p->cnt, 34);
		c[k] -= 2;
		if (has_discard_outside(c, 1ull << k))
			o |= O_PON;
	}
	if (p->cnt[k] >= 3 && kan_allowed(e))
		o |= O_KAN;
	if (s == (d + 1) % 4 && k < 27) {
		int n = k % 9;
		for (int v = 0; v < 3; v++) {
			int lo = k - v;
			if (n - v < 0 || n - v + 2 > 8)
				continue;
			int a = v == 0 ? lo + 1 : lo, b = v == 2 ? lo + 1 : lo + 2;
			if (!p->cnt[a] || !p->cnt[b])
				continue;
			memcpy(c, p->cnt, 34);
			c[a]--;
			c[b]--;
			if (has_discard_outside(c, chi_forbid(k, lo)))
				o |= (unsigned)(O_CHI_LOW << v);
		}
	}
	return o;
}

static unsigned chankan_options(const hy_engine *e, int s, int t, int ankan)
{
	const hy_player *p = &e->p[s];
	int k = hy_tile_code_kind(t);
	if (!(p->waits >> k & 1) || furiten(p))
		return 0;
	if (ankan && hy_shanten_kokushi(p->cnt, p->nmelds) != 0)
		return 0;
	return hy_engine_win_eval(e, s, e->actor, t, 1, 1, NULL) ? O_RON : 0;
}

unsigned hy_engine_window_options(const hy_engine *e, int chankan, uint8_t opts[4])
{
	int t = e->last_tile;
	unsigned pending = 0;
	for (int s = 0; s < 4; s++) {
		unsigned o = 0;
		if (s != e->actor)
			o = chankan ? chankan_options(e, s, t, e->chankan_ankan) : call_options(e, s, t);
		opts[s] = (uint8_t)o;
		if (o)
			pending |= 1u << s;
	}
	return pending;
}

/* ------------------------------------------------------------ actions and masks */

unsigned hy_engine_deciders(const hy_engine *e)
{
	switch (e->phase) {
	case HY_PH_TURN:
	case HY_PH_RIICHI:
		return 1u << e->actor;
	case HY_PH_CALL:
	case HY_PH_CHANKAN:
		return e->call_pending;
	default:
		return 0;
	}
}

/* Appends helper. */
#define PUSH(...)                                                   \
	do {                                                        \
		if (n < max)                                        \
			out[n] = (hy_action){__VA_ARGS__};          \
		n++;                                                \
	} while (0)

static int turn_actions(const hy_engine *e, int s, hy_action *out, int max)
{
	const hy_player *p = &e->p[s];
	int n = 0;
	if (e->phase == HY_PH_RIICHI) {
		int8_t sh[34];
		hy_shanten_discards(p->cnt, p->nmelds, sh);
		for (int t = 0; t < HY_TILE_UNKNOWN; t++)
			if (has_code(p, t) && sh[hy_tile_code_kind(t)] <= 0)
				PUSH(.type = HY_ACT_DISCARD, .tile = (uint8_t)t);
		return n;
	}
	if (p->riichi) {
		PUSH(.type = HY_ACT_DISCARD, .tile = p->drawn);
	} else {
		for (int t = 0; t < HY_TILE_UNKNOWN; t++)
			if (has_code(p, t) && !(e->after_call && (p->kuikae >> hy_tile_code_kind(t) & 1)))
				PUSH(.type = HY_ACT_DISCARD, .tile = (uint8_t)t);
	}
	if (e->after_call)
		return n;
	if (can_riichi(e, s))
		PUSH(.type = HY_ACT_RIICHI);
	if (p->drawn != HY_TILE_NONE && (p->waits >> hy_tile_code_kind(p->drawn) & 1) &&
	    hy_engine_win_eval(e, s, s, p->drawn, 0, 1, NULL))
		PUSH(.type = HY_ACT_TSUMO, .tile = p->drawn);
	if (kan_allowed(e) && !e->abort_kan) {
		for (int k = 0; k < 34; k++) {
			if (p->cnt[k] == 4 && ankan_ok(e, s, k)) {
				hy_action a = {.type = HY_ACT_ANKAN, .tile = (uint8_t)k, .nconsumed = 4};
				int r = hy_tile_red_of(k), j = 0;
				if (r >= 0 && p->red[k / 9])
					a.consumed[j++] = (uint8_t)r;
				while (j < 4)
					a.consumed[j++] = (uint8_t)k;
				PUSH(a.type, a.tile, a.nconsumed, {a.consumed[0], a.consumed[1],
								   a.consumed[2], a.consumed[3]});
			}
		}
		if (!p->riichi) {
			for (int i = 0; i < p->nmelds; i++) {
				const hy_meld *m = &p->melds[i];
				int k = hy_tile_code_kind(m->tiles[0]);
				if (m->type != HY_MELD_PON || !p->cnt[k])
					continue;
				int t = pick_code(p, k, 1);
				PUSH(.type = HY_ACT_KAKAN, .tile = (uint8_t)t, .nconsumed = 3,
				     .consumed = {m->tiles[0], m->tiles[1], m->tiles[2]});
			}
		}
	}
	if (can_kyuushu(e, s))
		PUSH(.type = HY_ACT_KYUUSHU);
	return n;
}

/* Variants of taking two tiles of kinds a, b (a may equal b) from hand. */
static int pair_variants(const hy_player *p, int a, int b, uint8_t v[4][2])
{
	int n = 0;
	if (a == b) {
		int plain = plain_count(p, a), r = hy_tile_red_of(a);
		if (plain >= 2)
			v[n][0] = (uint8_t)a, v[n][1] = (uint8_t)a, n++;
		if (r >= 0 && p->red[a / 9] && plain >= 1)
			v[n][0] = (uint8_t)r, v[n][1] = (uint8_t)a, n++;
		return n;
	}
	uint8_t ca[2], cb[2];
	int na = 0, nb = 0;
	if (plain_count(p, a))
		ca[na++] = (uint8_t)a;
	if (hy_tile_red_of(a) >= 0 && p->red[a / 9])
		ca[na++] = (uint8_t)hy_tile_red_of(a);
	if (plain_count(p, b))
		cb[nb++] = (uint8_t)b;
	if (hy_tile_red_of(b) >= 0 && p->red[b / 9])
		cb[nb++] = (uint8_t)hy_tile_red_of(b);
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			v[n][0] = ca[i], v[n][1] = cb[j], n++;
	return n;
}

static int call_actions(const hy_engine *e, int s, hy_action *out, int max)
{
	int n = 0;
	if (!(e->call_pending >> s & 1))
		return 0;
	unsigned o = e->call_opts[s];
	const hy_player *p = &e->p[s];
	int t = e->last_tile, k = hy_tile_code_kind(t);
	if (o & O_RON)
		PUSH(.type = HY_ACT_RON, .tile = (uint8_t)t);
	uint8_t v[4][2];
	if (o & O_PON) {
		int nv = pair_variants(p, k, k, v);
		for (int i = 0; i < nv; i++)
			PUSH(.type = HY_ACT_PON, .tile = (uint8_t)t, .nconsumed = 2,
			     .consumed = {v[i][0], v[i][1]});
	}
	if (o & O_KAN) {
		hy_action a = {.type = HY_ACT_DAIMINKAN, .tile = (uint8_t)t, .nconsumed = 3};
		int r = hy_tile_red_of(k), j = 0;
		if (r >= 0 && p->red[k / 9])
			a.consumed[j++] = (uint8_t)r;
		while (j < 3)
			a.consumed[j++] = (uint8_t)k;
		PUSH(a.type, a.tile, a.nconsumed, {a.consumed[0], a.consumed[1], a.consumed[2]});
	}
	for (int vv = 0; vv < 3; vv++) {
		if (!(o & (unsigned)(O_CHI_LOW << vv)))
			continue;
		int lo = k - vv;
		int a = vv == 0 ? lo + 1 : lo, b = vv == 2 ? lo + 1 : lo + 2;
		int nv = pair_variants(p, a, b, v);
		for (int i = 0; i < nv; i++)
			PUSH(.type = HY_ACT_CHI, .tile = (uint8_t)t, .nconsumed = 2,
			     .consumed = {v[i][0], v[i][1]});
	}
	PUSH(.type = HY_ACT_PASS);
	return n;
}

int hy_engine_legal_actions(const hy_engine *e, int seat, hy_action *out, int max)
{
	if (!(hy_engine_deciders(e) >> seat & 1))
		return 0;
	if (e->phase == HY_PH_TURN || e->phase == HY_PH_RIICHI)
		return turn_actions(e, seat, out, max);
	return call_actions(e, seat, out, max);
}

int hy_engine_index_of(const hy_engine *e, int seat, const hy_action *a)
{
	(void)e;
	(void)seat;
	switch (a->type) {
	case HY_ACT_DISCARD: return a->tile;
	case HY_ACT_RIICHI: return HY_A_RIICHI;
	case HY_ACT_CHI: return chi_index(a);
	case HY_ACT_PON: return HY_A_PON;
	case HY_ACT_DAIMINKAN:
	case HY_ACT_ANKAN:
	case HY_ACT_KAKAN: return HY_A_KAN;
	case HY_ACT_TSUMO:
	case HY_ACT_RON: return HY_A_WIN;
	case HY_ACT_KYUUSHU: return HY_A_KYUUSHU;
	case HY_ACT_PASS: return HY_A_PASS;
	default: return -1;
	}
}

enum { MAX_ACTS = 64 };

/* The TURN/RIICHI/CALL masks computed directly (no action list). */
static uint64_t turn_mask(const hy_engine *e, int s)
{
	const hy_player *p = &e->p[s];
	uint64_t m = 0;
	if (e->phase == HY_PH_RIICHI) {
		int8_t sh[34];
		hy_shanten_discards(p->cnt, p->nmelds, sh);
		for (int k = 0; k < 34; k++)
			if (p->cnt[k] && sh[k] <= 0) {
				if (plain_count(p, k))
					m |= 1ull << k;
				if (hy_tile_red_of(k) >= 0 && p->red[k / 9])
					m |= 1ull << hy_tile_red_of(k);
			}
		return m;
	}
	if (p->riichi) {
		m |= 1ull << p->drawn;
	} else {
		uint64_t forbid = e->after_call ? p->kuikae : 0;
		m = p->have & ~forbid;
		for (int i = 0; i < 3; i++)
			if (p->red[i] && !(forbid >> (4 + 9 * i) & 1)) {
				m |= 1ull << (HY_TILE_5MR + i);
				if (p->cnt[4 + 9 * i] == p->red[i])
					m &= ~(1ull << (4 + 9 * i));
			}
	}
	if (e->after_call)
		return m;
	if (can_riichi(e, s))
		m |= 1ull << HY_A_RIICHI;
	if (p->drawn != HY_TILE_NONE && (p->waits >> hy_tile_code_kind(p->drawn) & 1) &&
	    hy_engine_win_eval(e, s, s, p->drawn, 0, 1, NULL))
		m |= 1ull << HY_A_WIN;
	if (kan_allowed(e) && !e->abort_kan) {
		for (uint64_t h = p->have; h && !(m >> HY_A_KAN & 1); h &= h - 1) {
			int k = __builtin_ctzll(h);
			if (p->cnt[k] == 4 && ankan_ok(e, s, k))
				m |= 1ull << HY_A_KAN;
		}
		for (int i = 0; i < p->nmelds && !p->riichi; i++)
			if (p->melds[i].type == HY_MELD_PON && p->cnt[hy_tile_code_kind(p->melds[i].tiles[0])])
				m |= 1ull << HY_A_KAN;
	}
	if (can_kyuushu(e, s))
		m |= 1ull << HY_A_KYUUSHU;
	return m;
}

uint64_t hy_engine_legal_mask(const hy_engine *e, int seat)
{
	if (!(hy_engine_deciders(e) >> seat & 1))
		return 0;
	if (e->phase == HY_PH_TURN || e->phase == HY_PH_RIICHI)
		return turn_mask(e, seat);
	unsigned o = e->call_opts[seat];
	uint64_t m = 1ull << HY_A_PASS;
	if (o & O_RON)
		m |= 1ull << HY_A_WIN;
	if (o & O_PON)
		m |= 1ull << HY_A_PON;
	if (o & O_KAN)
		m |= 1ull << HY_A_KAN;
	for (int v = 0; v < 3; v++)
		if (o & (unsigned)(O_CHI_LOW << v))
			m |= 1ull << (HY_A_CHI_LOW + v);
	return m;
}

/* The action-list version, kept for tests (must equal the mask). */
uint64_t hy_engine_legal_mask_slow(const hy_engine *e, int seat)
{
	hy_action a[MAX_ACTS];
	int n = hy_engine_legal_actions(e, seat, a, MAX_ACTS);
	uint64_t m = 0;
	for (int i = 0; i < n && i < MAX_ACTS; i++)
		m |= 1ull << hy_engine_index_of(e, seat, &a[i]);
	return m;
}

static int n_red(const hy_action *a)
{
	int r = 0;
	for (int i = 0; i < a->nconsumed; i++)
		r += hy_tile_is_red(a->consumed[i]);
	return r;
}

hy_status hy_engine_action_of(const hy_engine *e, int seat, int index, hy_action *out)
{
	/* Fast paths for the indices that need no choice of tiles. */
	int turn = e->phase == HY_PH_TURN || e->phase == HY_PH_RIICHI;
	if (index >= 0 && index < HY_A_COUNT &&
	    ((turn && (index <= HY_A_RIICHI || index == HY_A_WIN || index == HY_A_KYUUSHU)) ||
	     (!turn && (index == HY_A_PASS || index == HY_A_WIN)))) {
		if (!(hy_engine_legal_mask(e, seat) >> index & 1))
			return HY_EUSAGE;
		if (index < HY_A_RIICHI)
			*out = (hy_action){.type = HY_ACT_DISCARD, .tile = (uint8_t)index};
		else if (index == HY_A_RIICHI)
			*out = (hy_action){.type = HY_ACT_RIICHI};
		else if (index == HY_A_KYUUSHU)
			*out = (hy_action){.type = HY_ACT_KYUUSHU};
		else if (index == HY_A_PASS)
			*out = (hy_action){.type = HY_ACT_PASS};
		else if (turn)
			*out = (hy_action){.type = HY_ACT_TSUMO, .tile = e->p[seat].drawn};
		else
			*out = (hy_action){.type = HY_ACT_RON, .tile = e->last_tile};
		return HY_OK;
	}
	hy_action a[MAX_ACTS];
	int n = hy_engine_legal_actions(e, seat, a, MAX_ACTS);
	int best = -1;
	for (int i = 0; i < n && i < MAX_ACTS; i++) {
		if (hy_engine_index_of(e, seat, &a[i]) != index)
			continue;
		if (best < 0) {
			best = i;
			continue;
		}
		/* keep the red five: fewer reds consumed; kan: lowest kind (first) */
		if (n_red(&a[i]) < n_red(&a[best]))
			best = i;
	}
	if (best < 0)
		return HY_EUSAGE;
	*out = a[best];
	return HY_OK;
}

static int same_multiset(const uint8_t *x, const uint8_t *y, int n)
{
	uint8_t c[HY_TILE_CODES] = {0};
	for (int i = 0; i < n; i++)
		c[x[i] < HY_TILE_CODES ? x[i] : HY_TILE_UNKNOWN]++;
	for (int i = 0; i < n; i++) {
		int t = y[i] < HY_TILE_CODES ? y[i] : HY_TILE_UNKNOWN;
		if (!c[t])
			return 0;
		c[t]--;
	}
	return 1;
}

static int action_eq(const hy_action *a, const hy_action *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case HY_ACT_RIICHI:
	case HY_ACT_KYUUSHU:
	case HY_ACT_PASS:
	case HY_ACT_TSUMO:
	case HY_ACT_RON:
		return 1;
	case HY_ACT_DISCARD:
		return a->tile == b->tile;
	case HY_ACT_ANKAN:
		return hy_tile_code_kind(a->tile) == hy_tile_code_kind(b->tile) &&
		       (a->nconsumed == 0 || b->nconsumed == 0 ||
			(a->nconsumed == b->nconsumed &&
			 same_multiset(a->consumed, b->consumed, a->nconsumed)));
	default:
		return a->tile == b->tile && a->nconsumed == b->nconsumed &&
		       same_multiset(a->consumed, b->consumed, a->nconsumed);
	}
}

int hy_engine_is_legal(const hy_engine *e, int seat, const hy_action *a)
{
	hy_action l[MAX_ACTS];
	int n = hy_engine_legal_actions(e, seat, l, MAX_ACTS);
	for (int i = 0; i < n && i < MAX_ACTS; i++)
		if (action_eq(&l[i], a))
			return 1;
	return 0;
}
