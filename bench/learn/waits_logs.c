/* A wait reader against rulebot's belief on game logs (issue 42, step 4's
 * gate on real revealed hands): every log is replayed with the rules engine
 * (the encoder's replay, encode/encode.h), and at every discard decision of
 * a seat (its turn, a discard among its choices) both predictions that a
 * discard of kind k deals in to opponent o — rulebot's own belief
 * (hy_rulebot_belief: τ·danger/100) and the reader's σ(tenpai)·σ(danger) on
 * the seat's observation (readercheck.h) — are scored against the truth of
 * the wait oracle (waitoracle.h: o's waits, none while it is furiten) on
 * the same cells: every opponent, and the opponents in riichi.
 *
 *   waits_logs READER.h5 [PARAMS] PATH...     (PARAMS: rulebot's numbers,
 *                                              a file or NAME=VALUE list,
 *                                              e.g. bench/learn/t1.params)
 * Prints one line per scope: cells, the base rate's log-loss, rulebot's and
 * the reader's log-loss and AUC. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "docs/source.h"
#include "encode/encode.h"
#include "play/policies/policies.h"
#include "play/policies/readercheck.h"
#include "play/policies/ruleparams.h"
#include "play/policies/waitoracle.h"
#include "play/readscore.h"

enum { SCOPES = 2, PREDS = 2 }; /* every opponent, riichi; rulebot, reader */

typedef struct run {
	hy_rule_params P;
	hy_reader_check *rc;
	hy_encoder *enc;
	hy_read_tally t[SCOPES][PREDS];
	uint64_t decisions, games, bad;
	hy_status st;
	hy_diag d;
} run;

static void on_sample(void *u, const hy_engine *e, const hy_obs_track *t, int seat,
	const hy_sample *s)
{
	run *r = u;
	if (r->st || (e->phase != HY_PH_TURN && e->phase != HY_PH_RIICHI) ||
		!(s->mask & ((1ull << HY_A_RIICHI) - 1)))
		return; /* the seat's discards only, as the wait oracle's */
	hy_decision q = {.e = e, .track = t, .legal = s->mask, .seat = seat};
	double tau[4], dq[4][34], pr[4][34];
	hy_rulebot_belief(&r->P, &q, tau, dq);
	if ((r->st = hy_reader_check_predict(r->rc, e, t, seat, pr, &r->d)) != HY_OK)
		return;
	r->decisions++;
	hy_wait_oracle wo_every = {.every = 1}, wo_riichi = {.every = 0};
	for (int o = 0; o < 4; o++) {
		if (o == seat)
			continue;
		uint64_t truth = hy_wait_oracle_truth(e, o);
		const int in[SCOPES] = {hy_wait_oracle_scope(&wo_every, e, o),
					hy_wait_oracle_scope(&wo_riichi, e, o)};
		for (int k = 0; k < 34; k++) {
			int y = truth >> k & 1;
			for (int sc = 0; sc < SCOPES; sc++) {
				if (!in[sc])
					continue;
				hy_read_tally_add(&r->t[sc][0], tau[o] * dq[o][k], y);
				hy_read_tally_add(&r->t[sc][1], pr[o][k], y);
			}
		}
	}
}

static hy_status on_game(void *ctx, hy_game *g)
{
	run *r = ctx;
	const hy_sample *out;
	size_t n;
	hy_diag d;
	hy_diag_init(&d, g->source);
	if (hy_encode_game(r->enc, g, &out, &n, &d) != HY_OK)
		r->bad++; /* a game the encoder refuses: counted, not scored further */
	r->games++;
	return r->st;
}

static hy_status on_bad(void *ctx, const hy_diag *d)
{
	run *r = ctx;
	(void)d;
	r->bad++;
	return HY_OK;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: waits_logs READER.h5 [PARAMS] PATH...\n");
		return 2;
	}
	static run r;
	hy_diag_init(&r.d, argv[1]);
	hy_rule_params_default(&r.P);
	int first = 2;
	if (argc > 3 && (strstr(argv[2], ".params") || strchr(argv[2], '='))) {
		if (hy_rule_params_from_spec(&r.P, argv[2], &r.d) != HY_OK) {
			fprintf(stderr, "waits_logs: %s\n", r.d.msg);
			return 2;
		}
		first = 3;
	}
	hy_encode_opts eo = {.on_sample = on_sample, .u = &r};
	if (hy_reader_check_open(&r.rc, argv[1], &r.d) != HY_OK ||
		hy_encoder_new(&r.enc, &eo) != HY_OK) {
		fprintf(stderr, "waits_logs: %s\n", r.d.msg);
		return 1;
	}
	hy_game_sink sink = {on_game, on_bad, &r};
	uint64_t docs = 0;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_source_parse_paths((const char *const *)argv + first,
		(size_t)(argc - first), &sink, &docs, &d);
	if (st != HY_OK || r.st != HY_OK) {
		fprintf(stderr, "waits_logs: %s\n", r.st ? r.d.msg : d.msg);
		return 1;
	}
	printf("%llu documents, %llu games (%llu refused), %llu discard decisions\n",
		(unsigned long long)docs, (unsigned long long)r.games, (unsigned long long)r.bad,
		(unsigned long long)r.decisions);
	printf("scope\tcells\twins\tbase\trulebot\trulebot_auc\treader\treader_auc\n");
	static const char *const name[SCOPES] = {"every", "riichi"};
	for (int sc = 0; sc < SCOPES; sc++) {
		const hy_read_tally *a = &r.t[sc][0], *b = &r.t[sc][1];
		printf("%s\t%llu\t%llu\t%.5f\t%.5f\t%.4f\t%.5f\t%.4f\n", name[sc],
			(unsigned long long)a->cells, (unsigned long long)a->wins,
			hy_read_tally_base(a), hy_read_tally_logloss(a), hy_read_tally_auc(a),
			hy_read_tally_logloss(b), hy_read_tally_auc(b));
	}
	hy_encoder_free(r.enc);
	hy_reader_check_close(r.rc);
	return 0;
}
