/* The hidden state of a decision (samples/sample.h hy_hidden): what self-play
 * and the arena know and a seat does not — the opponents' concealed tiles
 * and their shanten, the undrawn live wall in draw order, the undrawn
 * replacement tiles and every dora and ura indicator. Filled from the
 * table, which holds the wall (engine/table.h); the oracle planes are
 * expanded from it (samples/oracle.h, issue 52 step 2). */
#ifndef HY_ENCODE_HIDDEN_H
#define HY_ENCODE_HIDDEN_H

#include "engine/table.h"
#include "samples/sample.h"

/* Fills s->hidden for the decision of absolute seat `seat` (opponent o is
 * seat + o + 1) and sets HY_SAMPLE_F_HIDDEN in s->flags. */
void hy_encode_hidden(const hy_table *t, int seat, hy_sample *s);

#endif
