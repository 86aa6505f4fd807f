/* The 205 oracle planes (ARCHITECTURE.md §5a; the design's oracle guiding,
 * issue 52 step 2): a sample's hidden state (sample.h hy_hidden) as planes
 * over the 34 tile kinds, beside the 85 public ones, for a network that is
 * allowed to see it (a teacher) or is weaned off it (a student whose oracle
 * planes fade to 0). Channel-major like the observation: out[c*34 + t].
 *
 *   per opponent o = 0..2 (p = o+1), 13 planes from 13·o:
 *     0–3    its concealed hand, count ≥1, ≥2, ≥3, =4 (red fives included)
 *     4–6    fill 1 if it holds red 5m / 5p / 5s
 *     7–10   its shanten one-hot fill: 0 (tenpai), 1, 2, ≥3
 *     11     its waits (opp_waits[o]: kinds that complete its tenpai hand)
 *     12     fill 1 if it is tenpai and furiten (HY_SAMPLE_F_FURITEN_OF(o))
 *   the wall, 2 planes a tile (kind one-hot; fill 1 if a red five), zero
 *   past the end of a list:
 *     39–176   the undrawn live tiles in draw order, 69 of them
 *     177–184  the undrawn replacement tiles, 4
 *     185–194  the five dora indicators (revealed or not)
 *     195–204  the five ura indicators
 *
 * Two groups fade separately (the design's dropout table): the opponents'
 * planes 0–38 are multiplied by scale_opp, the wall's 39–204 by scale_wall. */
#ifndef HY_SAMPLES_ORACLE_H
#define HY_SAMPLES_ORACLE_H

#include "samples/sample.h"

enum {
	HY_ORACLE_CHANNELS = 205,
	HY_ORACLE_SIZE = HY_ORACLE_CHANNELS * HY_OBS_TILES,
	HY_ORACLE_OPP_PLANES = 13, /* a opponent's planes */
	HY_ORACLE_WALL = 39,       /* first plane of the wall's group */
	HY_ORACLE_LIVE = 39,
	HY_ORACLE_RINSHAN = 177,
	HY_ORACLE_DORA = 185,
	HY_ORACLE_URA = 195,
};

/* The planes of s scaled by group; all zero when s has no hidden state
 * (HY_SAMPLE_F_HIDDEN unset). */
void hy_oracle_planes(const hy_sample *s, float scale_opp, float scale_wall,
		      float out[HY_ORACLE_SIZE]);

#endif
