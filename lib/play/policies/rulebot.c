/* rulebot: the stronger rule teacher and yardstick (ARCHITECTURE.md §9).
 * Deterministic, decides from what its seat can see (the same facts as
 * baseline.c: its own hand, every river and meld, the dora indicators, the
 * riichi flags and the tracker's kinds discarded since each riichi).
 *
 * Threats. Each opponent gets a weight: 1 in riichi; an open hand 0.8 with
 * three or more melds, 0.5 with two melds that show value (dora in the
 * melds, a value-honour pon) and 0.25 with two plain melds; a dealer's
 * threat counts 1.5 times (a dealer's hand pays 1.5 times).
 *
 * Danger of a discard against one threat, in percent of dealing in (a
 * hand-made model after the published deal-in rates against riichi):
 * genbutsu 0 (the kinds the seat discarded, and after its riichi every
 * kind anybody discarded); honours by copies left unseen 0.5/2/5/7; number
 * tiles add 3.5 for each open ryanmen side (a side is closed by suji —
 * the kind three away in the seat's genbutsu — or by a kabe: all four of a
 * kind of the shape visible), 1.2 for an open kanchan, 1.0 for an open
 * penchan, 1.5 (1.0) for shanpon with three (two) copies unseen and 0.3 for
 * tanki; dora count 1.3 times.
 *
 * Push or fold, from the best shanten the discards keep, the hand's value
 * (the exact ron value over the live waits at tenpai, an estimate from
 * dora, yakuhai, tanyao and riichi before) and the wall left: against
 * riichi, tenpai always pushes; one-shanten pushes with a value ≥ 5200
 * (dealer 7800), a lookahead acceptance ≥ 6 and ≥ 24 draws left; anything
 * farther folds. Against open threats only hands two or more away fold,
 * and only from a weight ≥ 0.5. Folding discards the kind of least
 * weighted danger (ties: shanten, acceptance); pushing keeps the best
 * shanten and takes the most live acceptance less 0.3 × the weighted
 * danger — at one-shanten the acceptance is the lookahead of
 * tenpai_quality() (the waits the tenpai will have), at tenpai the live
 * waits plus value / 500, and from two-shanten on each dora kept is worth
 * 3 tiles.
 *
 * Riichi unless the hand is worth ≥ 12000 (dealer 18000) dama with a yaku,
 * or its waits are all visible (dama). Calls: pon of value honours when it
 * does not worsen shanten (as baseline); once the hand holds a yakuhai
 * meld, any chi or pon that lowers shanten; a fast tanyao — chi or pon of
 * a simple that takes a closed hand with at most two terminals or honours
 * and a dora straight to tenpai on the tanyao shanten (the shanten of the
 * hand with terminals and honours removed). While open without a yakuhai
 * meld, discards follow the tanyao shanten, so the hand never reaches a
 * tenpai without a yaku. No kans; kyuushu at 3+ shanten.
 *
 * The thresholds were chosen on duplicate arenas of 400 seeds against
 * three baseline bots at master seeds 0, 3 and 7 (bench/learn/RESULTS.md):
 * folding a tenpai, folding to open threats at one-shanten and calling
 * tanyao from farther away each measured worse.
 *
 * Every number above is a named parameter (play/ruleparams.h), these its
 * defaults; `rulebot:PARAMS` plays other values and hydra-tune searches
 * them. Four parameters whose defaults leave the rules above as they are
 * open other moves: a two-shanten push against riichi from a value
 * (push_far_value), a riichi that needs more live waits or draws
 * (riichi_live, riichi_wall), a tanyao call that need not reach tenpai
 * (call_tanyao_shanten). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "hand/score.h"
#include "hand/shanten.h"
#include "play/policies/policies.h"
#include "play/policies/readercheck.h"
#include "play/policies/rulekit.h"
#include "play/policies/ruleparams.h"
#include "play/policies/waitoracle.h"

/* What a reader gives rulebot (rulebot:...,reader=R.h5,read=MODE): its
 * danger alone (danger), and the threat weights of the opponents rulebot
 * itself sees as threats (threats), or of every opponent (all, the
 * default). */
enum { READ_NONE, READ_DANGER, READ_THREATS, READ_ALL };

/* The policy's state: its numbers and, for rulebot-waits:, the wait oracle
 * that blends its belief with the truth (play/waitoracle.h). */
typedef struct rulebot_impl {
	hy_rule_params P;
	hy_wait_oracle *wo;
	hy_reader_check *rc; /* the wait oracle's reader=, scored beside it, or
			      * (reads) the reader rulebot plays with */
	int reads;           /* rulebot:...,reader=R.h5: its belief is R's, the
			      * READ_* of read= */
} rulebot_impl;

#define PV(v, i) ((v)->P->v[HY_RP_##i])

/* One decision's reading of the table. */
typedef struct view {
	const hy_engine *e;
	const hy_obs_track *t;
	const hy_rule_params *P;
	hy_wait_oracle *wo;   /* NULL: rulebot's own belief */
	hy_reader_check *rc;  /* a reader scored beside the belief, or NULL */
	int reads;            /* the belief is the reader's: rt and rq */
	float rt[4];          /* the reader: seat o tenpai */
	float rq[4][34];      /* the reader: k completes o's hand when tenpai */
	int seat;
	uint8_t vis[34];      /* visible outside the own concealed hand */
	uint8_t vis_all[34];  /* the same plus the own concealed hand */
	uint8_t dora[34];
	float w[4];           /* threat weight of each seat (0 for self) */
	float wsum;
	int riichi_threat;    /* some opponent is in riichi */
} view;

static int is_simple(int k)
{
	return k < 27 && k % 9 != 0 && k % 9 != 8;
}

static int meld_kind(const hy_meld *m)
{
	return hy_tile_kind(m->tiles[0]);
}

/* The seat's open melds hold a value honour (a yaku for sure). */
static int has_yakuhai_meld(const hy_engine *e, int seat)
{
	const hy_player *p = &e->p[seat];
	for (int m = 0; m < p->nmelds; m++) {
		int k = meld_kind(&p->melds[m]);
		if (k >= 27 && hy_rk_is_value_honour(e, seat, k))
			return 1;
	}
	return 0;
}

static int is_open(const hy_player *p)
{
	for (int m = 0; m < p->nmelds; m++)
		if (hy_meld_is_open(&p->melds[m]))
			return 1;
	return 0;
}

/* Some meld holds a terminal or an honour: no tanyao. */
static int melds_break_tanyao(const hy_player *p)
{
	for (int m = 0; m < p->nmelds; m++)
		for (int j = 0; j < p->melds[m].ntiles; j++)
			if (!is_simple(hy_tile_kind(p->melds[m].tiles[j])))
				return 1;
	return 0;
}

static float threat_weight(const view *v, int o)
{
	const hy_engine *e = v->e;
	const hy_player *p = &e->p[o];
	float w = 0;
	if (p->riichi) {
		w = 1.0f;
	} else {
		int open = 0, show = 0;
		for (int m = 0; m < p->nmelds; m++) {
			const hy_meld *md = &p->melds[m];
			if (!hy_meld_is_open(md))
				continue;
			open++;
			for (int j = 0; j < md->ntiles; j++) {
				int k = hy_tile_kind(md->tiles[j]);
				if ((k >= 0 && v->dora[k]) || hy_tile_is_red(md->tiles[j]))
					show = 1;
			}
			int k = meld_kind(md);
			if (k >= 27 && hy_rk_is_value_honour(e, o, k))
				show = 1;
		}
		if (open >= 3)
			w = (float)PV(v, THREAT_OPEN3);
		else if (open == 2)
			w = (float)(show ? PV(v, THREAT_OPEN2V) : PV(v, THREAT_OPEN2));
	}
	if (w > 0 && o == e->oya)
		w *= (float)PV(v, THREAT_DEALER);
	return w;
}

static void view_init(view *v, const hy_decision *r, const rulebot_impl *R)
{
	memset(v, 0, sizeof *v);
	v->P = &R->P;
	v->wo = R->wo;
	v->rc = R->rc;
	v->e = r->e;
	v->t = r->track;
	v->seat = r->seat;
	hy_rk_visible_counts(r->e, v->vis);
	const hy_player *me = &r->e->p[r->seat];
	for (int k = 0; k < 34; k++)
		v->vis_all[k] = (uint8_t)(v->vis[k] + me->cnt[k]);
	hy_rk_dora_counts(r->e, v->dora);
	if (R->reads) { /* the reader's belief; a failed read: rulebot's own */
		double tau[4], q[4][34];
		hy_diag d;
		hy_diag_init(&d, NULL);
		if (hy_reader_check_read(R->rc, r->e, r->track, r->seat, tau, q, &d) == HY_OK) {
			v->reads = R->reads;
			for (int o = 0; o < 4; o++) {
				if (o == r->seat)
					continue;
				v->rt[o] = (float)tau[o];
				for (int k = 0; k < 34; k++)
					v->rq[o][k] = (float)q[o][k];
			}
		}
	}
	for (int o = 0; o < 4; o++) {
		if (o == r->seat)
			continue;
		v->w[o] = threat_weight(v, o);
		if (v->reads == READ_ALL || (v->reads == READ_THREATS && v->w[o] > 0))
			/* w = dealer·τ, τ the reader's */
			v->w[o] = (float)((o == r->e->oya ? PV(v, THREAT_DEALER) : 1.0) * v->rt[o]);
		if (v->wo && hy_wait_oracle_scope(v->wo, r->e, o)) { /* w = dealer·τ */
			double dealer = o == r->e->oya ? PV(v, THREAT_DEALER) : 1.0;
			v->w[o] = (float)(dealer *
				hy_wait_oracle_tenpai(v->wo, r->e, o, v->w[o] / dealer));
		}
		v->wsum += v->w[o];
		if (r->e->p[o].riichi)
			v->riichi_threat = 1;
	}
}

/* 1 if every copy of kind k is visible to the seat. */
static int kabe(const view *v, int k)
{
	return v->vis_all[k] >= 4;
}

/* Percent danger of discarding kind k against seat o (header). */
static float danger_model(const view *v, int o, int k)
{
	const hy_player *p = &v->e->p[o];
	uint64_t gen = p->discarded | (v->t && p->riichi ? v->t->riichi_safe[o] : 0);
	if (gen >> k & 1)
		return 0;
	int left = 4 - v->vis_all[k];
	if (left <= 0)
		return 0;
	float d;
	if (k >= 27) {
		d = (float)v->P->v[HY_RP_D_HONOUR1 + left - 1];
	} else {
		int n = k % 9, b = k - n;
		d = 0;
		/* ryanmen (n-2, n-1) waiting n-3 and n */
		if (n >= 3 && !(gen >> (k - 3) & 1) && !kabe(v, k - 1) && !kabe(v, k - 2))
			d += (float)PV(v, D_RYANMEN);
		/* ryanmen (n+1, n+2) waiting n and n+3 */
		if (n <= 5 && !(gen >> (k + 3) & 1) && !kabe(v, k + 1) && !kabe(v, k + 2))
			d += (float)PV(v, D_RYANMEN);
		/* penchan 1-2 waiting 3, 8-9 waiting 7 */
		if (n == 2 && !kabe(v, b) && !kabe(v, b + 1))
			d += (float)PV(v, D_PENCHAN);
		if (n == 6 && !kabe(v, b + 7) && !kabe(v, b + 8))
			d += (float)PV(v, D_PENCHAN);
		/* kanchan (n-1, n+1) */
		if (n >= 1 && n <= 7 && !kabe(v, k - 1) && !kabe(v, k + 1))
			d += (float)PV(v, D_KANCHAN);
		if (left >= 2)
			d += (float)(left >= 3 ? PV(v, D_SHANPON3) : PV(v, D_SHANPON2));
		d += (float)PV(v, D_TANKI);
	}
	if (v->dora[k])
		d *= (float)PV(v, D_DORA);
	return d;
}

/* The danger the seat plays with: its model's, or the wait oracle's blend. */
static float danger_vs(const view *v, int o, int k)
{
	float d = v->reads ? 100.0f * v->rq[o][k] : danger_model(v, o, k);
	if (v->wo && hy_wait_oracle_scope(v->wo, v->e, o))
		d = (float)hy_wait_oracle_danger(v->wo, v->e, o, k, d);
	return d;
}

void hy_rulebot_belief(const hy_rule_params *P, const hy_decision *r, double tau[4],
	double q[4][34])
{
	rulebot_impl R = {.P = *P};
	view vv;
	view_init(&vv, r, &R);
	const view *v = &vv; /* PV's name */
	for (int o = 0; o < 4; o++) {
		if (o == r->seat)
			continue;
		double dealer = o == r->e->oya ? PV(v, THREAT_DEALER) : 1.0;
		double t = v->w[o] / dealer;
		tau[o] = t < 1 ? t : 1;
		for (int k = 0; k < 34; k++)
			q[o][k] = danger_vs(v, o, k) / 100.0;
	}
}

/* The wait oracle's measurement at one of the seat's discards: the blended
 * deal-in probability τ_α·q_α(k) of every opponent in scope and kind. */
static void tally_waits(const view *v)
{
	double p[4][34];
	for (int o = 0; o < 4; o++) {
		if (o == v->seat || !hy_wait_oracle_scope(v->wo, v->e, o))
			continue;
		double dealer = o == v->e->oya ? PV(v, THREAT_DEALER) : 1.0;
		double tau = v->w[o] / dealer;
		for (int k = 0; k < 34; k++)
			p[o][k] = tau * danger_vs(v, o, k) / 100.0;
	}
	hy_wait_oracle_tally(v->wo, v->e, v->seat, p);
	if (v->rc) { /* the reader on the same cells (a failure: not counted) */
		double q[4][34];
		hy_diag d;
		hy_diag_init(&d, NULL);
		if (hy_reader_check_predict(v->rc, v->e, v->t, v->seat, q, &d) == HY_OK)
			hy_wait_oracle_tally_reader(v->wo, v->e, v->seat, q);
	}
}

/* Weighted danger of kind k against every threat. */
static float danger(const view *v, int k)
{
	float d = 0;
	for (int o = 0; o < 4; o++)
		if (v->w[o] > 0)
			d += v->w[o] * danger_vs(v, o, k);
	return d;
}

/* ------------------------------------------------------------ value */

/* Ron value of a 13-tile concealed hand (counts c, reds as the player's)
 * on kind w, with the player's melds; 0 without a yaku. riichi: score as
 * declared. */
static int32_t ron_value(const view *v, const uint8_t c[34], const uint8_t red[3], int w,
			 int riichi)
{
	const hy_engine *e = v->e;
	const hy_player *p = &e->p[v->seat];
	hy_hand_query q;
	hy_hand_query_init(&q);
	int n = 0;
	for (int k = 0; k < 34; k++) {
		int plain = c[k];
		int rt = hy_tile_red_of(k);
		if (rt >= 0 && red[k / 9] && plain > 0) {
			q.tiles[n++] = (uint8_t)rt;
			plain--;
		}
		for (int i = 0; i < plain && n < 13; i++)
			q.tiles[n++] = (uint8_t)k;
	}
	if (n + 3 * p->nmelds != 13)
		return 0;
	q.tiles[n++] = (uint8_t)w;
	q.ntiles = (uint8_t)n;
	q.nmelds = p->nmelds;
	memcpy(q.melds, p->melds, sizeof q.melds);
	q.win_tile = (uint8_t)w;
	q.tsumo = 0;
	q.seat_wind = (uint8_t)((v->seat - e->oya + 4) % 4);
	q.ron_from = (uint8_t)((q.seat_wind + 1) % 4);
	q.round_wind = e->bakaze;
	q.ndora = e->ndora < 5 ? e->ndora : 5;
	memcpy(q.dora, e->dora_ind, 5);
	if (riichi)
		q.flags |= HY_WIN_RIICHI;
	hy_hand_result res;
	hy_diag d;
	if (hy_score_hand(&q, &res, &d) != HY_OK || res.outcome != HY_HAND_WIN)
		return 0;
	return res.points;
}

/* Tenpai hand (13 concealed-equivalent tiles): live waits and the mean ron
 * value over them (weighted by live copies). */
static int tenpai_value(const view *v, const uint8_t c[34], const uint8_t red[3], int riichi,
			int *live, int32_t *value)
{
	const hy_player *p = &v->e->p[v->seat];
	uint64_t waits = hy_hand_waits(c, p->nmelds);
	int nl = 0;
	double sum = 0;
	for (uint64_t m = waits; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		int l = 4 - v->vis[k] - c[k];
		if (l <= 0)
			continue;
		nl += l;
		sum += (double)l * ron_value(v, c, red, k, riichi);
	}
	*live = nl;
	*value = nl ? (int32_t)(sum / nl) : 0;
	return waits != 0;
}

/* Value estimate of a hand away from tenpai: han from dora (reds and melds
 * included), yakuhai triplets and melds, tanyao shape and riichi (closed). */
static int32_t estimate_value(const view *v, const uint8_t c[34])
{
	const hy_engine *e = v->e;
	const hy_player *p = &e->p[v->seat];
	int han = 0, simples = 1;
	for (int k = 0; k < 34; k++) {
		han += c[k] * v->dora[k];
		if (c[k] >= 3 && k >= 27 && hy_rk_is_value_honour(e, v->seat, k))
			han++;
		if (c[k] && !is_simple(k))
			simples = 0;
	}
	for (int s = 0; s < 3; s++)
		han += p->red[s];
	for (int m = 0; m < p->nmelds; m++) {
		const hy_meld *md = &p->melds[m];
		for (int j = 0; j < md->ntiles; j++) {
			han += v->dora[hy_tile_kind(md->tiles[j])];
			han += hy_tile_is_red(md->tiles[j]);
		}
		int k = meld_kind(md);
		if (k >= 27 && hy_rk_is_value_honour(e, v->seat, k))
			han++;
	}
	if (melds_break_tanyao(p))
		simples = 0;
	han += simples;
	if (!is_open(p))
		han++;
	static const int32_t pts[6] = {1000, 1300, 2600, 5200, 7700, 8000};
	int32_t val = han >= 6 ? 12000 : pts[han];
	if (v->seat == e->oya)
		val = val * 3 / 2;
	return val;
}

/* ------------------------------------------------------------ shanten */

/* Tanyao shanten: the hand with its terminals and honours taken out. */
static int tanyao_shanten(const uint8_t c[34], int nmelds)
{
	uint8_t f[34];
	for (int k = 0; k < 34; k++)
		f[k] = is_simple(k) ? c[k] : 0;
	return hy_shanten_standard(f, nmelds);
}

/* The hand must reach tanyao: open, without a yakuhai meld. */
static int needs_tanyao(const view *v)
{
	const hy_player *p = &v->e->p[v->seat];
	return is_open(p) && !has_yakuhai_meld(v->e, v->seat) && !melds_break_tanyao(p);
}

/* Shanten after discarding each kind (HY_SHANTEN_NA when not held). */
static int discard_shanten(const view *v, uint8_t c[34], int8_t sh[34])
{
	const hy_player *p = &v->e->p[v->seat];
	if (!needs_tanyao(v))
		return hy_shanten_discards(c, p->nmelds, sh);
	int best = HY_SHANTEN_NA;
	for (int k = 0; k < 34; k++) {
		sh[k] = HY_SHANTEN_NA;
		if (!c[k])
			continue;
		c[k]--;
		sh[k] = (int8_t)tanyao_shanten(c, p->nmelds);
		c[k]++;
		if (sh[k] < best)
			best = sh[k];
	}
	return best;
}

/* Live waits of tenpai hands met during one decision's lookahead: the
 * same 13 tiles are reached through many (discard, draw, discard) paths. */
enum { WCACHE = 256 };
typedef struct wcache {
	uint64_t key[WCACHE]; /* hash of the counts, 0 = empty */
	int16_t live[WCACHE];
} wcache;

static uint64_t hand_hash(const uint8_t c[34])
{
	uint64_t h = 1469598103934665603ull;
	for (int k = 0; k < 34; k++)
		h = (h ^ c[k]) * 1099511628211ull;
	return h | 1;
}

/* Live copies of the waits of the 3n+1 hand c (0 when not tenpai, or
 * tanyao-bound and not tenpai on simples alone). */
static int live_waits(const view *v, wcache *wc, const uint8_t c[34], int nmelds, int tanyao)
{
	uint64_t h = hand_hash(c);
	unsigned i = (unsigned)(h >> 40) % WCACHE;
	for (unsigned n = 0; n < 8; n++, i = (i + 1) % WCACHE) {
		if (wc->key[i] == h)
			return wc->live[i];
		if (!wc->key[i])
			break;
	}
	uint64_t w = hy_hand_waits(c, nmelds);
	if (tanyao && w && tanyao_shanten(c, nmelds) > 0)
		w = 0;
	int lw = 0;
	for (; w; w &= w - 1) {
		int k = __builtin_ctzll(w);
		int lk = 4 - v->vis[k] - c[k];
		lw += lk > 0 ? lk : 0;
	}
	if (!wc->key[i]) { /* a full probe run just skips caching */
		wc->key[i] = h;
		wc->live[i] = (int16_t)lw;
	}
	return lw;
}

/* One-shanten lookahead of a 3n+1 hand c: over the draws that reach
 * tenpai, live copies × the most live waits a discard then keeps, / 8
 * (the waits that tenpai will have, so good shapes count more than a
 * wide acceptance into a bad wait). */
static int tenpai_quality(const view *v, wcache *wc, uint8_t c[34], int nmelds, int tanyao)
{
	uint64_t kinds;
	hy_ukeire(c, nmelds, NULL, &kinds);
	int sum = 0;
	for (uint64_t m = kinds; m; m &= m - 1) {
		int d = __builtin_ctzll(m);
		int l = 4 - v->vis[d] - c[d];
		if (l <= 0)
			continue;
		c[d]++;
		int bw = 0;
		int8_t sh[34];
		hy_shanten_discards(c, nmelds, sh);
		for (int j = 0; j < 34; j++) {
			if (!c[j] || sh[j] > 0)
				continue;
			c[j]--;
			int lw = live_waits(v, wc, c, nmelds, tanyao);
			c[j]++;
			if (lw > bw)
				bw = lw;
		}
		c[d]--;
		sum += l * bw;
	}
	return sum;
}

/* ------------------------------------------------------------ discards */

typedef struct cand {
	int sh;       /* shanten kept */
	int ukeire;   /* live acceptance after the discard (at best shanten) */
	int live;     /* tenpai: live waits */
	int32_t value;
	float danger;
} cand;

static void eval_discards(const view *v, uint64_t kinds, int riichi_decl, cand cd[34],
			  int *best_out)
{
	const hy_player *p = &v->e->p[v->seat];
	uint8_t c[34];
	memcpy(c, p->cnt, 34);
	int8_t sh[34];
	discard_shanten(v, c, sh);
	int best = HY_SHANTEN_NA;
	for (uint64_t m = kinds; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		if (sh[k] < best)
			best = sh[k];
	}
	int ncand = 0;
	wcache wc;
	memset(&wc, 0, sizeof wc);
	for (uint64_t m = kinds; m; m &= m - 1)
		ncand += sh[__builtin_ctzll(m)] == best;
	for (uint64_t m = kinds; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		cand *x = &cd[k];
		memset(x, 0, sizeof *x);
		x->sh = sh[k];
		x->danger = v->wsum > 0 ? danger(v, k) : 0;
		if (sh[k] != best)
			continue;
		c[k]--;
		uint8_t red[3];
		memcpy(red, p->red, 3);
		int rt = hy_tile_red_of(k);
		if (rt >= 0 && red[k / 9] && c[k] < red[k / 9])
			red[k / 9]--;
		if (best == 0) {
			int riichi = riichi_decl || p->riichi || !is_open(p);
			tenpai_value(v, c, red, riichi, &x->live, &x->value);
			x->ukeire = x->live;
		} else {
			/* the lookahead only where it can change a choice: several
			 * candidates, or a push/fold question */
			if (best == 1 && (ncand > 1 || v->riichi_threat))
				x->ukeire = tenpai_quality(v, &wc, c, p->nmelds, needs_tanyao(v)) / 8;
			else
				x->ukeire = hy_ukeire(c, p->nmelds, v->vis, NULL);
			x->value = estimate_value(v, c);
		}
		c[k]++;
	}
	*best_out = best;
}

/* Push (1) or fold (0) with the best candidate's figures. */
static int push(const view *v, int best, const cand *top)
{
	if (v->wsum <= 0)
		return 1;
	const hy_engine *e = v->e;
	int dealer = v->seat == e->oya;
	if (v->riichi_threat) {
		if (best <= 0)
			return 1; /* tenpai always pushes (measured: folding it loses) */
		if (best == 1)
			return top->value >= PV(v, PUSH_VALUE) * (dealer ? 1.5 : 1.0) &&
			       top->ukeire >= PV(v, PUSH_ACCEPT) && e->live_left >= PV(v, PUSH_WALL);
		return top->value >= PV(v, PUSH_FAR_VALUE) * (dealer ? 1.5 : 1.0) &&
		       e->live_left >= PV(v, PUSH_WALL);
	}
	float wmax = 0;
	for (int o = 0; o < 4; o++)
		if (v->w[o] > wmax)
			wmax = v->w[o];
	return !(best >= PV(v, FOLD_OPEN_SHANTEN) && wmax >= PV(v, FOLD_OPEN_WEIGHT));
}

static int choose_discard(const view *v, uint64_t legal, int riichi_decl)
{
	const hy_player *p = &v->e->p[v->seat];
	uint64_t kinds = hy_rk_discard_kinds(legal);
	cand cd[34];
	int best;
	eval_discards(v, kinds, riichi_decl, cd, &best);
	/* the best candidate at best shanten by acceptance, for push/fold */
	int top = -1;
	for (uint64_t m = kinds; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		if (cd[k].sh == best && (top < 0 || cd[k].ukeire > cd[top].ukeire ||
					 (cd[k].ukeire == cd[top].ukeire && cd[k].value > cd[top].value)))
			top = k;
	}
	int pushing = riichi_decl || p->riichi || push(v, best, &cd[top]);
	int pick = -1;
	double pscore = 0;
	for (uint64_t m = kinds; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		const cand *x = &cd[k];
		double s;
		if (pushing) {
			if (x->sh != best)
				continue;
			s = x->ukeire - PV(v, SCORE_DANGER) * x->danger;
			if (best == 0)
				s += x->value / PV(v, SCORE_VALUE);
			else if (best >= 2)
				s -= PV(v, SCORE_DORA) * v->dora[k];
		} else {
			s = -100.0 * x->danger - 2.0 * (x->sh - best) + 0.01 * x->ukeire;
		}
		if (pick < 0 || s > pscore + 1e-9 ||
		    (fabs(s - pscore) <= 1e-9 &&
		     hy_rk_keep_key(v->e, v->seat, k) < hy_rk_keep_key(v->e, v->seat, pick))) {
			pick = k;
			pscore = s;
		}
	}
	return hy_rk_discard_index(p, legal, pick);
}

/* Riichi, or dama (header). Decided on the declaration discard the
 * riichi phase would choose. */
static int want_riichi(const view *v, uint64_t legal)
{
	const hy_player *p = &v->e->p[v->seat];
	uint64_t kinds = hy_rk_discard_kinds(legal);
	uint8_t c[34];
	memcpy(c, p->cnt, 34);
	int dealer = v->seat == v->e->oya;
	int any_live = 0, rich_dama = 0;
	for (uint64_t m = kinds; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		c[k]--;
		if (hy_hand_waits(c, p->nmelds)) {
			int live;
			int32_t dama;
			tenpai_value(v, c, p->red, 0, &live, &dama);
			if (live > 0 && live >= PV(v, RIICHI_LIVE))
				any_live = 1;
			if (live > 0 && dama >= PV(v, DAMA_VALUE) * (dealer ? 1.5 : 1.0))
				rich_dama = 1;
		}
		c[k]++;
	}
	return any_live && !rich_dama && v->e->live_left >= PV(v, RIICHI_WALL);
}

/* ------------------------------------------------------------ calls */

/* Best shanten after a call that takes `take` (two kinds, counted) from
 * the hand, with the discard that follows; tanyao: the tanyao shanten. */
static int shanten_after_call(const view *v, const int take[2], int called, int tanyao)
{
	const hy_player *p = &v->e->p[v->seat];
	uint8_t c[34];
	memcpy(c, p->cnt, 34);
	for (int i = 0; i < 2; i++) {
		if (!c[take[i]])
			return HY_SHANTEN_NA;
		c[take[i]]--;
	}
	int best = HY_SHANTEN_NA;
	for (int k = 0; k < 34; k++) {
		if (!c[k] || k == called)
			continue; /* kuikae forbids the called kind */
		c[k]--;
		int s = tanyao ? tanyao_shanten(c, p->nmelds + 1) : hy_shanten(c, p->nmelds + 1);
		c[k]++;
		if (s < best)
			best = s;
	}
	return best;
}

/* The call index (pon or chi) to take, or -1. */
static int choose_call(const view *v, uint64_t legal)
{
	const hy_engine *e = v->e;
	const hy_player *p = &e->p[v->seat];
	int k = hy_tile_kind(e->last_tile);
	if (k < 0 || p->riichi)
		return -1;
	int s0 = hy_shanten(p->cnt, p->nmelds);
	/* value honour pon, as baseline */
	if ((legal >> HY_A_PON & 1) && k >= 27 && hy_rk_is_value_honour(e, v->seat, k)) {
		int take[2] = {k, k};
		return shanten_after_call(v, take, k, 0) <= s0 ? HY_A_PON : -1;
	}
	if (v->riichi_threat)
		return -1;
	int yakuhai = has_yakuhai_meld(e, v->seat);
	int tanyao = 0;
	if (!yakuhai) {
		if (!is_simple(k) || melds_break_tanyao(p) || s0 < 1)
			return -1;
		int bad = 0;
		for (int j = 0; j < 34; j++)
			if (!is_simple(j))
				bad += p->cnt[j];
		if (bad > PV(v, CALL_TERMINALS))
			return -1;
		uint8_t c[34];
		memcpy(c, p->cnt, 34);
		c[k]++;
		int dcount = 0;
		for (int j = 0; j < 34; j++)
			dcount += c[j] * v->dora[j];
		for (int s = 0; s < 3; s++)
			dcount += p->red[s];
		if (dcount < PV(v, CALL_DORA))
			return -1;
		tanyao = 1;
	}
	int now = tanyao ? tanyao_shanten(p->cnt, p->nmelds) : s0;
	int pick = -1, ps = now;
	if (legal >> HY_A_PON & 1) {
		int take[2] = {k, k};
		int s = shanten_after_call(v, take, k, tanyao);
		if (s < ps) {
			ps = s;
			pick = HY_A_PON;
		}
	}
	static const int off[3][2] = {{1, 2}, {-1, 1}, {-2, -1}};
	for (int i = 0; i < 3; i++) {
		if (!(legal >> (HY_A_CHI_LOW + i) & 1))
			continue;
		int take[2] = {k + off[i][0], k + off[i][1]};
		if (tanyao && (!is_simple(take[0]) || !is_simple(take[1])))
			continue;
		int s = shanten_after_call(v, take, k, tanyao);
		if (s < ps) {
			ps = s;
			pick = HY_A_CHI_LOW + i;
		}
	}
	if (tanyao && ps > PV(v, CALL_TANYAO_SHANTEN))
		return -1;
	return pick;
}

/* ------------------------------------------------------------ decide */

static int rulebot_one(const hy_decision *r, const rulebot_impl *R)
{
	const hy_engine *e = r->e;
	uint64_t legal = r->legal;
	if (legal >> HY_A_WIN & 1)
		return HY_A_WIN;
	const hy_player *p = &e->p[r->seat];
	uint64_t dk = hy_rk_discard_kinds(legal);
	if (e->phase == HY_PH_TURN && dk && !(dk & (dk - 1)) && !(legal >> HY_A_KYUUSHU & 1))
		return hy_rk_discard_index(p, legal, __builtin_ctzll(dk)); /* forced: in riichi */
	view v;
	view_init(&v, r, R);
	if (v.wo && (e->phase == HY_PH_TURN || e->phase == HY_PH_RIICHI) &&
	    hy_rk_discard_kinds(legal))
		tally_waits(&v);
	if (e->phase == HY_PH_TURN) {
		if ((legal >> HY_A_KYUUSHU & 1) && hy_shanten(p->cnt, p->nmelds) >= 3)
			return HY_A_KYUUSHU;
		if ((legal >> HY_A_RIICHI & 1) && want_riichi(&v, legal)) {
			/* riichi only where the declaration is a push */
			cand cd[34];
			int best;
			uint64_t kinds = hy_rk_discard_kinds(legal);
			eval_discards(&v, kinds, 1, cd, &best);
			int top = -1;
			for (uint64_t m = kinds; m; m &= m - 1) {
				int k = __builtin_ctzll(m);
				if (cd[k].sh == best && (top < 0 || cd[k].live > cd[top].live))
					top = k;
			}
			if (top >= 0 && push(&v, best, &cd[top]))
				return HY_A_RIICHI;
		}
		if (hy_rk_discard_kinds(legal))
			return choose_discard(&v, legal, 0);
	} else if (e->phase == HY_PH_RIICHI) {
		if (hy_rk_discard_kinds(legal))
			return choose_discard(&v, legal, 1);
	} else if (e->phase == HY_PH_CALL) {
		int c = choose_call(&v, legal);
		if (c >= 0)
			return c;
	}
	if (legal >> HY_A_PASS & 1)
		return HY_A_PASS;
	return __builtin_ctzll(legal); /* nothing else applies (a lone kan) */
}

static hy_status rulebot_decide(hy_policy *p, size_t n, const hy_decision *req, hy_choice *out,
				hy_diag *d)
{
	(void)d;
	for (size_t i = 0; i < n; i++) {
		out[i].index = rulebot_one(&req[i], p->impl);
		out[i].logp = 0.0f;
		out[i].value = 0.0f;
	}
	return HY_OK;
}

static void rulebot_free(hy_policy *p)
{
	rulebot_impl *R = p->impl;
	if (R)
		hy_reader_check_close(R->rc);
	if (R && R->wo) {
		hy_wait_oracle_free(R->wo);
		free(R->wo);
	}
	free(R);
	p->impl = NULL;
}

/* The wait oracle's measurement (play/policy.h's report). */
static int rulebot_report(hy_policy *p, char *buf, size_t cap)
{
	rulebot_impl *R = p->impl;
	if (!R || !R->wo)
		return 0;
	double ll, base;
	uint64_t cells, decisions;
	hy_wait_oracle_result(R->wo, &ll, &base, &cells, &decisions);
	int n = snprintf(buf, cap, "wait belief at alpha %g (%s): log-loss %.5f per cell against "
		"the base rate's %.5f (AUC %.4f), over %llu cells (opponent x kind) at %llu discards",
		R->wo->alpha, R->wo->every ? "every opponent" : "opponents in riichi", ll, base,
		hy_read_tally_auc(&R->wo->belief), (unsigned long long)cells,
		(unsigned long long)decisions);
	const hy_read_tally *t = &R->wo->read;
	if (R->rc && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, "; reader %s on the same cells: log-loss %.5f "
			"(AUC %.4f) over %llu cells", R->wo->reader,
			hy_read_tally_logloss(t), hy_read_tally_auc(t),
			(unsigned long long)t->cells);
	return 1;
}

static const hy_policy_ops rulebot_ops = {rulebot_decide, NULL, rulebot_free, rulebot_report};

/* Takes the item KEY=VALUE (key "reader=") out of a comma-separated spec:
 * *path (malloc'd) its value and the rest (malloc'd, "" when nothing is
 * left); both NULL when the spec has no such item. 0, or −1 out of
 * memory. */
/* 1 when an item of the comma-separated spec starts with key. */
static int has_item(const char *spec, const char *key)
{
	const size_t kl = strlen(key);
	for (const char *at = spec; at; at = strchr(at, ','), at = at ? at + 1 : NULL)
		if (!strncmp(at, key, kl))
			return 1;
	return 0;
}

static int take_item(const char *spec, const char *key, char **path, char **rest)
{
	*path = *rest = NULL;
	const size_t kl = strlen(key);
	const char *at = spec;
	while (at && strncmp(at, key, kl)) {
		at = strchr(at, ',');
		at = at ? at + 1 : NULL;
	}
	if (!at)
		return 0;
	size_t n = strcspn(at + kl, ",");
	*path = strndup(at + kl, n);
	const char *after = at + kl + n;
	size_t before = (size_t)(at - spec);
	*rest = malloc(strlen(spec) + 1);
	if (!*path || !*rest) {
		free(*path);
		free(*rest);
		*path = *rest = NULL;
		return -1;
	}
	/* the items before (without their trailing comma) and after (without
	 * its leading one) */
	memcpy(*rest, spec, before);
	size_t len = before && !*after ? before - 1 : before;
	snprintf(*rest + len, strlen(spec) + 1 - len, "%s", *after ? after + 1 : "");
	return 0;
}

hy_status hy_policy_open_rulebot(hy_policy *p, const char *params, const hy_policy_opts *o,
	hy_diag *d)
{
	(void)o;
	hy_rule_params P;
	hy_rule_params_default(&P);
	char *reader = NULL, *rest = NULL, *mode = NULL, *rest2 = NULL;
	if (params && (take_item(params, "reader=", &reader, &rest) ||
		take_item(reader ? rest : params, "read=", &mode, &rest2))) {
		free(reader);
		free(rest);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	const char *ps = mode ? rest2 : reader ? rest : params;
	hy_status st = HY_OK;
	const char *twice = ps && has_item(ps, "reader=") ? "reader=" : ps && has_item(ps, "read=")
		? "read=" : NULL;
	if (twice)
		st = hy_diag_set(d, HY_EUSAGE, 0, "rulebot: %s given twice", twice);
	else if (reader && !*reader)
		st = hy_diag_set(d, HY_EUSAGE, 0, "rulebot: empty reader=");
	else if (mode && !reader)
		st = hy_diag_set(d, HY_EUSAGE, 0, "rulebot: read=%s needs reader=R.h5", mode);
	if (st == HY_OK && ps && *ps)
		st = hy_rule_params_from_spec(&P, ps, d);
	if (st == HY_OK)
		st = hy_policy_open_rulebot_with(p, &P, d);
	if (st == HY_OK && reader &&
	    (st = hy_rulebot_read_with(p, reader, mode, d)) != HY_OK)
		hy_policy_close(p);
	free(reader);
	free(rest);
	free(mode);
	free(rest2);
	return st;
}

hy_status hy_policy_open_rulebot_waits(hy_policy *p, const char *spec,
	const hy_policy_opts *o, hy_diag *d)
{
	(void)o;
	hy_wait_oracle *wo = malloc(sizeof *wo);
	if (!wo)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	const char *params;
	hy_status st = hy_wait_oracle_parse(wo, spec, &params, d);
	if (st != HY_OK) {
		free(wo);
		return st;
	}
	hy_rule_params P;
	hy_rule_params_default(&P);
	if (*params && (st = hy_rule_params_from_spec(&P, params, d)) != HY_OK)
		goto fail;
	if ((st = hy_policy_open_rulebot_with(p, &P, d)) != HY_OK)
		goto fail;
	((rulebot_impl *)p->impl)->wo = wo;
	if (wo->reader &&
		(st = hy_reader_check_open(&((rulebot_impl *)p->impl)->rc, wo->reader, d)) != HY_OK) {
		hy_policy_close(p);
		return st;
	}
	p->oracle = 1; /* it reads the other hands, also to measure at alpha 0 */
	return HY_OK;
fail:
	hy_wait_oracle_free(wo);
	free(wo);
	return st;
}

/* The READ_* of a read= mode (NULL: all), or READ_NONE after a message. */
static int read_mode(const char *mode, hy_diag *d)
{
	int reads = !mode || !strcmp(mode, "all") ? READ_ALL
		: !strcmp(mode, "threats") ? READ_THREATS
		: !strcmp(mode, "danger") ? READ_DANGER : READ_NONE;
	if (reads == READ_NONE)
		hy_diag_set(d, HY_EUSAGE, 0, "rulebot: read=%s: all, threats or danger", mode);
	return reads;
}

hy_status hy_rulebot_read_with(hy_policy *p, const char *reader, const char *mode, hy_diag *d)
{
	if (read_mode(mode, d) == READ_NONE)
		return HY_EUSAGE;
	hy_reader_check *rc;
	hy_status st = hy_reader_check_open(&rc, reader, d);
	if (st == HY_OK) {
		st = hy_rulebot_read_using(p, rc, mode, d);
		hy_reader_check_close(rc); /* the policy holds it now */
	}
	return st;
}

hy_status hy_rulebot_read_using(hy_policy *p, hy_reader_check *rc, const char *mode, hy_diag *d)
{
	int reads = read_mode(mode, d);
	if (reads == READ_NONE)
		return HY_EUSAGE;
	rulebot_impl *R = p->impl;
	hy_reader_check_close(R->rc);
	R->rc = hy_reader_check_ref(rc);
	R->reads = reads;
	return HY_OK;
}

/* Clears p and names it; hy_policy_open names it again by its spec. */
hy_status hy_policy_open_rulebot_with(hy_policy *p, const hy_rule_params *params, hy_diag *d)
{
	rulebot_impl *P = calloc(1, sizeof *P);
	if (!P)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	P->P = *params;
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "rulebot:(parameters)");
	p->ops = &rulebot_ops;
	p->impl = P;
	p->stochastic = 0;
	p->has_value = 0;
	p->concurrent = 1;
	return HY_OK;
}
