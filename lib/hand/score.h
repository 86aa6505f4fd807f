/* Fu, han, limits, points and payments of a winning hand (Tenhou rules,
 * ARCHITECTURE.md §3): the best interpretation is chosen as Tenhou does (most points,
 * then most han, then most fu).
 *
 * Fu: 20 base; +10 closed ron; +2 tsumo (not with pinfu); melds 2/4/8/16/32
 * by openness, terminal/honour and kan; pair of dragons, seat or round wind
 * +2 each (a double-wind pair is 4); kanchan, penchan, tanki +2; rounded up
 * to 10. Pinfu tsumo 20, chiitoitsu 25, an open hand of 20 fu is 30.
 * Han: yaku plus dora, red fives and (with riichi) ura dora; dora count only
 * when the hand has a yaku. Limits: 5 han (or 4 han ≥ 40 fu, 3 han ≥ 70 fu)
 * mangan, 6–7 haneman, 8–10 baiman, 11–12 sanbaiman, 13+ kazoe yakuman; no
 * kiriage mangan. Each yakuman counts once (no double yakuman) and
 * different yakuman add up. */
#ifndef HY_HAND_SCORE_H
#define HY_HAND_SCORE_H

#include <stdint.h>

#include "core/status.h"
#include "hand/yaku.h"

typedef enum hy_limit {
	HY_LIMIT_NONE,
	HY_LIMIT_MANGAN,
	HY_LIMIT_HANEMAN,
	HY_LIMIT_BAIMAN,
	HY_LIMIT_SANBAIMAN,
	HY_LIMIT_KAZOE,    /* kazoe yakuman: 13+ han of ordinary yaku */
	HY_LIMIT_YAKUMAN,  /* one or more yakuman */
	HY_LIMIT_COUNT
} hy_limit;

/* "", "mangan", "haneman", "baiman", "sanbaiman", "kazoe_yakuman",
 * "yakuman" (the count is in hy_hand_result.yakuman). */
const char *hy_limit_name(int limit);

typedef enum hy_hand_outcome {
	HY_HAND_WIN,           /* a complete hand with a yaku: scored */
	HY_HAND_INCOMPLETE,    /* not a complete hand */
	HY_HAND_NO_YAKU,       /* complete, but no yaku (dora are not yaku) */
} hy_hand_outcome;

typedef struct hy_hand_result {
	uint8_t outcome;     /* hy_hand_outcome; the fields below need HY_HAND_WIN */
	uint8_t shape;       /* hy_agari_shape of the chosen interpretation */
	uint8_t wait;        /* hy_wait */
	uint8_t nyaku;
	hy_yaku_han yaku[HY_YAKU_LIST_MAX];  /* ascending Tenhou id; dora last */
	uint8_t han;         /* total han incl. dora; 13 per yakuman */
	uint8_t fu;          /* 0 for yakuman */
	uint8_t yakuman;     /* number of yakuman (0: an ordinary hand) */
	uint8_t limit;       /* hy_limit */
	uint8_t dora, ura, aka;  /* counted only on a hand with a yaku */
	hy_agari_form form;  /* the chosen interpretation */
	int8_t win_block;
	int32_t base;        /* basic points (fu · 2^(han+2), or the limit's) */
	int32_t points;      /* hand value without honba and sticks (e.g. 7700, 8000) */
	int32_t ron;         /* ron: what the discarder pays for the hand (0 on tsumo) */
	int32_t tsumo_dealer, tsumo_other;  /* tsumo: each payer's share (dealer's
					       share is 0 when the dealer wins) */
	int32_t deltas[4];   /* score changes by seat wind (0 = East), honba,
				sticks and pao included; they sum to sticks·1000 */
} hy_hand_result;

/* Scores a winning hand: checks the query (HY_EDATA with a message on a bad
 * one: tile counts, meld shapes, a winning tile not in the hand, flags that
 * contradict each other), finds every interpretation and keeps the best.
 * An incomplete hand or one without yaku is not an error: r->outcome says
 * so and the points are 0. */
hy_status hy_score_hand(const hy_hand_query *q, hy_hand_result *r, hy_diag *d);

/* Basic points of han and fu with `yakuman` yakuman (0 for an ordinary
 * hand; then han ≥ 13 is kazoe yakuman); *limit (may be NULL) gets the
 * hy_limit. */
int32_t hy_score_base(int han, int fu, int yakuman, int *limit);

/* Payments of basic points `base`: ron (what the discarder pays) and the
 * tsumo shares, each rounded up to 100. Returns the hand value (ron amount,
 * or the sum of the tsumo shares). Any output pointer may be NULL. */
int32_t hy_score_value(int32_t base, int dealer, int tsumo, int32_t *ron,
		       int32_t *from_dealer, int32_t *from_other);

/* Dora kind indicated by an indicator tile code (5m → 6m, 9p → 1p, N → E,
 * C → P), or −1. */
int hy_dora_from_indicator(int tile);

#endif
