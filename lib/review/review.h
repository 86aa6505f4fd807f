/* A game reviewed by a policy (hydra-review): every decision of the
 * reviewed seats, with the situation the seat saw, the action it played
 * and what the policy would have played there.
 *
 * The walk: for each reviewed seat, the game's events are given to a seat
 * view (play/seatview.h) as that seat sees them (play/mjaibot.h: the other
 * hands and draws hidden), exactly as hydra-bot would receive them. Before
 * each event, when the seat's legal mask holds two actions or more, the
 * event tells what the seat played, by the rules of the encoder
 * (encode/encode.h, "Which decisions become samples"):
 *   - own turn (after a draw or a call), riichi declaration discard: the
 *     seat's next dahai (its tile code), reach 37, ankan/kakan 42, tsumo
 *     43, nine-terminals ryukyoku 44;
 *   - call or chankan window: the seat's chi 38–40 / pon 41 / daiminkan
 *     42, its ron 43 (also as the second winner of a double ron); pass 45
 *     when the window closed with nobody taking the tile (the next draw,
 *     the exhaustive draw) or the call made outranks nothing the seat
 *     could do (a chi by another; a pon or kan by another when the seat
 *     could only ron); otherwise (someone else's ron, a pon over the seat's
 *     chi or pon option, an abortive draw) the seat's answer is unknown and
 *     the window is no decision.
 * `dora` and `reach_accepted` events do not close a decision: the next
 * event does. The policy is then asked (hy_policy_decide_one) on the
 * view's engine and observation tracker, the key derived from (0, game
 * index, decision number, seat), so a rule bot or a greedy checkpoint
 * gives the same review every time.
 *
 * Marks and figures (the summary of hy_review_stats):
 *   agree       the policy's most probable action (lowest index on ties)
 *               is the one played (top-1 agreement);
 *   low         the played action's probability is below HY_REVIEW_LOW;
 *   cost        p(top) − p(played): 0 where they agree; the costliest
 *               departures are the decisions of largest cost.
 * A policy without a distribution (the rule bots) has probability 1 on
 * its choice: its review is plain agreement. Values are the policy's value
 * estimate ×100, in expected placement points (90, 45, 0, −135); a policy
 * without one (has_value 0) gives none.
 *
 * The danger of each tile (a reader given, hy_review_set_reader): at every
 * decision, each opponent in riichi, or whose P(tenpai) by the reader is
 * at least threat_min, is listed with its deal-in probability per tile
 * kind (hy_review_threat); a decision where nobody threatens lists none.
 *
 * Kyoku whose events the seat view rejects are errors (HY_EDATA naming
 * the event): the review of a broken log stops there. */
#ifndef HY_REVIEW_REVIEW_H
#define HY_REVIEW_REVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "engine/engine.h"
#include "events/event.h"
#include "play/policy.h"

/* A played action whose probability is below this is marked. */
#define HY_REVIEW_LOW 0.10
/* With a wait reader: an opponent is a threat when in riichi or when the
 * reader's P(tenpai) is at least this (hydra-review --threat). */
#define HY_REVIEW_THREAT 0.5
/* Actions listed per decision, most probable first. */
enum { HY_REVIEW_TOP = 5 };

/* One seat at a decision, as the reviewed seat sees it. */
typedef struct hy_review_seat {
	int32_t score;
	uint8_t riichi;            /* 0 none, 1 declared, 2 accepted           */
	uint8_t nriver;
	uint8_t river[32];         /* tile codes                               */
	uint8_t river_flags[32];   /* HY_RIVER_* (engine.h)                    */
	uint8_t nmelds;
	hy_meld melds[4];
	uint8_t meld_called[4];    /* called tile, HY_TILE_NONE for an ankan   */
	uint8_t meld_from[4];      /* absolute seat it came from               */
} hy_review_seat;

/* One action in a decision's context: index, its concrete form and a
 * short label ("discard 5m", "chi 4m (3m 5m)", "ron", "pass"). */
typedef struct hy_review_act {
	int8_t index;
	hy_action act;
	float prob;
	char label[40];
} hy_review_act;

/* An opponent who threatens at a decision, as the wait reader reads it
 * from the deciding seat's observation alone (play/policies/readercheck.h):
 * deal_in[k], the probability that a discard of tile kind k deals in to
 * this seat, P(tenpai) × P(k completes its hand | tenpai). */
typedef struct hy_review_threat {
	uint8_t seat;              /* absolute                                 */
	uint8_t riichi;            /* 1 declared, 2 accepted (0: by the reader) */
	float tenpai;
	float deal_in[HY_TILE_KINDS];
} hy_review_threat;

typedef struct hy_review_dec {
	uint32_t kyoku;            /* index in hy_review.ky                    */
	uint32_t event;            /* index of the game's event that played it */
	uint8_t seat;              /* absolute seat that decided               */
	uint8_t phase;             /* HY_PH_TURN, _RIICHI, _CALL or _CHANKAN   */
	uint8_t live_left;         /* live draws left                           */
	uint8_t ndora;
	uint8_t dora_ind[5];
	uint8_t honba, kyotaku;
	uint8_t nhand;
	uint8_t hand[14];          /* concealed tiles, by kind, red five first;
				    * without the drawn tile                  */
	uint8_t drawn;             /* the tile just drawn, or HY_TILE_NONE     */
	uint8_t offered;           /* call/chankan window: the tile, else NONE */
	uint8_t offer_from;        /* its seat                                 */
	int8_t shanten;            /* of the concealed hand as it is (−1 won)  */
	hy_review_seat pl[4];
	uint64_t legal;
	float prob[HY_ACTIONS];    /* the policy's probabilities               */
	float value;               /* the policy's value ×100 (has_value)      */
	hy_review_act played;
	int ntop;
	hy_review_act top[HY_REVIEW_TOP];
	int nthreat;               /* threatening opponents (a reader given)   */
	hy_review_threat threat[3]; /* in turn order from the seat             */
} hy_review_dec;

typedef struct hy_review_kyoku {
	uint8_t bakaze;            /* 0 E, 1 S, 2 W, 3 N                       */
	uint8_t kyoku;             /* 1–4                                      */
	uint8_t honba, kyotaku, oya;
	int32_t scores[4];         /* at its start                             */
	int32_t deltas[4];         /* its results' score changes (log's)       */
	char result[160];          /* "ron: seat 2 from seat 0", "draw", ...   */
	uint32_t first, n;         /* its decisions: dec[first .. first+n)     */
} hy_review_kyoku;

typedef struct hy_review {
	char source[512];
	uint32_t game;             /* 0-based index of the game in its source  */
	char policy[256];
	int has_value;
	unsigned seats;            /* reviewed seats (bit mask)                */
	char names[4][64];         /* start_game names ("" when none)          */
	int32_t final_scores[4];
	hy_review_dec *dec;        /* by event, then turn order from the
				    * discarder (the encoder's sample order)  */
	size_t n, cap;
	hy_review_kyoku *ky;
	size_t nky, capky;
	/* the wait reader, given before hy_review_game (NULL: no danger) */
	struct hy_reader_check *reader;
	char reader_name[256];
	double threat_min;         /* HY_REVIEW_THREAT unless set              */
} hy_review;

typedef struct hy_review_stats {
	size_t decisions, agree, low;
	double agreement;          /* agree / decisions (0 when none)          */
	double mean_prob;          /* mean probability of the played actions   */
} hy_review_stats;

void hy_review_init(hy_review *r);
/* The wait reader of the next reviews (rc stays the caller's; NULL: none)
 * and its name for the page; threat: the tenpai probability from which an
 * opponent not in riichi threatens (0 to 1). */
void hy_review_set_reader(hy_review *r, struct hy_reader_check *rc, const char *name,
			  double threat);
void hy_review_free(hy_review *r);

/* Reviews game g for the seats in the mask `seats` (bits 0–3, not 0) with
 * policy p; r is cleared first. HY_EDATA naming the event for an event
 * the seat view rejects; the policy's status when it fails. */
hy_status hy_review_game(hy_review *r, const hy_game *g, unsigned seats, hy_policy *p,
			 hy_diag *d);

/* The seat whose start_game name is `name`: 0–3, −1 when no seat has it
 * (or the game names none), −2 when several seats have it (which one was
 * meant cannot be known). */
int hy_review_seat_of(const hy_game *g, const char *name);

/* The seats whose hand the log shows at every start_kyoku (a player's own
 * log shows one): the seats a review can follow. */
unsigned hy_review_known_seats(const hy_game *g);

/* Figures over the decisions of `seat` (−1: all reviewed seats). */
void hy_review_stats_of(const hy_review *r, int seat, hy_review_stats *s);

/* Cost of decision i: p(top) − p(played). */
double hy_review_cost(const hy_review_dec *x);

/* The up to `max` decisions of highest cost (> 0), costliest first (ties:
 * game order), as indices into r->dec; returns how many. */
size_t hy_review_costliest(const hy_review *r, size_t *idx, size_t max);

#endif
