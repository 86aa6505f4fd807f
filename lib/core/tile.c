/* Tile codes and their notations: mjai names, kinds, red fives (tile.h). */
#include "core/tile.h"

#include <stdio.h>
#include <string.h>

static const char *const mjai_names[HY_TILE_CODES] = {
	"1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m",
	"1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p",
	"1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s",
	"E", "S", "W", "N", "P", "F", "C",
	"5mr", "5pr", "5sr", "?",
};

static int suit_index(char c)
{
	switch (c) {
	case 'm': return 0;
	case 'p': return 1;
	case 's': return 2;
	case 'z': return 3;
	default: return -1;
	}
}

int hy_tile_from_mjai(const char *s, size_t len)
{
	if (len == 1) {
		static const char honours[] = "ESWNPFC";
		const char *p = s[0] ? strchr(honours, s[0]) : NULL;
		if (p)
			return 27 + (int)(p - honours);
		return s[0] == '?' ? HY_TILE_UNKNOWN : -1;
	}
	if (len < 2 || len > 3 || s[0] < '1' || s[0] > '9')
		return -1;
	int suit = suit_index(s[1]);
	if (suit < 0 || suit > 2)
		return -1;
	if (len == 3)
		return (s[0] == '5' && s[2] == 'r') ? HY_TILE_5MR + suit : -1;
	return suit * 9 + (s[0] - '1');
}

const char *hy_tile_to_mjai(int t)
{
	return (t >= 0 && t < HY_TILE_CODES) ? mjai_names[t] : NULL;
}

int hy_tile_from_136(int id)
{
	if (id < 0 || id >= 136)
		return -1;
	if (id == 16 || id == 52 || id == 88)
		return HY_TILE_5MR + id / 36;
	return id / 4;
}

int hy_mpsz_parse(const char *s, uint8_t *tiles, int max, const char **end)
{
	int n = 0, pending = 0;
	const char *p = s;
	char digits[64];
	for (;; p++) {
		char c = *p;
		if (c >= '0' && c <= '9') {
			if (pending == (int)sizeof digits)
				return -1;
			digits[pending++] = c;
			continue;
		}
		int suit = suit_index(c);
		if (suit < 0)
			break;
		if (pending == 0)
			return -1;
		for (int i = 0; i < pending; i++) {
			int d = digits[i] - '0', t;
			if (suit == 3) {
				if (d < 1 || d > 7)
					return -1;
				t = 27 + d - 1;
			} else if (d == 0) {
				t = HY_TILE_5MR + suit;
			} else {
				t = suit * 9 + d - 1;
			}
			if (n == max)
				return -1;
			tiles[n++] = (uint8_t)t;
		}
		pending = 0;
	}
	if (pending)
		return -1;
	if (end)
		*end = p;
	return n;
}

int hy_mpsz_format(const uint8_t *tiles, int n, char *buf, size_t size)
{
	static const char letters[] = "mpsz";
	size_t len = 0;
	char tmp[2];
	for (int i = 0; i < n; i++) {
		int t = tiles[i], suit, digit;
		if (hy_tile_is_red(t)) {
			suit = t - HY_TILE_5MR;
			digit = 0;
		} else {
			suit = t / 9;
			digit = suit == 3 ? t - 27 + 1 : t % 9 + 1;
		}
		tmp[0] = (char)('0' + digit);
		tmp[1] = 0;
		if (len + 1 < size)
			buf[len] = tmp[0];
		len++;
		int next_suit = -1;
		if (i + 1 < n) {
			int u = tiles[i + 1];
			next_suit = hy_tile_is_red(u) ? u - HY_TILE_5MR : u / 9;
		}
		if (next_suit != suit) {
			if (len + 1 < size)
				buf[len] = letters[suit];
			len++;
		}
	}
	if (size)
		buf[len < size ? len : size - 1] = 0;
	return (int)len;
}
