/* Game → samples (see encode.h). */
#include "encode/encode.h"
#include "core/grow.h"

#include "events/permute.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "core/perm.h"
#include "core/tile.h"
#include "encode/obs.h"
#include "engine/engine.h"
#include "engine/replay.h"

struct hy_encoder {
	hy_encode_opts opt;
	hy_encode_stats st;
	hy_sample *buf;
	size_t n, cap;
	hy_obs_track trk;
	/* the game being encoded */
	const hy_game *g;
	uint64_t id;
	hy_diag *d;
	hy_status err;
	size_t kyoku_first;  /* first sample of the open kyoku */
	int kyoku_open;
	int32_t kyoku_start[4];
	uint16_t step;
	int have_end;
	int32_t end_scores[4];
	uint64_t mismatches;
};

hy_status hy_encoder_new(hy_encoder **enc, const hy_encode_opts *o)
{
	hy_encoder *x = calloc(1, sizeof *x);
	if (!x)
		return HY_ENOMEM;
	if (o)
		x->opt = *o;
	*enc = x;
	return HY_OK;
}

void hy_encoder_free(hy_encoder *enc)
{
	if (!enc)
		return;
	free(enc->buf);
	free(enc);
}

const hy_encode_stats *hy_encoder_stats(const hy_encoder *enc)
{
	return &enc->st;
}

/* Sorts n tile bytes in ascending order (an insertion sort: n ≤ 13). */
static void sort_bytes(uint8_t *t, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
			uint8_t x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
}

/* The play of one event, independent of where and how it was written: no
 * provenance (line), no presence flags, names or unknown fields, consumed
 * tiles in ascending order (formats list them in different orders), no
 * actor of a ryukyoku (an optional field: the kyuushu's declarer is the
 * drawer before it). 48 bytes. */
static void event_play(const hy_event *e, int perm, uint8_t out[48])
{
	memset(out, 0, 48);
	out[0] = e->type;
	out[1] = e->type == HY_EV_RYUKYOKU ? HY_NO_SEAT : e->actor;
	out[2] = e->target;
	out[3] = hy_tile_permute(perm, e->pai);
	out[4] = e->nconsumed;
	for (int k = 0; k < 4; k++)
		out[5 + k] = hy_tile_permute(perm, e->consumed[k]);
	sort_bytes(out + 5, e->nconsumed <= 4 ? e->nconsumed : 4);
	if (e->type == HY_EV_START_KYOKU) {
		out[9] = e->bakaze;
		out[10] = e->kyoku;
		out[11] = e->honba;
		out[12] = e->kyotaku;
		out[13] = e->oya;
	}
	if (e->type == HY_EV_START_KYOKU || e->type == HY_EV_DORA)
		out[14] = hy_tile_permute(perm, e->dora_marker);
	for (int s = 0; s < 4; s++)
		for (int k = 0; k < 4; k++)
			out[16 + 4 * s + k] = (uint8_t)((uint32_t)e->scores[s] >> (8 * k));
	if (e->type != HY_EV_START_KYOKU && e->type != HY_EV_END_GAME)
		memset(out + 16, 0, 16); /* scores only where they are the game's state */
}

/* Feeds one event's play (and a start_kyoku's sorted hands) to c. */
static int hash_event(EVP_MD_CTX *c, const hy_event *e, int perm)
{
	uint8_t rec[48], hands[4][13];
	event_play(e, perm, rec);
	if (EVP_DigestUpdate(c, rec, sizeof rec) != 1)
		return 0;
	if (e->type != HY_EV_START_KYOKU)
		return 1;
	for (int s = 0; s < 4; s++) { /* a hand is a set: sorted */
		for (int k = 0; k < 13; k++)
			hands[s][k] = hy_tile_permute(perm, e->tehais[s][k]);
		sort_bytes(hands[s], 13);
	}
	return EVP_DigestUpdate(c, hands, sizeof hands) == 1;
}

/* The content hash of the game with its suits permuted by perm. */
static hy_status content_hash(const hy_game *g, int perm, uint64_t *id, hy_diag *d)
{
	uint8_t md[EVP_MAX_MD_SIZE];
	static const char tag[] = "hydra/game-content/2";
	unsigned int mdlen = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1 &&
		 EVP_DigestUpdate(c, tag, sizeof tag) == 1;
	for (size_t i = 0; ok && i < g->n;) {
		/* the indicators of a daiminkan or kakan, revealed with the
		 * discard after the replacement draw, stand before that dahai
		 * in some logs (the engine's) and after it in others (Tenhou's,
		 * tenhou/builder.h): a run of dora events right before a dahai
		 * is hashed after it */
		size_t k = i;
		while (k < g->n && g->ev[k].type == HY_EV_DORA)
			k++;
		if (k > i && k < g->n && g->ev[k].type == HY_EV_DAHAI) {
			ok = hash_event(c, &g->ev[k], perm);
			for (size_t j = i; ok && j < k; j++)
				ok = hash_event(c, &g->ev[j], perm);
			i = k + 1;
		} else {
			ok = hash_event(c, &g->ev[i], perm);
			i++;
		}
	}
	ok = ok && EVP_DigestFinal_ex(c, md, &mdlen) == 1 && mdlen == 32;
	EVP_MD_CTX_free(c);
	if (!ok)
		return hy_diag_set(d, HY_EIO, 0, "%s:%d: SHA-256 (libcrypto EVP_Digest*) failed",
				   __FILE__, __LINE__);
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | md[i];
	*id = v;
	return HY_OK;
}

hy_status hy_encode_game_id(const hy_game *g, uint64_t *id, hy_diag *d)
{
	uint64_t best = UINT64_MAX;
	for (int p = 0; p < HY_SUIT_PERMS; p++) {
		uint64_t v;
		hy_status st = content_hash(g, p, &v, d);
		if (st)
			return st;
		if (v < best)
			best = v;
	}
	*id = best;
	return HY_OK;
}

int hy_action_class(int a)
{
	if (a < HY_A_RIICHI)
		return 0;
	if (a == HY_A_RIICHI)
		return 1;
	if (a <= HY_A_CHI_HIGH)
		return 2;
	return 3 + (a - HY_A_PON);
}

const char *hy_action_class_name(int cls)
{
	static const char *const names[HY_ACTION_CLASSES] = {
		"discard", "riichi", "chi", "pon", "kan", "win", "kyuushu", "pass"};
	return cls >= 0 && cls < HY_ACTION_CLASSES ? names[cls] : NULL;
}

void hy_encode_final_labels(const int32_t scores[4], uint8_t rank[4], uint8_t grp[4])
{
	uint8_t order[4]; /* seats from 1st to 4th */
	for (int s = 0; s < 4; s++) {
		int r = 0;
		for (int o = 0; o < 4; o++)
			r += scores[o] > scores[s] || (scores[o] == scores[s] && o < s);
		rank[s] = (uint8_t)r;
		order[r] = (uint8_t)s;
	}
	for (int obs = 0; obs < 4; obs++) {
		uint8_t rel[4];
		for (int r = 0; r < 4; r++)
			rel[r] = (uint8_t)((order[r] - obs + 4) % 4);
		grp[obs] = (uint8_t)hy_perm_index(rel, 4);
	}
}

/* ------------------------------------------------------------ samples */

static hy_status fail(hy_encoder *x, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static hy_status fail(hy_encoder *x, size_t i, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	uint32_t line = i < x->g->n ? x->g->ev[i].line : 0;
	if (x->d) {
		x->d->game = x->g->index;
		hy_diag_set(x->d, HY_EDATA, line, "game %u, event %zu (%s): %s", x->g->index + 1,
			    i + 1, i < x->g->n ? hy_ev_type_name(x->g->ev[i].type) : "end", msg);
	}
	x->err = HY_EDATA;
	return HY_EDATA;
}

static hy_status grow(hy_encoder *x)
{
	return HY_GROW(x->buf, x->cap, x->n + 1, 256) ? HY_ENOMEM : HY_OK;
}

void hy_encode_opp_labels(const hy_engine *e, int seat, hy_sample *s)
{
	s->flags |= HY_SAMPLE_F_OPP_KNOWN;
	for (int o = 0; o < 3; o++) {
		const hy_player *p = &e->p[(seat + o + 1) % 4];
		if (p->nconc % 3 != 1)
			continue;
		uint64_t w = p->waits;
		for (uint64_t m = w; m; m &= m - 1) {
			int k = __builtin_ctzll(m);
			int have = p->cnt[k];
			for (int i = 0; i < p->nmelds; i++)
				for (int j = 0; j < p->melds[i].ntiles; j++)
					have += hy_tile_kind(p->melds[i].tiles[j]) == k;
			if (have >= 4)
				w &= ~(1ull << k);
		}
		if (w) {
			s->opp_tenpai |= (uint8_t)(1u << o);
			s->opp_waits[o] = w;
			if (hy_player_furiten(p))
				s->flags |= (uint8_t)HY_SAMPLE_F_FURITEN_OF(o);
		}
	}
}

static const char *action_name(int a, char *buf, size_t n)
{
	static const char *const names[] = {"riichi", "chi-low", "chi-mid", "chi-high", "pon",
					    "kan",    "win",     "kyuushu", "pass"};
	if (a >= 0 && a < HY_A_RIICHI)
		snprintf(buf, n, "discard %s", hy_tile_to_mjai(a));
	else if (a >= HY_A_RIICHI && a < HY_A_COUNT)
		snprintf(buf, n, "%s", names[a - HY_A_RIICHI]);
	else
		snprintf(buf, n, "#%d", a);
	return buf;
}

/* One decision of seat with label `a` at event i. */
static hy_status decide(hy_encoder *x, const hy_engine *e, int seat, int a, size_t i)
{
	uint64_t mask = hy_engine_legal_mask(e, seat);
	if (a < 0 || a >= HY_A_COUNT || !(mask >> a & 1)) {
		char nb[32], st[200];
		hy_engine_describe(e, st, sizeof st);
		return fail(x, i, "label %d (%s) of seat %d is not legal (mask %#llx); state: %s", a,
			    action_name(a, nb, sizeof nb), seat, (unsigned long long)mask, st);
	}
	if (__builtin_popcountll(mask) < 2)
		return HY_OK; /* no choice */
	uint16_t step = x->step++;
	if (x->opt.seats && !(x->opt.seats >> seat & 1)) {
		x->st.filtered++;
		return HY_OK;
	}
	if (grow(x) != HY_OK)
		return x->err = HY_ENOMEM;
	hy_sample *s = &x->buf[x->n++];
	memset((char *)s + sizeof s->obs, 0, sizeof *s - sizeof s->obs);
	hy_obs_encode(e, &x->trk, seat, s->obs);
	s->mask = mask;
	s->action = (uint8_t)a;
	s->game = x->id;
	s->seat = (uint8_t)seat;
	s->grand_kyoku = (uint8_t)(e->bakaze * 4 + e->kyoku);
	s->honba = e->honba;
	s->step = step;
	hy_encode_opp_labels(e, seat, s);
	if (x->opt.on_sample)
		x->opt.on_sample(x->opt.u, e, &x->trk, seat, s);
	return HY_OK;
}

/* A decision on one's own turn: the actor's next action. */
static hy_status turn(hy_encoder *x, const hy_engine *e, const hy_event *ev, size_t i)
{
	int a = e->actor, label = -1;
	switch (ev->type) {
	case HY_EV_DAHAI:
		if (ev->actor == a && ev->pai < HY_TILE_UNKNOWN)
			label = ev->pai;
		break;
	case HY_EV_REACH:
		if (ev->actor == a && e->phase == HY_PH_TURN)
			label = HY_A_RIICHI;
		break;
	case HY_EV_ANKAN:
	case HY_EV_KAKAN:
		if (ev->actor == a && e->phase == HY_PH_TURN)
			label = HY_A_KAN;
		break;
	case HY_EV_HORA:
		if (ev->actor == a && (ev->target == a || ev->target > 3))
			label = HY_A_WIN;
		break;
	case HY_EV_RYUKYOKU:
		if (e->phase == HY_PH_TURN)
			label = HY_A_KYUUSHU;
		break;
	default:
		break;
	}
	return label < 0 ? HY_OK : decide(x, e, a, label, i);
}

/* The samples of a call (or chankan) window, at the event that closes it. */
static hy_status window(hy_encoder *x, const hy_engine *e, size_t i)
{
	const hy_game *g = x->g;
	const hy_event *ev = &g->ev[i];
	unsigned winners = 0;
	int caller = -1, label_caller = -1;
	switch (ev->type) {
	case HY_EV_HORA:
		for (size_t j = i; j < g->n && g->ev[j].type == HY_EV_HORA; j++)
			if (g->ev[j].actor < 4)
				winners |= 1u << g->ev[j].actor;
		break;
	case HY_EV_CHI:
	case HY_EV_PON:
	case HY_EV_DAIMINKAN: {
		if (e->phase != HY_PH_CALL || ev->actor > 3)
			return HY_OK;
		hy_action act = {.type = ev->type == HY_EV_CHI   ? HY_ACT_CHI
					 : ev->type == HY_EV_PON ? HY_ACT_PON
								 : HY_ACT_DAIMINKAN,
				 .tile = ev->pai,
				 .nconsumed = ev->nconsumed};
		memcpy(act.consumed, ev->consumed, 4);
		caller = ev->actor;
		label_caller = hy_engine_index_of(e, caller, &act);
		break;
	}
	case HY_EV_TSUMO:
		break;
	case HY_EV_RYUKYOKU: {
		if (e->phase != HY_PH_CALL)
			return HY_OK;
		if (e->live_left == 0)
			break; /* exhaustive draw: nobody took the last discard */
		unsigned ron = 0;
		for (int s = 0; s < 4; s++)
			if ((e->call_pending >> s & 1) &&
			    (hy_engine_legal_mask(e, s) >> HY_A_WIN & 1))
				ron |= 1u << s;
		if (__builtin_popcount(ron) != 3)
			return HY_OK; /* an abortive draw: ambiguous */
		winners = ron;    /* sanchahou */
		break;
	}
	default:
		return HY_OK;
	}
	for (int k = 1; k < 4; k++) {
		int s = (e->actor + k) % 4;
		if (!(e->call_pending >> s & 1))
			continue;
		int label;
		if (winners) {
			if (!(winners >> s & 1))
				continue; /* interrupted by someone's ron */
			label = HY_A_WIN;
		} else if (caller == s) {
			label = label_caller;
		} else if (caller >= 0) {
			uint64_t opts = hy_engine_legal_mask(e, s) & ~(1ull << HY_A_PASS);
			int chi = g->ev[i].type == HY_EV_CHI;
			/* declined only if every option outranks the call made */
			if (!chi && opts != (1ull << HY_A_WIN))
				continue;
			label = HY_A_PASS;
		} else {
			label = HY_A_PASS;
		}
		hy_status st = decide(x, e, s, label, i);
		if (st != HY_OK)
			return st;
	}
	return HY_OK;
}

static void finish_kyoku(hy_encoder *x, const hy_engine *e)
{
	for (size_t j = x->kyoku_first; j < x->n; j++)
		x->buf[j].kyoku_delta = e->scores[x->buf[j].seat] - x->kyoku_start[x->buf[j].seat];
	x->kyoku_open = 0;
}

static void finish_game(hy_encoder *x, const hy_engine *e)
{
	int32_t sc[4];
	if (x->have_end) {
		memcpy(sc, x->end_scores, sizeof sc);
	} else {
		memcpy(sc, e->scores, sizeof sc);
		int top = 0;
		for (int s = 1; s < 4; s++)
			if (sc[s] > sc[top])
				top = s;
		sc[top] += 1000 * e->kyotaku;
	}
	uint8_t rank[4], grp[4];
	hy_encode_final_labels(sc, rank, grp);
	for (size_t j = 0; j < x->n; j++) {
		hy_sample *s = &x->buf[j];
		s->score = sc[s->seat];
		s->rank = rank[s->seat];
		s->grp = grp[s->seat];
	}
}

static hy_status on_event(void *ctx, const hy_engine *e, const hy_game *g, size_t i, int live)
{
	hy_encoder *x = ctx;
	if (x->kyoku_open && e->phase == HY_PH_KYOKU_END)
		finish_kyoku(x, e);
	if (i >= g->n) {
		finish_game(x, e);
		return HY_OK;
	}
	const hy_event *ev = &g->ev[i];
	if (ev->type == HY_EV_START_KYOKU) {
		x->kyoku_open = 1;
		x->kyoku_first = x->n;
		x->step = 0;
		memcpy(x->kyoku_start, (ev->flags & HY_EVF_SCORES) ? ev->scores : e->scores,
		       sizeof x->kyoku_start);
		hy_obs_track_reset(&x->trk);
		return HY_OK;
	}
	if (ev->type == HY_EV_END_GAME && (ev->flags & HY_EVF_SCORES)) {
		x->have_end = 1;
		memcpy(x->end_scores, ev->scores, sizeof x->end_scores);
	}
	if (!live)
		return HY_OK;
	hy_status st = HY_OK;
	if (e->phase == HY_PH_TURN || e->phase == HY_PH_RIICHI)
		st = turn(x, e, ev, i);
	else if ((e->phase == HY_PH_CALL || e->phase == HY_PH_CHANKAN) && e->call_pending &&
		 ev->type != HY_EV_DORA && ev->type != HY_EV_REACH_ACCEPTED)
		st = window(x, e, i);
	if (st == HY_OK)
		hy_obs_track_event(&x->trk, e, ev);
	return st;
}

static hy_status on_issue(void *ctx, const hy_replay_issue *is)
{
	hy_encoder *x = ctx;
	if (is->kind != HY_REPLAY_ILLEGAL) {
		x->mismatches++;
		return HY_OK;
	}
	return fail(x, is->event, "%s", is->msg);
}

hy_status hy_encode_game(hy_encoder *x, const hy_game *g, const hy_sample **out, size_t *n,
			 hy_diag *d)
{
	*out = NULL;
	*n = 0;
	x->st.games++;
	x->g = g;
	x->d = d;
	x->err = HY_OK;
	x->n = 0;
	if (d)
		hy_diag_init(d, g->source);
	x->kyoku_open = 0;
	x->have_end = 0;
	x->mismatches = 0;
	hy_obs_track_reset(&x->trk);
	hy_status st = hy_encode_game_id(g, &x->id, d);
	if (st != HY_OK)
		return st;
	hy_replay_report rep;
	memset(&rep, 0, sizeof rep);
	rep.issue = on_issue;
	rep.before = on_event;
	rep.ctx = x;
	st = hy_replay_game(g, &rep, d);
	if (st == HY_OK && x->err != HY_OK)
		st = x->err;
	if (st != HY_OK) {
		if (st == HY_ENOMEM && d)
			hy_diag_set(d, HY_ENOMEM, 0, "out of memory encoding game %u", g->index + 1);
		x->n = 0;
		return st;
	}
	x->st.kyoku += rep.kyoku;
	x->st.skipped_kyoku += rep.skipped_kyoku;
	x->st.events += rep.events;
	x->st.mismatches += x->mismatches;
	x->st.samples += x->n;
	for (size_t j = 0; j < x->n; j++)
		x->st.per_action[x->buf[j].action]++;
	*out = x->buf;
	*n = x->n;
	return HY_OK;
}
