/* belief: what a checkpoint's opponent heads say about the hands a seat
 * cannot see — the probability that each opponent is tenpai (the tenpai
 * head) and, for a tenpai opponent, that each tile kind completes its hand
 * (the danger head; ARCHITECTURE.md §7). The search policy (play/search.h)
 * deals its rollouts' hidden hands from it.
 *
 * Only the seat's observation (hy_obs_encode) goes into the network: no
 * hidden tile is read. One forward pass of one state per call, on the
 * CPU, one thread; the calls of several threads take turns (a mutex). */
#ifndef HY_PLAY_BELIEF_H
#define HY_PLAY_BELIEF_H

#include "core/status.h"
#include "encode/obs.h"
#include "engine/engine.h"

typedef struct hy_belief hy_belief;

/* Opponent o = 0, 1, 2 is the seat's shimocha, toimen and kamicha
 * (seat + o + 1 mod 4). */
typedef struct hy_belief_out {
	float tenpai[3];                /* P(opponent o is tenpai)                 */
	float wait[3][HY_TILE_KINDS];   /* P(kind k completes o's hand | tenpai) */
} hy_belief_out;

/* Loads the checkpoint at path (any architecture). */
hy_status hy_belief_open(hy_belief **b, const char *path, hy_diag *d);
void hy_belief_close(hy_belief *b);

/* The heads' sigmoids for `seat` in e (trk: the public facts the encoder
 * needs, as a policy request carries them). */
hy_status hy_belief_predict(hy_belief *b, const hy_engine *e, const hy_obs_track *trk, int seat,
			    hy_belief_out *out, hy_diag *d);

#endif
