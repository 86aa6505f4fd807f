/* Shanten, waits and tile acceptance for one hand (no game state).
 *
 * A hand is given as counts by kind, c[34] (red fives counted as the plain
 * five), plus the number of open melds (ankan included) `nmelds`, so that the
 * concealed count is 3·(4 − nmelds) + 1 or + 2. Shanten −1 means complete
 * (only possible with 3n+2 tiles). Forms other than the standard one need a
 * closed hand: with nmelds > 0, chiitoitsu and kokushi return HY_SHANTEN_NA. */
#ifndef HY_HAND_SHANTEN_H
#define HY_HAND_SHANTEN_H

#include <stdint.h>

enum { HY_SHANTEN_NA = 99 };

typedef struct hy_shanten_forms {
	int8_t standard, chiitoi, kokushi, min;
} hy_shanten_forms;

int hy_shanten_standard(const uint8_t c[34], int nmelds);
int hy_shanten_chiitoi(const uint8_t c[34], int nmelds);
int hy_shanten_kokushi(const uint8_t c[34], int nmelds);
/* Minimum over the three forms. */
int hy_shanten(const uint8_t c[34], int nmelds);
hy_shanten_forms hy_shanten_all(const uint8_t c[34], int nmelds);

/* For a 3n+1 hand: bit k set if drawing kind k completes it (tenpai waits;
 * a kind of which the hand already holds 4 is still listed — callers that
 * need live waits mask it). 0 when not tenpai. */
uint64_t hy_hand_waits(const uint8_t c[34], int nmelds);

/* For a 3n+1 hand: bit k set if drawing kind k lowers shanten (minimum
 * form). If visible is not NULL, returns the number of live copies of those
 * kinds (4 − visible[k] − c[k], floored at 0); otherwise the kind count. */
int hy_ukeire(const uint8_t c[34], int nmelds, const uint8_t *visible, uint64_t *kinds);

/* Batch entry point for a 3n+2 hand: out[k] = minimum shanten after
 * discarding one tile of kind k (HY_SHANTEN_NA when c[k] == 0); returns the
 * best value. Used by the encoder for every decision. */
int hy_shanten_discards(const uint8_t c[34], int nmelds, int8_t out[34]);

/* Standard-form shanten computed directly (a DP per suit, no tables, no
 * SIMD): the slow reference the fast path is tested against. */
int hy_shanten_standard_ref(const uint8_t c[34], int nmelds);

#endif
