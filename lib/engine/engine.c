/* The four-player Tenhou game engine: state transitions and legal actions.
 * See engine.h for the state machine and ARCHITECTURE.md §3 for the rules. */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

#include "core/tile.h"
#include "engine/win.h"
#include "hand/shanten.h"

/* Call-window option bits (hy_engine.call_opts). */
enum {
	O_RON = 1,
	O_PON = 2,
	O_KAN = 4,
	O_CHI_LOW = 8,
	O_CHI_MID = 16,
	O_CHI_HIGH = 32,
};

void hy_rules_default(hy_rules *r)
{
	r->length = 2;
	r->start_score = 25000;
	r->target = 30000;
}

/* ------------------------------------------------------------ helpers */

/* Kind of a valid tile code (0–36). */
static inline int kind_of(int t)
{
	return t < 34 ? t : 4 + 9 * (t - HY_TILE_5MR);
}

static int is_yaochu(int k)
{
	return k >= 27 || k % 9 == 0 || k % 9 == 8;
}

static void emit(hy_engine *e, const hy_event *ev)
{
	if (e->log && e->log_status == HY_OK && !hy_game_push(e->log, ev))
		e->log_status = HY_ENOMEM;
}

static void emit_simple(hy_engine *e, int type, int actor, int target, int pai)
{
	if (!e->log)
		return;
	hy_event ev;
	hy_event_blank(&ev, (hy_ev_type)type);
	ev.actor = (uint8_t)actor;
	ev.target = (uint8_t)target;
	ev.pai = (uint8_t)pai;
	emit(e, &ev);
}

/* Plain copies of a kind in hand (a five's red excluded). */
static int plain_count(const hy_player *p, int k)
{
	int r = hy_tile_red_of(k);
	return p->cnt[k] - (r >= 0 ? p->red[k / 9] : 0);
}

static int has_code(const hy_player *p, int t)
{
	if (hy_tile_is_red(t))
		return p->red[t - HY_TILE_5MR] > 0;
	return plain_count(p, t) > 0;
}

void hy_player_add(hy_player *p, int t)
{
	int k = kind_of(t);
	p->cnt[k]++;
	p->have |= 1ull << k;
	if (hy_tile_is_red(t))
		p->red[t - HY_TILE_5MR]++;
	p->nconc++;
}

void hy_player_remove(hy_player *p, int t)
{
	int k = kind_of(t);
	if (--p->cnt[k] == 0)
		p->have &= ~(1ull << k);
	if (hy_tile_is_red(t))
		p->red[t - HY_TILE_5MR]--;
	p->nconc--;
}

/* A tile of kind k to give away: plain when there is one, unless want_red. */
static int pick_code(const hy_player *p, int k, int want_red)
{
	int r = hy_tile_red_of(k);
	if (r >= 0 && p->red[k / 9] && (want_red || plain_count(p, k) == 0))
		return r;
	return k;
}

static void update_waits(hy_player *p)
{
	p->waits = 0;
	if (hy_shanten(p->cnt, p->nmelds) == 0)
		p->waits = hy_hand_waits(p->cnt, p->nmelds);
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

int hy_engine_is_tenpai(const hy_player *p)
{
	/* Tenhou: a wait on a kind the hand holds all four of does not count. */
	uint64_t w = p->waits;
	for (int k = 0; k < 34 && w; k++) {
		if (!(w >> k & 1))
			continue;
		int have = p->cnt[k];
		for (int i = 0; i < p->nmelds; i++)
			for (int j = 0; j < p->melds[i].ntiles; j++)
				have += kind_of(p->melds[i].tiles[j]) == k;
		if (have >= 4)
			w &= ~(1ull << k);
	}
	return w != 0;
}

static void reveal_now(hy_engine *e);

/* Daiminkan/kakan indicators waiting for the discard (or the next kan). */
static void reveal_pending(hy_engine *e)
{
	while (e->pending_dora) {
		e->pending_dora--;
		reveal_now(e);
	}
}

static void reveal_now(hy_engine *e)
{
	if (e->ndora >= 5)
		return;
	e->ndora++;
	if (e->log && e->ndora <= e->nind_known) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_DORA);
		ev.dora_marker = e->dora_ind[e->ndora - 1];
		emit(e, &ev);
	}
}

/* ------------------------------------------------------------ setup */

void hy_engine_init(hy_engine *e, const hy_rules *r, hy_game *log)
{
	memset(e, 0, sizeof *e);
	if (r)
		e->rules = *r;
	else
		hy_rules_default(&e->rules);
	for (int s = 0; s < 4; s++)
		e->scores[s] = e->rules.start_score;
	e->phase = HY_PH_NEW_KYOKU;
	e->log = log;
	e->riichi_seat = 255;
	if (log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_START_GAME);
		emit(e, &ev);
	}
}

void hy_engine_set_round(hy_engine *e, int bakaze, int kyoku, int honba, int kyotaku, int oya,
			 const int32_t scores[4])
{
	e->bakaze = (uint8_t)bakaze;
	e->kyoku = (uint8_t)kyoku;
	e->honba = (uint8_t)honba;
	e->kyotaku = (uint8_t)kyotaku;
	e->oya = (uint8_t)oya;
	if (scores)
		memcpy(e->scores, scores, sizeof e->scores);
}

hy_status hy_engine_start_kyoku(hy_engine *e, const uint8_t hands[4][13], int dora_indicator,
				hy_diag *d)
{
	if (e->phase != HY_PH_NEW_KYOKU)
		return hy_diag_set(d, HY_EUSAGE, 0, "start_kyoku: previous kyoku not finished");
	memset(e->p, 0, sizeof e->p);
	memset(&e->res, 0, sizeof e->res);
	uint8_t seen[HY_TILE_CODES] = {0};
	for (int s = 0; s < 4; s++) {
		hy_player *p = &e->p[s];
		p->drawn = HY_TILE_NONE;
		p->nagashi_ok = 1;
		p->pao_seat = HY_NO_SEAT;
		for (int i = 0; i < 13; i++) {
			int t = hands[s][i];
			if (t >= HY_TILE_UNKNOWN)
				return hy_diag_set(d, HY_EDATA, 0, "start_kyoku: seat %d: bad tile", s);
			hy_player_add(p, t);
			seen[t]++;
		}
		update_waits(p);
	}
	if (dora_indicator < 0 || dora_indicator >= HY_TILE_UNKNOWN)
		return hy_diag_set(d, HY_EDATA, 0, "start_kyoku: bad dora indicator");
	seen[dora_indicator]++;
	for (int t = 0; t < HY_TILE_UNKNOWN; t++) {
		int lim = hy_tile_is_red(t) ? 1 : (hy_tile_red_of(t) >= 0 ? 3 : 4);
		if (seen[t] > lim)
			return hy_diag_set(d, HY_EDATA, 0, "start_kyoku: %d copies of %s", seen[t],
					   hy_tile_to_mjai(t));
	}
	e->dora_ind[0] = (uint8_t)dora_indicator;
	e->nind_known = 1;
	e->ndora = 1;
	e->nura = 0;
	e->pending_dora = 0;
	e->live_left = 70;
	e->nkans = 0;
	e->kan_seats = 0;
	e->rinshan = 0;
	e->draw_rinshan = 0;
	e->first_go = 1;
	e->ndiscards = 0;
	e->suufon_kind = 255;
	e->after_call = 0;
	e->riichi_seat = 255;
	e->abort_kan = 0;
	e->call_pending = 0;
	e->actor = e->oya;
	e->phase = HY_PH_DRAW;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_START_KYOKU);
		ev.flags = HY_EVF_BAKAZE | HY_EVF_KYOKU | HY_EVF_HONBA | HY_EVF_KYOTAKU |
			   HY_EVF_SCORES | HY_EVF_TEHAIS;
		ev.bakaze = (uint8_t)(27 + e->bakaze);
		ev.kyoku = (uint8_t)(e->kyoku + 1);
		ev.honba = e->honba;
		ev.kyotaku = e->kyotaku;
		ev.oya = e->oya;
		ev.dora_marker = (uint8_t)dora_indicator;
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		memcpy(ev.tehais, hands, sizeof ev.tehais);
		emit(e, &ev);
	}
	return HY_OK;
}

hy_status hy_engine_feed_indicator(hy_engine *e, int tile, hy_diag *d)
{
	if (e->nind_known >= 5)
		return hy_diag_set(d, HY_EDATA, 0, "dora: more than 5 indicators");
	if (tile < 0 || tile >= HY_TILE_UNKNOWN)
		return hy_diag_set(d, HY_EDATA, 0, "dora: bad indicator");
	e->dora_ind[e->nind_known++] = (uint8_t)tile;
	return HY_OK;
}

int hy_engine_indicators_wanted(const hy_engine *e)
{
	int want = 1 + e->nkans;
	if (want > 5)
		want = 5;
	return want > e->nind_known ? want - e->nind_known : 0;
}

void hy_engine_set_ura(hy_engine *e, const uint8_t *ura, int n)
{
	if (n > 5)
		n = 5;
	memcpy(e->ura, ura, (size_t)n);
	e->nura = (uint8_t)n;
}

hy_status hy_engine_draw(hy_engine *e, int tile, hy_diag *d)
{
	if (e->phase != HY_PH_DRAW)
		return hy_diag_set(d, HY_EUSAGE, 0, "draw: not a draw state");
	if (e->live_left == 0)
		return hy_diag_set(d, HY_EDATA, 0, "draw: the wall is empty");
	if (tile < 0 || tile >= HY_TILE_UNKNOWN)
		return hy_diag_set(d, HY_EDATA, 0, "draw: bad tile");
	hy_player *p = &e->p[e->actor];
	if (p->nconc != 13 - 3 * p->nmelds)
		return hy_diag_set(d, HY_EDATA, 0, "draw: seat %d holds %d tiles", e->actor,
				   p->nconc);
	hy_player_add(p, tile);
	p->drawn = (uint8_t)tile;
	e->live_left--;
	e->rinshan = e->draw_rinshan;
	e->draw_rinshan = 0;
	e->after_call = 0;
	e->phase = HY_PH_TURN;
	emit_simple(e, HY_EV_TSUMO, e->actor, HY_NO_SEAT, tile);
	return HY_OK;
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
		n += is_yaochu(k) && p->cnt[k];
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
	if (p->drawn == HY_TILE_NONE || kind_of(p->drawn) != k)
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

static uint64_t chi_forbid(int called, int low)
{
	/* low: lowest kind of the run. Called kind always; the far kind when
	 * the called tile is an end of the run. */
	uint64_t f = 1ull << called;
	int n = called % 9;
	if (called == low && n + 3 <= 8)
		f |= 1ull << (called + 3);
	if (called == low + 2 && n - 3 >= 0)
		f |= 1ull << (called - 3);
	return f;
}

static unsigned call_options(const hy_engine *e, int s, int t)
{
	const hy_player *p = &e->p[s];
	int k = kind_of(t);
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
	int k = kind_of(t);
	if (!(p->waits >> k & 1) || furiten(p))
		return 0;
	if (ankan && hy_shanten_kokushi(p->cnt, p->nmelds) != 0)
		return 0;
	return hy_engine_win_eval(e, s, e->actor, t, 1, 1, NULL) ? O_RON : 0;
}

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
			if (has_code(p, t) && sh[kind_of(t)] <= 0)
				PUSH(.type = HY_ACT_DISCARD, .tile = (uint8_t)t);
		return n;
	}
	if (p->riichi) {
		PUSH(.type = HY_ACT_DISCARD, .tile = p->drawn);
	} else {
		for (int t = 0; t < HY_TILE_UNKNOWN; t++)
			if (has_code(p, t) && !(e->after_call && (p->kuikae >> kind_of(t) & 1)))
				PUSH(.type = HY_ACT_DISCARD, .tile = (uint8_t)t);
	}
	if (e->after_call)
		return n;
	if (can_riichi(e, s))
		PUSH(.type = HY_ACT_RIICHI);
	if (p->drawn != HY_TILE_NONE && (p->waits >> kind_of(p->drawn) & 1) &&
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
				int k = kind_of(m->tiles[0]);
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
	int t = e->last_tile, k = kind_of(t);
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

static int chi_index(const hy_action *a)
{
	int k = kind_of(a->tile);
	int x = kind_of(a->consumed[0]), y = kind_of(a->consumed[1]);
	int lo = k < x ? (k < y ? k : y) : (x < y ? x : y);
	return HY_A_CHI_LOW + (k - lo);
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
	if (p->drawn != HY_TILE_NONE && (p->waits >> kind_of(p->drawn) & 1) &&
	    hy_engine_win_eval(e, s, s, p->drawn, 0, 1, NULL))
		m |= 1ull << HY_A_WIN;
	if (kan_allowed(e) && !e->abort_kan) {
		for (uint64_t h = p->have; h && !(m >> HY_A_KAN & 1); h &= h - 1) {
			int k = __builtin_ctzll(h);
			if (p->cnt[k] == 4 && ankan_ok(e, s, k))
				m |= 1ull << HY_A_KAN;
		}
		for (int i = 0; i < p->nmelds && !p->riichi; i++)
			if (p->melds[i].type == HY_MELD_PON && p->cnt[kind_of(p->melds[i].tiles[0])])
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
		return kind_of(a->tile) == kind_of(b->tile) &&
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

/* ------------------------------------------------------------ transitions */

static void end_kyoku_abort(hy_engine *e, int kind)
{
	memset(&e->res, 0, sizeof e->res);
	e->res.kind = (uint8_t)kind;
	e->phase = HY_PH_KYOKU_END;
	e->call_pending = 0;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_RYUKYOKU);
		ev.flags = HY_EVF_DELTAS | HY_EVF_SCORES;
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		emit(e, &ev);
	}
}

static void exhaustive_draw(hy_engine *e)
{
	hy_result *r = &e->res;
	memset(r, 0, sizeof *r);
	r->kind = HY_RES_EXHAUSTIVE;
	int nt = 0, nn = 0;
	for (int s = 0; s < 4; s++) {
		r->tenpai[s] = (uint8_t)hy_engine_is_tenpai(&e->p[s]);
		nt += r->tenpai[s];
		r->nagashi[s] = e->p[s].nagashi_ok;
		nn += r->nagashi[s];
	}
	if (nn) {
		for (int s = 0; s < 4; s++) {
			if (!r->nagashi[s])
				continue;
			for (int o = 0; o < 4; o++) {
				if (o == s)
					continue;
				int pay = s == e->oya ? 4000 : (o == e->oya ? 4000 : 2000);
				r->deltas[o] -= pay;
				r->deltas[s] += pay;
			}
		}
	} else if (nt > 0 && nt < 4) {
		for (int s = 0; s < 4; s++)
			r->deltas[s] = r->tenpai[s] ? 3000 / nt : -3000 / (4 - nt);
	}
	for (int s = 0; s < 4; s++)
		e->scores[s] += r->deltas[s];
	e->phase = HY_PH_KYOKU_END;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_RYUKYOKU);
		ev.flags = HY_EVF_DELTAS | HY_EVF_SCORES;
		memcpy(ev.deltas, r->deltas, sizeof ev.deltas);
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		emit(e, &ev);
	}
}

static void emit_hora(hy_engine *e, const hy_win *w)
{
	if (!e->log)
		return;
	hy_event ev;
	hy_event_blank(&ev, HY_EV_HORA);
	ev.actor = w->seat;
	ev.target = w->from;
	ev.pai = w->tile;
	ev.flags = HY_EVF_DELTAS | HY_EVF_SCORES;
	memcpy(ev.deltas, w->deltas, sizeof ev.deltas);
	memcpy(ev.scores, e->scores, sizeof ev.scores);
	if (e->p[w->seat].riichi == 2) {
		ev.flags |= HY_EVF_URA;
		ev.nura = e->nura < e->ndora ? e->nura : e->ndora;
		memcpy(ev.ura, e->ura, ev.nura);
	}
	emit(e, &ev);
}

/* Wins: seats in order from the discarder's right (head bump to the first). */
static void do_wins(hy_engine *e, const uint8_t *seats, int n, int from, int tile, int chankan)
{
	hy_result *r = &e->res;
	memset(r, 0, sizeof *r);
	r->kind = HY_RES_HORA;
	for (int i = 0; i < n && i < 2; i++) {
		hy_win *w = &r->win[r->nwin];
		if (!hy_engine_win_eval(e, seats[i], from, tile, chankan, i == 0, w))
			continue; /* cannot happen: options were checked */
		r->nwin++;
		for (int s = 0; s < 4; s++) {
			r->deltas[s] += w->deltas[s];
			e->scores[s] += w->deltas[s];
		}
		emit_hora(e, w);
		if (i == 0)
			e->kyotaku = 0;
	}
	e->phase = HY_PH_KYOKU_END;
	e->call_pending = 0;
}

static void accept_riichi(hy_engine *e)
{
	int s = e->riichi_seat;
	if (s == 255)
		return;
	e->riichi_seat = 255;
	hy_player *p = &e->p[s];
	p->riichi = 2;
	p->ippatsu = 1;
	e->scores[s] -= 1000;
	e->kyotaku++;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_REACH_ACCEPTED);
		ev.actor = (uint8_t)s;
		ev.flags = HY_EVF_DELTAS | HY_EVF_SCORES;
		ev.deltas[s] = -1000;
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		emit(e, &ev);
	}
}

static void break_ippatsu_and_first(hy_engine *e)
{
	for (int s = 0; s < 4; s++)
		e->p[s].ippatsu = 0;
	e->first_go = 0;
}

static void count_kan(hy_engine *e, int s)
{
	e->nkans++;
	e->p[s].nkans++;
	e->kan_seats |= (uint8_t)(1u << s);
	if (e->nkans == 4 && (e->kan_seats & (e->kan_seats - 1)))
		e->abort_kan = 1;
}

static void check_pao(hy_engine *e, int s, int from)
{
	hy_player *p = &e->p[s];
	int drag = 0, wind = 0;
	for (int i = 0; i < p->nmelds; i++) {
		int k = kind_of(p->melds[i].tiles[0]);
		if (p->melds[i].type == HY_MELD_CHI)
			continue;
		drag += k >= 31;
		wind += k >= 27 && k <= 30;
	}
	int k = kind_of(p->melds[p->nmelds - 1].tiles[0]);
	if ((k >= 31 && drag == 3) || (k >= 27 && k <= 30 && wind == 4))
		p->pao_seat = (uint8_t)from;
}

/* A discard passed every call window with no call: aborts, end or next draw. */
static void after_discard_no_call(hy_engine *e)
{
	int d = e->actor;
	if (e->abort_kan) {
		end_kyoku_abort(e, HY_RES_SUUKAIKAN);
		return;
	}
	if (e->live_left == 0) {
		exhaustive_draw(e);
		return;
	}
	e->actor = (uint8_t)((d + 1) % 4);
	e->phase = HY_PH_DRAW;
}

static void take_called_tile(hy_engine *e, int d)
{
	hy_player *dp = &e->p[d];
	dp->river_flags[dp->nriver - 1] |= HY_RIVER_CALLED;
	dp->nagashi_ok = 0;
}

static void do_call(hy_engine *e, int s, const hy_action *a)
{
	int d = e->actor, t = e->last_tile, k = kind_of(t);
	hy_player *p = &e->p[s];
	take_called_tile(e, d);
	break_ippatsu_and_first(e);
	for (int i = 0; i < a->nconsumed; i++)
		hy_player_remove(p, a->consumed[i]);
	hy_meld *m = &p->melds[p->nmelds];
	memset(m, 0, sizeof *m);
	m->from = (uint8_t)((d - s + 4) % 4);
	m->tiles[0] = (uint8_t)t;
	for (int i = 0; i < a->nconsumed; i++)
		m->tiles[1 + i] = a->consumed[i];
	m->ntiles = (uint8_t)(1 + a->nconsumed);
	p->meld_called[p->nmelds] = (uint8_t)t;
	p->meld_from[p->nmelds] = (uint8_t)d;
	int evt;
	if (a->type == HY_ACT_CHI) {
		m->type = HY_MELD_CHI;
		int lo = chi_index(a) - HY_A_CHI_LOW;
		p->kuikae = chi_forbid(k, k - lo);
		evt = HY_EV_CHI;
	} else if (a->type == HY_ACT_PON) {
		m->type = HY_MELD_PON;
		p->kuikae = 1ull << k;
		evt = HY_EV_PON;
	} else {
		m->type = HY_MELD_MINKAN;
		evt = HY_EV_DAIMINKAN;
	}
	p->nmelds++;
	if (a->type != HY_ACT_CHI)
		check_pao(e, s, d);
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, (hy_ev_type)evt);
		ev.actor = (uint8_t)s;
		ev.target = (uint8_t)d;
		ev.pai = (uint8_t)t;
		ev.nconsumed = a->nconsumed;
		memcpy(ev.consumed, a->consumed, a->nconsumed);
		emit(e, &ev);
	}
	e->actor = (uint8_t)s;
	p->drawn = HY_TILE_NONE;
	if (a->type == HY_ACT_DAIMINKAN) {
		count_kan(e, s);
		e->pending_dora++;
		e->draw_rinshan = 1;
		e->phase = HY_PH_DRAW;
	} else {
		e->after_call = 1;
		e->rinshan = 0;
		e->phase = HY_PH_TURN;
	}
}

/* Resolves a finished call window (CALL phase). */
static void resolve_call(hy_engine *e)
{
	int d = e->actor, t = e->last_tile, k = kind_of(t);
	uint8_t ron[3];
	int nron = 0;
	for (int i = 1; i < 4; i++) {
		int s = (d + i) % 4;
		if (e->call_opts[s] && e->call_choice[s].type == HY_ACT_RON)
			ron[nron++] = (uint8_t)s;
	}
	/* Missed wins: furiten. */
	for (int s = 0; s < 4; s++) {
		hy_player *p = &e->p[s];
		if (s == d || !(p->waits >> k & 1) || (e->call_opts[s] && e->call_choice[s].type == HY_ACT_RON))
			continue;
		p->temp_furiten = 1;
		if (p->riichi == 2)
			p->riichi_furiten = 1;
	}
	if (nron == 3) {
		e->riichi_seat = 255;
		end_kyoku_abort(e, HY_RES_SANCHAHOU);
		return;
	}
	if (nron) {
		e->riichi_seat = 255;
		do_wins(e, ron, nron, d, t, 0);
		return;
	}
	accept_riichi(e);
	int ariichi = 0;
	for (int s = 0; s < 4; s++)
		ariichi += e->p[s].riichi == 2;
	if (ariichi == 4) {
		end_kyoku_abort(e, HY_RES_SUUCHA);
		return;
	}
	if (e->ndiscards == 4 && e->first_go && e->suufon_kind != 255) {
		end_kyoku_abort(e, HY_RES_SUUFON);
		return;
	}
	if (e->abort_kan) {
		end_kyoku_abort(e, HY_RES_SUUKAIKAN);
		return;
	}
	int caller = -1;
	for (int i = 1; i < 4 && caller < 0; i++) {
		int s = (d + i) % 4;
		int ty = e->call_choice[s].type;
		if (e->call_opts[s] && (ty == HY_ACT_PON || ty == HY_ACT_DAIMINKAN))
			caller = s;
	}
	int ds = (d + 1) % 4;
	if (caller < 0 && e->call_opts[ds] && e->call_choice[ds].type == HY_ACT_CHI)
		caller = ds;
	e->call_pending = 0;
	if (caller >= 0) {
		hy_action a = e->call_choice[caller];
		do_call(e, caller, &a);
		return;
	}
	after_discard_no_call(e);
}

static void open_call_window(hy_engine *e)
{
	int d = e->actor, t = e->last_tile;
	e->call_pending = 0;
	for (int s = 0; s < 4; s++) {
		e->call_opts[s] = 0;
		e->call_choice[s].type = HY_ACT_NONE;
		if (s == d)
			continue;
		unsigned o = call_options(e, s, t);
		e->call_opts[s] = (uint8_t)o;
		if (o)
			e->call_pending |= (uint8_t)(1u << s);
	}
	e->phase = HY_PH_CALL;
	if (!e->call_pending)
		resolve_call(e);
}

static void do_discard(hy_engine *e, int s, int t, int riichi_decl)
{
	hy_player *p = &e->p[s];
	int k = kind_of(t);
	int tsumogiri = p->drawn != HY_TILE_NONE && p->drawn == t;
	hy_player_remove(p, t);
	if (p->nriver < 32) {
		p->river[p->nriver] = (uint8_t)t;
		p->river_flags[p->nriver] = (uint8_t)((tsumogiri ? HY_RIVER_TSUMOGIRI : 0) |
						      (riichi_decl ? HY_RIVER_RIICHI : 0));
		p->nriver++;
	}
	p->discarded |= 1ull << k;
	p->temp_furiten = 0;
	p->drawn = HY_TILE_NONE;
	p->kuikae = 0;
	if (!is_yaochu(k))
		p->nagashi_ok = 0;
	if (p->ippatsu && !riichi_decl)
		p->ippatsu = 0;
	if (riichi_decl)
		e->riichi_seat = (uint8_t)s;
	/* suufon renda: the first four discards, one wind, no call */
	e->ndiscards++;
	if (e->ndiscards == 1)
		e->suufon_kind = (k >= 27 && k <= 30) ? (uint8_t)k : 255;
	else if (e->ndiscards <= 4 && k != e->suufon_kind)
		e->suufon_kind = 255;
	e->after_call = 0;
	e->rinshan = 0;
	reveal_pending(e);
	update_waits(p);
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_DAHAI);
		ev.actor = (uint8_t)s;
		ev.pai = (uint8_t)t;
		ev.tsumogiri = (uint8_t)tsumogiri;
		ev.flags = HY_EVF_TSUMOGIRI;
		emit(e, &ev);
	}
	e->last_tile = (uint8_t)t;
	e->actor = (uint8_t)s;
	open_call_window(e);
}

static void do_kan_self(hy_engine *e, int s, const hy_action *a)
{
	hy_player *p = &e->p[s];
	int k = kind_of(a->tile);
	p->drawn = HY_TILE_NONE;
	/* Ippatsu and the first go-around break only once the chankan window
	 * has passed (a chankan keeps ippatsu). Pending daiminkan/kakan
	 * indicators wait for the discard, except before an ankan's own. */
	if (a->type == HY_ACT_ANKAN) {
		reveal_pending(e);
		hy_meld *m = &p->melds[p->nmelds];
		memset(m, 0, sizeof *m);
		m->type = HY_MELD_ANKAN;
		m->from = HY_FROM_SELF;
		m->ntiles = 4;
		int j = 0;
		int r = hy_tile_red_of(k);
		if (r >= 0 && p->red[k / 9])
			m->tiles[j++] = (uint8_t)r;
		while (j < 4)
			m->tiles[j++] = (uint8_t)k;
		for (int i = 0; i < 4; i++)
			hy_player_remove(p, m->tiles[i]);
		p->meld_called[p->nmelds] = HY_TILE_NONE;
		p->meld_from[p->nmelds] = (uint8_t)s;
		p->nmelds++;
		count_kan(e, s);
		if (e->log) {
			hy_event ev;
			hy_event_blank(&ev, HY_EV_ANKAN);
			ev.actor = (uint8_t)s;
			ev.nconsumed = 4;
			memcpy(ev.consumed, m->tiles, 4);
			emit(e, &ev);
		}
		reveal_now(e);
		update_waits(p);
		e->last_tile = (uint8_t)k;
		e->chankan_ankan = 1;
	} else {
		int i;
		for (i = 0; i < p->nmelds; i++)
			if (p->melds[i].type == HY_MELD_PON && kind_of(p->melds[i].tiles[0]) == k)
				break;
		hy_meld *m = &p->melds[i];
		hy_player_remove(p, a->tile);
		m->type = HY_MELD_KAKAN;
		m->tiles[3] = a->tile;
		m->ntiles = 4;
		count_kan(e, s);
		if (e->log) {
			hy_event ev;
			hy_event_blank(&ev, HY_EV_KAKAN);
			ev.actor = (uint8_t)s;
			ev.pai = a->tile;
			ev.nconsumed = 3;
			memcpy(ev.consumed, m->tiles, 3);
			emit(e, &ev);
		}
		update_waits(p);
		e->last_tile = a->tile;
		e->chankan_ankan = 0;
	}
	/* chankan window */
	e->actor = (uint8_t)s;
	e->call_pending = 0;
	for (int o = 0; o < 4; o++) {
		e->call_opts[o] = 0;
		e->call_choice[o].type = HY_ACT_NONE;
		if (o == s)
			continue;
		unsigned op = chankan_options(e, o, e->last_tile, e->chankan_ankan);
		e->call_opts[o] = (uint8_t)op;
		if (op)
			e->call_pending |= (uint8_t)(1u << o);
	}
	e->phase = HY_PH_CHANKAN;
}

static void resolve_chankan(hy_engine *e)
{
	int s = e->actor, t = e->last_tile, k = kind_of(t);
	uint8_t ron[3];
	int nron = 0;
	for (int i = 1; i < 4; i++) {
		int o = (s + i) % 4;
		if (e->call_opts[o] && e->call_choice[o].type == HY_ACT_RON)
			ron[nron++] = (uint8_t)o;
	}
	for (int o = 0; o < 4; o++) {
		hy_player *p = &e->p[o];
		if (o == s || !(p->waits >> k & 1) ||
		    (e->call_opts[o] && e->call_choice[o].type == HY_ACT_RON))
			continue;
		p->temp_furiten = 1;
		if (p->riichi == 2)
			p->riichi_furiten = 1;
	}
	e->call_pending = 0;
	if (nron == 3) {
		end_kyoku_abort(e, HY_RES_SANCHAHOU);
		return;
	}
	if (nron) {
		do_wins(e, ron, nron, s, t, 1);
		return;
	}
	break_ippatsu_and_first(e);
	if (!e->chankan_ankan)
		e->pending_dora++;
	e->draw_rinshan = 1;
	e->phase = HY_PH_DRAW;
}

static hy_status illegal(hy_engine *e, int seat, const hy_action *a, hy_diag *d)
{
	char st[160];
	hy_engine_describe(e, st, sizeof st);
	return hy_diag_set(d, HY_EUSAGE, 0, "seat %d: illegal action type %d tile %s (%s)", seat,
			   a->type, a->tile < HY_TILE_CODES ? hy_tile_to_mjai(a->tile) : "-", st);
}

hy_status hy_engine_act(hy_engine *e, int seat, const hy_action *a, hy_diag *d)
{
	if (seat < 0 || seat > 3 || !hy_engine_is_legal(e, seat, a))
		return illegal(e, seat, a, d);
	return hy_engine_apply(e, seat, a, d);
}

hy_status hy_engine_apply(hy_engine *e, int seat, const hy_action *a, hy_diag *d)
{
	hy_player *p = &e->p[seat];
	switch (e->phase) {
	case HY_PH_TURN:
	case HY_PH_RIICHI:
		switch (a->type) {
		case HY_ACT_DISCARD:
			do_discard(e, seat, a->tile, e->phase == HY_PH_RIICHI);
			return HY_OK;
		case HY_ACT_RIICHI:
			p->riichi = 1;
			p->double_riichi = e->first_go && p->nriver == 0;
			emit_simple(e, HY_EV_REACH, seat, HY_NO_SEAT, HY_TILE_NONE);
			e->phase = HY_PH_RIICHI;
			return HY_OK;
		case HY_ACT_TSUMO: {
			uint8_t w = (uint8_t)seat;
			do_wins(e, &w, 1, seat, p->drawn, 0);
			return HY_OK;
		}
		case HY_ACT_ANKAN:
		case HY_ACT_KAKAN:
			do_kan_self(e, seat, a);
			if (!e->call_pending)
				resolve_chankan(e);
			return HY_OK;
		case HY_ACT_KYUUSHU:
			end_kyoku_abort(e, HY_RES_KYUUSHU);
			if (e->log)
				e->log->ev[e->log->n - 1].actor = (uint8_t)seat,
				e->log->ev[e->log->n - 1].flags |= HY_EVF_ACTOR;
			return HY_OK;
		default:
			return illegal(e, seat, a, d);
		}
	case HY_PH_CALL:
	case HY_PH_CHANKAN:
		e->call_choice[seat] = *a;
		e->call_pending &= (uint8_t)~(1u << seat);
		if (!e->call_pending) {
			if (e->phase == HY_PH_CALL)
				resolve_call(e);
			else
				resolve_chankan(e);
		}
		return HY_OK;
	default:
		return illegal(e, seat, a, d);
	}
}

/* ------------------------------------------------------------ game flow */

static int top_seat(const int32_t s[4])
{
	int best = 0;
	for (int i = 1; i < 4; i++)
		if (s[i] > s[best])
			best = i;
	return best;
}

static void finish_game(hy_engine *e)
{
	int top = top_seat(e->scores);
	e->scores[top] += 1000 * e->kyotaku;
	e->kyotaku = 0;
	for (int s = 0; s < 4; s++) {
		int r = 0;
		for (int o = 0; o < 4; o++)
			if (e->scores[o] > e->scores[s] || (e->scores[o] == e->scores[s] && o < s))
				r++;
		e->rank[s] = (uint8_t)r;
	}
	memcpy(e->final_scores, e->scores, sizeof e->scores);
	e->phase = HY_PH_GAME_END;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_END_GAME);
		ev.flags = HY_EVF_SCORES;
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		emit(e, &ev);
	}
}

void hy_engine_next_kyoku(hy_engine *e)
{
	if (e->phase != HY_PH_KYOKU_END)
		return;
	emit_simple(e, HY_EV_END_KYOKU, HY_NO_SEAT, HY_NO_SEAT, HY_TILE_NONE);
	const hy_result *r = &e->res;
	int renchan, dealer_won = 0, nondealer_won = 0;
	for (int i = 0; i < r->nwin; i++) {
		if (r->win[i].seat == e->oya)
			dealer_won = 1;
		else
			nondealer_won = 1;
	}
	int drawn = r->kind != HY_RES_HORA;
	if (r->kind == HY_RES_HORA)
		renchan = dealer_won;
	else if (r->kind == HY_RES_EXHAUSTIVE)
		renchan = r->tenpai[e->oya];
	else
		renchan = 1;
	(void)nondealer_won;
	for (int s = 0; s < 4; s++)
		if (e->scores[s] < 0) {
			finish_game(e);
			return;
		}
	int idx = e->bakaze * 4 + e->kyoku;
	int last = e->rules.length * 4 - 1;
	int hard = last + 4;
	int any_target = 0;
	for (int s = 0; s < 4; s++)
		any_target |= e->scores[s] >= e->rules.target;
	int aborted = r->kind != HY_RES_HORA && r->kind != HY_RES_EXHAUSTIVE;
	if (renchan) {
		if (idx >= last && !aborted && top_seat(e->scores) == e->oya &&
		    e->scores[e->oya] >= e->rules.target) {
			finish_game(e);
			return;
		}
		e->honba++;
	} else {
		if (idx >= hard || (idx >= last && any_target)) {
			finish_game(e);
			return;
		}
		idx++;
		e->bakaze = (uint8_t)(idx / 4);
		e->kyoku = (uint8_t)(idx % 4);
		e->oya = (uint8_t)((e->oya + 1) % 4);
		e->honba = drawn ? (uint8_t)(e->honba + 1) : 0;
	}
	e->phase = HY_PH_NEW_KYOKU;
}

/* ------------------------------------------------------------ inspection */

void hy_engine_count_tiles(const hy_engine *e, uint8_t cnt[HY_TILE_CODES])
{
	memset(cnt, 0, HY_TILE_CODES);
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		for (int k = 0; k < 34; k++)
			cnt[k] += (uint8_t)plain_count(p, k);
		for (int i = 0; i < 3; i++)
			cnt[HY_TILE_5MR + i] += p->red[i];
		for (int i = 0; i < p->nmelds; i++)
			for (int j = 0; j < p->melds[i].ntiles; j++) {
				/* the called tile is counted in the discarder's river */
				if (j == 0 && p->melds[i].type != HY_MELD_ANKAN)
					continue;
				cnt[p->melds[i].tiles[j]]++;
			}
		for (int i = 0; i < p->nriver; i++)
			cnt[p->river[i]]++;
	}
}

int hy_engine_describe(const hy_engine *e, char *buf, int size)
{
	static const char *ph[] = {"new_kyoku", "draw", "turn", "riichi", "call", "chankan",
				   "kyoku_end", "game_end"};
	char hand[64];
	int s = e->actor < 4 ? e->actor : 0;
	const hy_player *p = &e->p[s];
	uint8_t t[14];
	int n = 0;
	for (int k = 0; k < 34 && n < 14; k++) {
		int pl = plain_count(p, k);
		if (hy_tile_red_of(k) >= 0 && p->red[k / 9] && n < 14)
			t[n++] = 0 + (uint8_t)hy_tile_red_of(k);
		for (int i = 0; i < pl && n < 14; i++)
			t[n++] = (uint8_t)k;
	}
	hy_mpsz_format(t, n, hand, sizeof hand);
	return snprintf(buf, (size_t)size, "%c%d-%d %s actor %d hand %s melds %d live %d",
			"ESWN"[e->bakaze & 3], e->kyoku + 1, e->honba,
			e->phase < 8 ? ph[e->phase] : "?", e->actor, hand, p->nmelds, e->live_left);
}
