/* deal: the hidden tiles of a state dealt again, for rollouts (the search
 * policy, play/search.h, and the qlabel labeller, play/qlabel.h).
 *
 * A deal is a copy of the engine state in which some tiles are shuffled
 * from a 64-bit seed: the live wall, the replacement tiles, the
 * unrevealed dora and the ura indicators always; the opponents' concealed
 * hands too where the deal is a seat's view. Melds, rivers, the revealed
 * indicators and the seat's own hand stay as they are, so a deal holds
 * every tile of the set exactly once. The same seed gives the same deal.
 *
 * A seat's view (hy_deal_determinize) deals the tiles the seat cannot see.
 * An opponent in riichi gets a tenpai hand whose waits miss every kind it
 * discarded and every kind its riichi made safe (it would be furiten
 * otherwise): random groups and a pair of the unseen tiles less one tile,
 * drawn again until the waits fit (64 tries, then any hand). Every other
 * opponent gets uniform tiles. With a belief (play/belief.h), an opponent
 * not in riichi is tenpai with the belief's probability, and a tenpai
 * hand is drawn from the belief's waits: of 64 such proposals, one is
 * kept with probability proportional to Π over its wait kinds of
 * odds(wait[k]) / odds(0.05) — the head's probabilities are marginals
 * given what the seat saw, and 0.05 is about the share of kinds a random
 * tenpai hand waits on, so the ratio is the likelihood of the
 * observation (sampling-importance-resampling).
 *
 * The oracle deals read what the seat cannot see, for diagnostics and
 * labels only (hy_policy.oracle): how much a perfect reading of the
 * opponents would be worth. */
#ifndef HY_PLAY_DEAL_H
#define HY_PLAY_DEAL_H

#include <stdint.h>

#include "engine/engine.h"
#include "play/policies/belief.h"

/* A deal: the state, with its hidden tiles dealt again, and its draws. */
typedef struct hy_deal {
	hy_engine e;
	uint8_t live[136];     /* the live draws, first first; e.live_left of them */
	uint8_t rinshan[4];    /* replacement draws, first first */
	uint8_t nlive, nrinshan, live_next, rinshan_next;
} hy_deal;

/* Seat's view of e dealt into out from the seed; safe: the tracker's
 * riichi_safe (NULL: none); bel: the seat's belief (NULL: none). 0, or −1
 * when the counts do not add up (the caller keeps rulebot's choice). */
int hy_deal_determinize(const hy_engine *e, int seat, const uint64_t safe[4],
			const hy_belief_out *bel, uint64_t seed, hy_deal *out);

/* Every hand of e kept as it truly is; only the tiles no hand holds
 * shuffled (the deal of play/qlabel.h). */
int hy_deal_redeal(const hy_engine *e, uint64_t seed, hy_deal *out);

/* The oracle deals of seat's view, by what they read. */
enum {
	HY_DEAL_KNOW_TENPAI = 1, /* who is tenpai: those opponents, and only
				  * they, get a tenpai hand drawn as a
				  * riichi's; the waits are a guess          */
	HY_DEAL_KEEP_TENPAI = 2, /* the tenpai opponents' true hands; the
				  * others uniform                           */
	HY_DEAL_KEEP_ALL = 3,    /* every true hand (hy_deal_redeal)        */
};

/* Seat's view of e dealt as the oracle mode says. 0, or −1 as above. */
int hy_deal_oracle(const hy_engine *e, int seat, const uint64_t safe[4], int mode,
		   uint64_t seed, hy_deal *out);

#endif
