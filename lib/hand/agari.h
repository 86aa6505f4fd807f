/* Open melds and the decomposition of a complete hand (agari) into every
 * interpretation: four mentsu and a pair (open melds given), seven pairs
 * (chiitoitsu), thirteen orphans (kokushi musou).
 *
 * Concealed tiles are given as counts by kind, c[34] (red fives counted as
 * the plain five), including the winning tile; open melds (ankan included)
 * as hy_meld. The concealed count must be 3·(4 − nmelds) + 2. */
#ifndef HY_HAND_AGARI_H
#define HY_HAND_AGARI_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef enum hy_meld_type {
	HY_MELD_CHI,
	HY_MELD_PON,
	HY_MELD_MINKAN,  /* daiminkan: open kan called on a discard */
	HY_MELD_ANKAN,   /* concealed kan */
	HY_MELD_KAKAN,   /* added kan (shouminkan) on an earlier pon */
	HY_MELD_TYPE_COUNT
} hy_meld_type;

/* Where a called tile came from, relative to the caller (Tenhou order). */
enum { HY_FROM_SELF = 0, HY_FROM_SHIMOCHA = 1, HY_FROM_TOIMEN = 2, HY_FROM_KAMICHA = 3 };

typedef struct hy_meld {
	uint8_t type;      /* hy_meld_type */
	uint8_t from;      /* HY_FROM_*; HY_FROM_SELF for ankan */
	uint8_t ntiles;    /* 3 (chi, pon) or 4 (kans) */
	uint8_t tiles[4];  /* tile codes, red fives allowed */
} hy_meld;

/* Name of a meld type ("chi", "pon", "minkan", "ankan", "kakan"). */
const char *hy_meld_type_name(int type);

/* Checks a meld's shape: chi = three consecutive suited kinds, pon = three of
 * a kind, kans = four of a kind, at most one red five per suit, `from` in
 * 1–3 for open melds. HY_EDATA with a message in d otherwise. */
hy_status hy_meld_check(const hy_meld *m, hy_diag *d);

/* Parses "TYPE:TILES[SRC]": TYPE chi | pon | kan (= minkan) | minkan |
 * ankan | kakan; TILES in mpsz notation (0 = red five, e.g. "406m", "555z");
 * SRC one of '-' kamicha (default), '=' toimen, '+' shimocha; none for
 * ankan. Examples: "chi:345m", "pon:555z+", "ankan:1111s", "kakan:5055p=". */
hy_status hy_meld_parse(const char *s, hy_meld *m, hy_diag *d);

/* Formats a meld in the notation above; returns the length (snprintf-like). */
int hy_meld_format(const hy_meld *m, char *buf, size_t size);

/* 1 for open melds (everything but ankan). */
static inline int hy_meld_is_open(const hy_meld *m) { return m->type != HY_MELD_ANKAN; }

/* ---------------------------------------------------------- decomposition */

typedef enum hy_block_type {
	HY_BLOCK_SEQ,      /* shuntsu: kind, kind+1, kind+2 */
	HY_BLOCK_TRIPLET,  /* koutsu */
	HY_BLOCK_QUAD,     /* kantsu */
	HY_BLOCK_PAIR,     /* toitsu (the head, or one of chiitoitsu's pairs) */
} hy_block_type;

typedef struct hy_block {
	uint8_t type;   /* hy_block_type */
	uint8_t kind;   /* lowest kind 0–33 */
	uint8_t open;   /* 1: an open meld (chi, pon, minkan, kakan) */
	uint8_t meld;   /* 1: came from an hy_meld (open or ankan) */
} hy_block;

typedef enum hy_agari_shape {
	HY_AGARI_STANDARD,  /* blocks[0..3] mentsu, blocks[4] the pair */
	HY_AGARI_CHIITOI,   /* blocks[0..6] pairs */
	HY_AGARI_KOKUSHI,   /* blocks[0] the pair */
} hy_agari_shape;

typedef struct hy_agari_form {
	uint8_t shape;     /* hy_agari_shape */
	uint8_t nblocks;   /* 5, 7 or 1 */
	hy_block blocks[7];
} hy_agari_form;

/* More forms than any 14-tile hand has (the worst cases have 5). */
enum { HY_AGARI_MAX = 16 };

/* All interpretations of a complete hand: fills out[0..min(n, max)) and
 * returns n, the number of forms (0: not complete; −1: the tile counts do
 * not fit nmelds or a count exceeds 4). Melds appear as the first blocks of
 * standard forms in the order given; concealed mentsu follow in ascending
 * kind order (triplets before sequences of the same kind). Chiitoitsu and
 * kokushi need nmelds == 0; chiitoitsu needs seven different kinds. */
int hy_agari_decompose(const uint8_t c[34], const hy_meld *melds, int nmelds,
		       hy_agari_form *out, int max);

/* 1 if the concealed counts (with nmelds melds) form a complete hand in any
 * shape, else 0. */
int hy_agari_is_complete(const uint8_t c[34], int nmelds);

#endif
