/* Self-play walls: SHA-256 keys and a SHA-256 counter stream driving
 * Fisher–Yates (layout documented in wall.h). */
#include "core/le.h"
#include "engine/wall.h"

#include <string.h>

#include <openssl/evp.h>

static hy_status sha256(const uint8_t *msg, size_t len, uint8_t out[32], hy_diag *d)
{
	unsigned int n = 0;
	if (EVP_Digest(msg, len, out, &n, EVP_sha256(), NULL) != 1 || n != 32)
		return hy_diag_set(d, HY_EIO, 0, "%s:%d: EVP_Digest(sha256) failed", __FILE__,
				   __LINE__);
	return HY_OK;
}

hy_status hy_wall_game_key(uint64_t seed, uint64_t game_index, uint8_t key[32], hy_diag *d)
{
	uint8_t msg[26];
	memcpy(msg, "hydra/game", 10);
	hy_put_u64le(msg + 10, seed);
	hy_put_u64le(msg + 18, game_index);
	return sha256(msg, sizeof msg, key, d);
}

hy_status hy_wall_kyoku_key(const uint8_t game_key[32], int grand_kyoku, int honba,
			    uint8_t key[32], hy_diag *d)
{
	uint8_t msg[34];
	memcpy(msg, game_key, 32);
	msg[32] = (uint8_t)grand_kyoku;
	msg[33] = (uint8_t)honba;
	return sha256(msg, sizeof msg, key, d);
}

typedef struct stream {
	uint8_t msg[40];  /* kyoku key ‖ u64le(block) */
	uint8_t buf[32];
	uint64_t block;
	int pos;          /* next word in buf, 8 = empty */
} stream;

static hy_status next_word(stream *s, uint32_t *w, hy_diag *d)
{
	if (s->pos == 8) {
		hy_put_u64le(s->msg + 32, s->block++);
		hy_status st = sha256(s->msg, sizeof s->msg, s->buf, d);
		if (st != HY_OK)
			return st;
		s->pos = 0;
	}
	const uint8_t *p = s->buf + 4 * s->pos++;
	*w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return HY_OK;
}

hy_status hy_wall_shuffle(const uint8_t kyoku_key[32], uint8_t wall[HY_WALL_SIZE], hy_diag *d)
{
	stream s;
	memcpy(s.msg, kyoku_key, 32);
	s.block = 0;
	s.pos = 8;
	for (int i = 0; i < HY_WALL_SIZE; i++)
		wall[i] = (uint8_t)i;
	for (int i = HY_WALL_SIZE - 1; i >= 1; i--) {
		uint64_t bound = (uint64_t)i + 1;
		uint64_t limit = (1ull << 32) - ((1ull << 32) % bound);
		uint32_t w;
		do {
			hy_status st = next_word(&s, &w, d);
			if (st != HY_OK)
				return st;
		} while (w >= limit);
		int j = (int)(w % bound);
		uint8_t t = wall[i];
		wall[i] = wall[j];
		wall[j] = t;
	}
	return HY_OK;
}
