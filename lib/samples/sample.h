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
};

/* Which encoding of the observation a sample holds (ARCHITECTURE.md §5): the
 * same 85 planes can mean different things from one version of the encoder
 * to the next, and nothing in a sample's values tells them apart. Recorded
 * per frame of a sample stream (formats/samples.md, header byte 17), per
 * shard (formats/shard.md, attribute `obs_version`) and per checkpoint
 * (formats/checkpoint.md, attribute `obs_version`):
 *   0  unmarked: written before the marker existed (commit history: channel
 *      9 binary before af34bf8, graded from af34bf8 on);
 *   1  the original table: channel 9 binary (never written by this build);
 *   2  channel 9 graded by the live acceptance;
 *   3  the call-window grading of commit f1d95a2, measured and reverted
 *      (c88febb); no build of this history writes or plays it;
 *   4  the order of the discards: planes 62+o, 65+o and 74+o, copies of
 *      other planes in 2, hold each opponent's first discards, the order of
 *      its discards from hand, its riichi tile and when it called
 *      (lib/encode/obs.c).
 * Writers of fresh samples (hydra-encode, hydra-sp) write HY_OBS_VERSION;
 * tools that copy samples (hydra-augment) keep their input's version. */
#define HY_OBS_VERSION 4

/* Unmarked files (0) come from builds that encoded this version or an
 * earlier one: a build of a later version knows they are not its own. */
#define HY_OBS_UNMARKED_MAX 2

/* Whether a network trained on observation version `trained` (0: unmarked)
 * may read samples of version `reads`: the same version, or an unmarked
 * network and a version an unmarked file may hold. */
static inline int hy_obs_compatible(int trained, int reads)
{
	return trained == reads || (trained == 0 && reads <= HY_OBS_UNMARKED_MAX);
}

/* The hidden state at a decision (issue 52 step 2, ARCHITECTURE.md §5a):
 * what only self-play and the arena know — the opponents' concealed tiles
 * and shanten, and the wall — stored compactly; the 205 oracle planes are
 * expanded from it (samples/oracle.h). Tile codes are core/tile.h's (0–33
 * kinds, 34–36 red fives), HY_TILE_NONE (255) past the end of a list.
 * Valid when the sample's flags have HY_SAMPLE_F_HIDDEN; carried by sample
 * streams with the hidden-state extension (formats/samples.md). */
enum {
	HY_HIDDEN_VERSION = 1, /* layout of hy_hidden (stream header byte 24) */
	HY_HIDDEN_HAND = 14,   /* tiles of an opponent's concealed hand, at most */
	HY_HIDDEN_LIVE = 69,   /* the live wall after the first draw           */
	HY_HIDDEN_RINSHAN = 4,
	HY_HIDDEN_DORA = 5,
};
typedef struct hy_hidden {
	uint8_t hand[3][HY_HIDDEN_HAND]; /* per opponent o (p = o+1), sorted  */
	uint8_t shanten[3];              /* of each hand (0 = tenpai), ≤ 8    */
	uint8_t live[HY_HIDDEN_LIVE];    /* the undrawn live tiles, next first */
	uint8_t rinshan[HY_HIDDEN_RINSHAN]; /* undrawn replacement tiles, next first */
	uint8_t dora[HY_HIDDEN_DORA];    /* all five dora indicators, revealed or not */
	uint8_t ura[HY_HIDDEN_DORA];     /* the five ura indicators           */
} hy_hidden;
#ifndef __cplusplus
_Static_assert(sizeof(hy_hidden) == 128, "hy_hidden is 128 bytes");
#endif

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
	hy_hidden hidden;          /* valid with HY_SAMPLE_F_HIDDEN          */
} hy_sample;

enum {
	HY_SAMPLE_F_OPP_KNOWN = 1u << 0, /* opp_tenpai/opp_waits are valid  */
	/* bit 1 + o: opponent o is tenpai but furiten at this decision — its
	 * waits (still in opp_waits) cannot ron (hy_player_furiten) */
	HY_SAMPLE_F_OPP_FURITEN = 1u << 1,
	/* bit 4: `hidden` holds the decision's hidden state (self-play and the
	 * arena fill it; kept by streams with the hidden-state extension) */
	HY_SAMPLE_F_HIDDEN = 1u << 4,
};
#define HY_SAMPLE_F_FURITEN_OF(o) (HY_SAMPLE_F_OPP_FURITEN << (o))

#endif
