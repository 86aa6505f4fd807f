/* Full scoring of random winning hands (decomposition, yaku, fu, points,
 * payments) per second on one core.
 *
 *   score_bench [SECONDS] [SEED]
 *
 * Hands are random four mentsu + a pair (at most 4 of a kind), some mentsu
 * turned into open melds (chi, pon, kans), random red fives and conditions
 * (tsumo/ron, riichi when closed, winds, 1–3 dora indicators, honba). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tile.h"
#include "hand/score.h"

typedef struct rng {
	uint64_t s;
} rng;

static uint32_t next(rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return (uint32_t)(r->s >> 16);
}

static int below(rng *r, int n) { return (int)(next(r) % (uint32_t)n); }

/* One random winning hand as a query. */
static void random_hand(rng *r, hy_hand_query *q)
{
	uint8_t c[34];
	int kinds[5], types[5];  /* 0 seq, 1 triplet, 2 quad; [4] = pair */
	memset(c, 0, sizeof c);
	hy_hand_query_init(q);
	for (int b = 0; b < 4; b++) {
		for (;;) {
			int k = below(r, 34), t = below(r, 100);
			int type = t < 55 ? 0 : t < 95 ? 1 : 2;
			if (type == 0 && (k >= 27 || k % 9 > 6))
				continue;
			if (type == 0 && (c[k] > 3 || c[k + 1] > 3 || c[k + 2] > 3))
				continue;
			if (type > 0 && c[k] > (type == 1 ? 1 : 0))
				continue;
			if (type == 0)
				c[k]++, c[k + 1]++, c[k + 2]++;
			else
				c[k] = (uint8_t)(c[k] + 2 + type);
			kinds[b] = k, types[b] = type;
			break;
		}
	}
	int pk;
	do
		pk = below(r, 34);
	while (c[pk] > 2);
	c[pk] += 2;
	kinds[4] = pk, types[4] = 3;

	/* open some blocks; quads are always melds */
	int open_some = below(r, 100) < 40;
	uint8_t conc[14];
	int n = 0, used_red[3] = {0, 0, 0};
#define TILE(k) ((hy_tile_red_of(k) >= 0 && !used_red[(k) / 9] && below(r, 4) == 0) \
		 ? (used_red[(k) / 9] = 1, (uint8_t)hy_tile_red_of(k)) : (uint8_t)(k))
	for (int b = 0; b < 5; b++) {
		int k = kinds[b], t = types[b];
		int meld = t == 2 || (b < 4 && open_some && below(r, 2));
		if (meld) {
			hy_meld *m = &q->melds[q->nmelds++];
			m->type = t == 0 ? HY_MELD_CHI : t == 1 ? HY_MELD_PON
				: (uint8_t)(below(r, 2) ? HY_MELD_ANKAN : HY_MELD_MINKAN);
			m->from = m->type == HY_MELD_ANKAN ? HY_FROM_SELF
				: m->type == HY_MELD_CHI ? HY_FROM_KAMICHA : (uint8_t)(1 + below(r, 3));
			m->ntiles = t == 2 ? 4 : 3;
			for (int i = 0; i < m->ntiles; i++)
				m->tiles[i] = TILE(t == 0 ? k + i : k);
			continue;
		}
		int cnt = t == 3 ? 2 : 3;
		for (int i = 0; i < cnt; i++)
			conc[n++] = TILE(t == 0 ? k + i : k);
	}
#undef TILE
	memcpy(q->tiles, conc, (size_t)n);
	q->ntiles = (uint8_t)n;
	q->win_tile = conc[below(r, n)];
	q->seat_wind = (uint8_t)below(r, 4);
	q->round_wind = (uint8_t)below(r, 2);
	q->tsumo = (uint8_t)below(r, 2);
	if (!q->tsumo)
		q->ron_from = (uint8_t)((q->seat_wind + 1 + below(r, 3)) % 4);
	int menzen = 1;
	for (int i = 0; i < q->nmelds; i++)
		menzen &= q->melds[i].type == HY_MELD_ANKAN;
	if (menzen && below(r, 2)) {
		q->flags |= HY_WIN_RIICHI;
		if (below(r, 5) == 0)
			q->flags |= HY_WIN_IPPATSU;
		q->nura = 1;
		q->ura[0] = (uint8_t)below(r, 34);
	}
	q->ndora = (uint8_t)(1 + below(r, 3));
	for (int i = 0; i < q->ndora; i++)
		q->dora[i] = (uint8_t)below(r, 34);
	q->honba = (uint16_t)below(r, 3);
	q->sticks = (uint16_t)below(r, 2);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = 2.0;
	uint64_t seed = 12345;
	if (argc > 1) {
		char *end;
		errno = 0;
		seconds = strtod(argv[1], &end);
		if (errno || *end || seconds <= 0 || seconds > 600) {
			fprintf(stderr, "score_bench: bad SECONDS '%s'\n", argv[1]);
			return 2;
		}
	}
	if (argc > 2) {
		char *end;
		errno = 0;
		seed = strtoull(argv[2], &end, 10);
		if (errno || *end || !seed) {
			fprintf(stderr, "score_bench: bad SEED '%s'\n", argv[2]);
			return 2;
		}
	}
	enum { N = 1 << 16 };
	hy_hand_query *qs = malloc(sizeof *qs * N);
	if (!qs) {
		fprintf(stderr, "score_bench: out of memory\n");
		return 1;
	}
	rng r = {seed};
	for (int i = 0; i < N; i++)
		random_hand(&r, &qs[i]);
	/* check once: every hand must be valid and complete */
	long outcomes[3] = {0, 0, 0};
	for (int i = 0; i < N; i++) {
		hy_hand_result res;
		hy_diag d;
		hy_diag_init(&d, "score_bench");
		if (hy_score_hand(&qs[i], &res, &d) != HY_OK || res.outcome == HY_HAND_INCOMPLETE) {
			fprintf(stderr, "score_bench: seed %llu hand %d: %s\n",
				(unsigned long long)seed, i, d.msg[0] ? d.msg : "incomplete");
			free(qs);
			return 1;
		}
		outcomes[res.outcome]++;
	}
	long done = 0;
	int64_t checksum = 0;
	double t0 = now(), t;
	do {
		for (int i = 0; i < N; i++) {
			hy_hand_result res;
			hy_score_hand(&qs[i], &res, NULL);
			checksum += res.points;
		}
		done += N;
		t = now() - t0;
	} while (t < seconds);
	printf("score: %.0f hands/s (1 core)  [%.0f ns/hand, %ld hands, seed %llu, "
	       "%.1f%% with yaku, checksum %lld]\n",
	       (double)done / t, 1e9 * t / (double)done, done, (unsigned long long)seed,
	       100.0 * (double)outcomes[HY_HAND_WIN] / N, (long long)checksum);
	free(qs);
	return 0;
}
