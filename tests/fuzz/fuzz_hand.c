/* Fuzz harness: hand strings as hydra-hand takes them. The query syntax of
 * hydra-hand (its options, --batch lines) is parsed by getopt in
 * cmd/hydra-hand.c, so this harness fuzzes what lib/ offers under it: mpsz
 * notation (hy_mpsz_parse / hy_mpsz_format), meld notation (hy_meld_parse /
 * hy_meld_format / hy_meld_check), the analysis calls hydra-hand makes on a
 * hand it accepted (shanten, waits, ukeire, discards; the fast standard
 * shanten must equal the reference) and hy_score_hand on any query, which
 * checks the query itself. Input: whitespace-separated tokens, the first a
 * hand; then MELD (with ':'), wTILE (winning tile), dTILES, uTILES, fN
 * (flags), t (tsumo), E/S/W/N (round wind), sN (seat), hN (honba), kN
 * (sticks), pN (pao seat), rN (ron from). */
#include "core/num.h"
#include "core/tile.h"
#include "fuzz.h"
#include "hand/agari.h"
#include "hand/score.h"
#include "hand/shanten.h"
#include "hand/yaku.h"

static void analyse(const uint8_t *tiles, int n, const hy_hand_query *q)
{
	uint8_t c[34] = {0}, visible[34] = {0};
	int nm = q->nmelds;
	for (int i = 0; i < n; i++)
		c[hy_tile_kind(tiles[i])]++;
	for (int i = 0; i < nm; i++)
		for (int j = 0; j < q->melds[i].ntiles; j++)
			visible[hy_tile_kind(q->melds[i].tiles[j])]++;
	for (int k = 0; k < 34; k++)
		if (c[k] + visible[k] > 4)
			return;
	int full = 3 * (4 - nm);
	if (n != full + 1 && n != full + 2)
		return;
	hy_shanten_forms sf = hy_shanten_all(c, nm);
	int fast = hy_shanten_standard(c, nm), ref = hy_shanten_standard_ref(c, nm);
	if (fast != ref || sf.standard != fast) {
		fprintf(stderr, "fuzz: standard shanten %d, reference %d, all-forms %d\n", fast, ref,
			sf.standard);
		abort();
	}
	if (n == full + 1) {
		uint64_t uk = 0;
		(void)hy_hand_waits(c, nm);
		(void)hy_ukeire(c, nm, visible, &uk);
	} else {
		int8_t out[34];
		(void)hy_shanten_discards(c, nm, out);
	}
}

static int num(const char *s, int64_t hi, int64_t *v)
{
	return hy_parse_i64(s, 0, hi, v) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *doc = fz_doc(data, size);
	hy_hand_query q;
	hy_hand_query_init(&q);
	hy_diag d;
	uint8_t tiles[20];
	int n = -1, have_win = 0;
	uint8_t win = 0;
	char out[128];
	int64_t v;
	int first = 1;
	for (char *save = NULL, *tok = strtok_r(doc, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		const char *end;
		uint8_t t[8];
		if (first) {
			first = 0;
			n = hy_mpsz_parse(tok, tiles, 18, &end);
			if (n > 0)
				(void)hy_mpsz_format(tiles, n, out, sizeof out);
			if (n <= 0 || *end)
				n = -1;
		} else if (strchr(tok, ':')) {
			hy_meld m;
			if (hy_meld_parse(tok, &m, &d) == HY_OK) {
				(void)hy_meld_format(&m, out, sizeof out);
				(void)hy_meld_check(&m, &d);
				if (q.nmelds < 4)
					q.melds[q.nmelds++] = m;
			}
		} else if (tok[0] == 'w') {
			if (hy_mpsz_parse(tok + 1, t, 2, &end) == 1 && !*end) {
				win = t[0];
				have_win = 1;
			}
		} else if (tok[0] == 'd' || tok[0] == 'u') {
			int k = hy_mpsz_parse(tok + 1, t, 8, &end);
			uint8_t *cnt = tok[0] == 'd' ? &q.ndora : &q.nura;
			uint8_t *dst = tok[0] == 'd' ? q.dora : q.ura;
			if (k > 0 && !*end && *cnt + k <= 5) {
				memcpy(dst + *cnt, t, (size_t)k);
				*cnt = (uint8_t)(*cnt + k);
				for (int i = 0; i < k; i++)
					(void)hy_dora_from_indicator(t[i]);
			}
		} else if (tok[0] == 'f' && num(tok + 1, 511, &v)) {
			q.flags = (uint32_t)v;
		} else if (!strcmp(tok, "t")) {
			q.tsumo = 1;
		} else if (strchr("ESWN", tok[0]) && !tok[1]) {
			q.round_wind = (uint8_t)(strchr("ESWN", tok[0]) - "ESWN");
		} else if (tok[0] == 's' && num(tok + 1, 3, &v)) {
			q.seat_wind = (uint8_t)v;
		} else if (tok[0] == 'h' && num(tok + 1, 99, &v)) {
			q.honba = (uint16_t)v;
		} else if (tok[0] == 'k' && num(tok + 1, 99, &v)) {
			q.sticks = (uint16_t)v;
		} else if (tok[0] == 'p' && num(tok + 1, 255, &v)) {
			q.pao_seat = (uint8_t)v;
		} else if (tok[0] == 'r' && num(tok + 1, 255, &v)) {
			q.ron_from = (uint8_t)v;
		}
	}
	if (n > 0) {
		analyse(tiles, n, &q);
		/* scoring, as hydra-hand builds the query */
		int full = 14 - 3 * q.nmelds;
		if (!have_win)
			win = tiles[n - 1];
		else if (n == full - 1)
			tiles[n++] = win;
		if (n <= 14) {
			memcpy(q.tiles, tiles, (size_t)n);
			q.ntiles = (uint8_t)n;
			q.win_tile = win;
			hy_hand_result r;
			if (hy_score_hand(&q, &r, &d) == HY_OK && r.outcome == HY_HAND_WIN) {
				int32_t sum = 0;
				for (int i = 0; i < 4; i++)
					sum += r.deltas[i];
				if (sum != 1000 * (int32_t)q.sticks) {
					fprintf(stderr, "fuzz: deltas sum to %d with %u sticks\n",
						(int)sum, (unsigned)q.sticks);
					abort();
				}
				(void)hy_limit_name(r.limit);
				for (int i = 0; i < r.nyaku; i++)
					(void)hy_yaku_name(r.yaku[i].id);
			}
		}
	}
	free(doc);
	return 0;
}
