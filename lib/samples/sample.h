/* One training sample: one decision of one seat (ARCHITECTURE.md §6). The in-memory
 * form every sample producer fills and every consumer reads; the byte
 * layouts of the sample stream and of HDF5 shards are in formats/samples.md
 * and formats/shard.md. */
#ifndef HY_SAMPLES_SAMPLE_H
#define HY_SAMPLES_SAMPLE_H

#include <stdint.h>

enum {
	HY_OBS_CHANNELS = 85,
	HY_OBS_TILES = 34,
	HY_OBS_SIZE = HY_OBS_CHANNELS * HY_OBS_TILES, /* obs[c*34 + t] */
	HY_ACTIONS = 46,
	HY_GRP_CLASSES = 24,
	HY_SOFT_SLOTS = 8, /* entries of a soft target (hy_sample.soft_*)  */
};

typedef struct hy_sample {
	uint16_t obs[HY_OBS_SIZE]; /* IEEE binary16 bits, channel-major      */
	uint64_t mask;             /* bit a set: action a legal (46 bits)    */
	uint64_t game;             /* stable hash of source and game index   */
	uint64_t opp_waits[3];     /* per opponent o (p = o+1): 34-bit masks */
	int32_t score;             /* final score of the observer            */
	int32_t kyoku_delta;       /* observer's score change this kyoku     */
	float logp, value, reward, adv, ret; /* policy-gradient fields       */
	uint16_t step;             /* decision index within the kyoku        */
	uint8_t action;            /* label, 0–45, legal in mask             */
	uint8_t seat;              /* absolute seat 0–3                      */
	uint8_t grand_kyoku;       /* E1 = 0 … S4 = 7, W1 = 8 …              */
	uint8_t honba;
	uint8_t rank;              /* final rank of the observer 0–3         */
	uint8_t grp;               /* 0–23, see ARCHITECTURE.md §6                    */
	uint8_t opp_tenpai;        /* bit o: opponent o tenpai               */
	uint8_t flags;             /* HY_SAMPLE_F_*                          */
	/* The teacher's distribution over the actions (HY_SAMPLE_F_SOFT):
	 * soft_weight[i] / Σ soft_weight on action soft_action[i], slots of
	 * weight 0 unused (action 0); formats/samples.md. hydra-sp writes it
	 * from a labelling policy that has one (--label-by rulebot), hydra-fit
	 * --soft-weight trains towards it. */
	uint8_t soft_action[HY_SOFT_SLOTS];
	uint8_t soft_weight[HY_SOFT_SLOTS];
} hy_sample;

enum {
	HY_SAMPLE_F_OPP_KNOWN = 1u << 0, /* opp_tenpai/opp_waits are valid  */
	HY_SAMPLE_F_SOFT = 1u << 1,      /* soft_action/soft_weight valid   */
};

/* Fills s's soft target from probs[46] (0 outside the legal actions): the
 * HY_SOFT_SLOTS most probable actions, weights rounded to 1/255 of their
 * sum (ties by lower index; at least the most probable keeps weight 1),
 * and sets HY_SAMPLE_F_SOFT. In samples/stream.c. */
void hy_sample_set_soft(hy_sample *s, const float *probs);

#endif
