/* Tiles and their notations (ARCHITECTURE.md §2).
 *
 * A tile code is one byte:
 *   0–33   kinds: 1m–9m = 0–8, 1p–9p = 9–17, 1s–9s = 18–26,
 *          E S W N = 27–30, P F C (haku, hatsu, chun) = 31–33
 *   34–36  red fives 5mr / 5pr / 5sr
 *   37     unknown tile (mjai "?")
 *   255    no tile (field absent)
 * Physical tiles (Tenhou 136-ids) are 4·kind + copy; copy 0 of each five is
 * red (ids 16, 52, 88). */
#ifndef HY_CORE_TILE_H
#define HY_CORE_TILE_H

#include <stddef.h>
#include <stdint.h>

enum {
	HY_TILE_KINDS = 34,
	HY_TILE_5MR = 34,
	HY_TILE_5PR = 35,
	HY_TILE_5SR = 36,
	HY_TILE_UNKNOWN = 37,
	HY_TILE_CODES = 38,
	HY_TILE_NONE = 255,
};

/* Kind 0–33 of a tile code (red fives map to the plain five); -1 for unknown
 * or none. */
static inline int hy_tile_kind(int t)
{
	if (t < HY_TILE_KINDS)
		return t;
	if (t <= HY_TILE_5SR)
		return 4 + 9 * (t - HY_TILE_5MR);
	return -1;
}

/* Kind of a tile code known to be valid (0–36): hy_tile_kind without the
 * check, for the engine's hot paths and the seat view. */
static inline int hy_tile_code_kind(int t)
{
	return t < HY_TILE_KINDS ? t : 4 + 9 * (t - HY_TILE_5MR);
}

static inline int hy_tile_is_red(int t)
{
	return t >= HY_TILE_5MR && t <= HY_TILE_5SR;
}

/* Red code of a five kind (4, 13, 22), else -1. */
static inline int hy_tile_red_of(int kind)
{
	return (kind == 4 || kind == 13 || kind == 22) ? HY_TILE_5MR + kind / 9 : -1;
}

/* A terminal (1 or 9) or an honour kind. */
static inline int hy_tile_is_yaochu(int kind)
{
	return kind >= 27 || kind % 9 == 0 || kind % 9 == 8;
}

/* Suit of a kind: 0 m, 1 p, 2 s, 3 honour. */
static inline int hy_tile_suit(int kind) { return kind / 9; }
/* Number 1–9 of a suited kind; 0 for honours. */
static inline int hy_tile_num(int kind) { return kind < 27 ? kind % 9 + 1 : 0; }

/* mjai string (exactly len bytes, e.g. "5mr", "E", "?") → tile code, or -1. */
int hy_tile_from_mjai(const char *s, size_t len);
/* Tile code → mjai string ("?" for unknown); NULL for an invalid code. */
const char *hy_tile_to_mjai(int t);

/* Tenhou 136-id → tile code (reds at 16, 52, 88), or -1 if out of range. */
int hy_tile_from_136(int id);

/* Parses mpsz notation ("123m406p789s1122z"; 0 = red five, 1z–7z = E S W N
 * P F C) into tile codes. Returns the count, or -1 on a syntax error or
 * when more than max tiles are given; *end (if not NULL) is set to the first
 * unparsed byte (the parser stops at the end of the string or at a byte that
 * is neither a digit nor a suit letter). */
int hy_mpsz_parse(const char *s, uint8_t *tiles, int max, const char **end);
/* Writes tiles in mpsz notation, grouping runs of one suit ("123m45p").
 * Returns the length written (not counting the NUL), truncating at size. */
int hy_mpsz_format(const uint8_t *tiles, int n, char *buf, size_t size);

#endif
