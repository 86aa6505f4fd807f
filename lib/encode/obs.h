/* The 85 × 34 observation of one seat (ARCHITECTURE.md §5), computed from the rules
 * engine's state plus the few public facts the engine does not keep
 * (hy_obs_track). Every value is something the observer can see: its own
 * concealed hand, every river, meld, declaration, score and indicator —
 * never another seat's hand or the wall.
 *
 * Layout: obs[c*34 + t], IEEE binary16 bits (samples/sample.h). Choices
 * where ARCHITECTURE.md §5 leaves room, fixed here:
 *   - ch 8 (drawn tile): set while the observer is on turn (TURN or RIICHI
 *     phase) holding a drawn tile, a replacement draw included; zero after
 *     a chi/pon (no draw) and in call windows.
 *   - ch 9 (shanten-optimal discards): only with 3n+2 concealed tiles;
 *     graded by the live acceptance each keeps (obs.c, best_discards()).
 *   - ch 10 (effective tiles): with 3n+1 concealed tiles, of that hand;
 *     on one's own turn with a drawn tile, of the hand without it; zero
 *     after a chi/pon (3n+2 tiles, no draw). Kinds the hand holds 4 of are
 *     never effective.
 *   - ch 12+3p / 65+o (tedashi): a discard is tsumogiri as the log says
 *     (mjai `tsumogiri`), else when it is the drawn tile's code.
 *   - ch 13+3p (recency): exp(−0.2·d) rounded to half, d = discards of p
 *     after the latest one of that kind; 65+o the same over o's discards
 *     from hand only (d still counts every discard after it).
 *   - ch 62+o / 74+o (earliness): (24 − min(i, 23)) / 24 rounded to half,
 *     i = o's discards before the event (the kind's first discard; the
 *     call). The called tile of a kakan keeps its pon's time.
 *   - ch 51–54: shanten of the concealed hand as it is (3n+1 or 3n+2).
 *   - ch 61 (furiten): the engine's rule state — the waits of the last
 *     13-tile hand hit the observer's own discards, or temporary or riichi
 *     furiten.
 *   - ch 68+o (safe after riichi): kinds discarded by anyone from o's
 *     declaration tile on (o cannot ron its own tile; a later discard that
 *     o let pass is safe or has made o furiten).
 *   - ch 80/81 (kabe/one-chance): visible copies = own concealed tiles +
 *     every meld's tiles + river tiles not called away (those sit in a
 *     meld) + revealed indicators.
 *   - ch 82+o: open melds only (an ankan is not open). */
#ifndef HY_ENCODE_OBS_H
#define HY_ENCODE_OBS_H

#include <stdint.h>

#include "engine/engine.h"
#include "events/event.h"
#include "samples/sample.h"

/* Channel numbers of ARCHITECTURE.md §5 (p = relative player 0–3, o = opponent 0–2). */
enum {
	HY_OBS_HAND = 0,        /* 0–3   */
	HY_OBS_MELDED = 4,      /* 4–7   */
	HY_OBS_DRAWN = 8,
	HY_OBS_BEST_DISCARD = 9,
	HY_OBS_EFFECTIVE = 10,
	HY_OBS_RIVER = 11,      /* 11+3p discarded, 12+3p tedashi, 13+3p recency */
	HY_OBS_MELD_CHI = 23,   /* 23+3p chi, 24+3p pon, 25+3p kan */
	HY_OBS_DORA = 35,       /* 35–38 */
	HY_OBS_INDICATOR = 39,
	HY_OBS_RED = 40,        /* 40–42 */
	HY_OBS_RIICHI = 43,     /* 43+p */
	HY_OBS_SCORE = 47,      /* 47+p */
	HY_OBS_SHANTEN = 51,    /* 51–54 */
	HY_OBS_WALL = 55,
	HY_OBS_ROUND = 56,
	HY_OBS_HONBA = 57,
	HY_OBS_STICKS = 58,
	HY_OBS_ROUND_WIND = 59,
	HY_OBS_SEAT_WIND = 60,
	HY_OBS_FURITEN = 61,
	HY_OBS_EARLY = 62,      /* 62+o: first discard of each kind, earliness   */
	HY_OBS_TEDASHI_ORDER = 65, /* 65+o: recency of the latest discard from hand */
	HY_OBS_RIICHI_SAFE = 68,/* 68+o */
	HY_OBS_SUJI = 71,       /* 71+o */
	HY_OBS_DECLARED = 74,   /* 74+o: riichi tile; called tiles by earliness  */
	HY_OBS_MATAGI = 77,     /* 77+o */
	HY_OBS_KABE = 80,
	HY_OBS_ONE_CHANCE = 81,
	HY_OBS_OPEN_MELDS = 82, /* 82+o */
};

/* Public facts of the current kyoku the engine does not record, fed with
 * every event before the engine applies it (hy_obs_track_event). */
typedef struct hy_obs_track {
	uint64_t riichi_safe[4]; /* absolute seat: kinds discarded since its reach */
	uint8_t riichi_on[4];    /* the seat has declared */
	uint8_t ndiscards[4];    /* dahai events seen per seat (river index) */
	uint32_t tsumogiri[4];   /* bit j: the seat's j-th discard was tsumogiri */
	uint8_t nmelds[4];       /* chi, pon, daiminkan and ankan events seen */
	uint8_t call_at[4][4];   /* the seat's discards before it made meld i */
} hy_obs_track;

/* Clears the tracker (at each start_kyoku). */
void hy_obs_track_reset(hy_obs_track *t);
/* Records event ev, given the engine state e it is about to act on. */
void hy_obs_track_event(hy_obs_track *t, const hy_engine *e, const hy_event *ev);

/* Fills obs with the observation of absolute seat `seat`. */
void hy_obs_encode(const hy_engine *e, const hy_obs_track *t, int seat,
		   uint16_t obs[HY_OBS_SIZE]);

/* IEEE binary16 conversions: float → half rounds to nearest, ties to even
 * (overflow to infinity, NaN kept quiet); half → float is exact. */
uint16_t hy_half_from_float(float f);
float hy_half_to_float(uint16_t h);

#endif
