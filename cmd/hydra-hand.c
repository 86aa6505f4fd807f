/* hydra-hand: hand calculator. Without a win: shanten (all forms), waits and
 * tile acceptance; with --tsumo/--ron: yaku, han, fu, points and payments
 * under the Tenhou rule set. Option parsing and wiring only: the logic is in
 * lib/hand (shanten.h, agari.h, yaku.h, score.h). */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "core/num.h"
#include "core/status.h"
#include "core/tile.h"
#include "core/version.h"
#include "hand/score.h"
#include "hand/shanten.h"



enum { MODE_ANALYSE, MODE_TSUMO, MODE_RON };


typedef struct query {
	int mode, json, batch, help, version;
	int second_winner;        /* --double-ron */
	const char *hand, *win;
	int from;                 /* discarder seat or -1 */
	int honba, sticks;        /* --honba, --sticks (then in q) */
	hy_hand_query q;          /* melds, flags, dora, winds, honba, sticks, pao */
} query;

/* Where hand_table writes a query's options (one query at a time). */
static query Q;

/* Parse results: 0 ok, 1 bad hand data, 2 usage. */
enum { P_OK = 0, P_DATA = 1, P_USAGE = 2 };

static int wind_arg(const char *s)
{
	static const char *const w[4] = {"E", "S", "W", "N"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, w[i]))
			return i;
	return -1;
}

/* The rows of hand_table (cli/opts.h) that parse more than a number. */
static int bad_wind(hy_cli *cli, const char *arg)
{
	return hy_cli_usage(cli, "'%s' is not a seat or wind (E, S, W, N)", arg);
}

static int opt_from(hy_cli *cli, const char *arg, void *dest)
{
	int w = wind_arg(arg);
	if (w < 0)
		return bad_wind(cli, arg);
	*(int *)dest = w;
	return 0;
}

/* --round, --seat, --pao: a wind into a uint8_t */
static int opt_wind(hy_cli *cli, const char *arg, void *dest)
{
	int w = wind_arg(arg);
	if (w < 0)
		return bad_wind(cli, arg);
	*(uint8_t *)dest = (uint8_t)w;
	return 0;
}

static int opt_meld(hy_cli *cli, const char *arg, void *dest)
{
	hy_hand_query *q = dest;
	if (q->nmelds == 4)
		return hy_cli_usage(cli, "at most 4 melds");
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_meld_parse(arg, &q->melds[q->nmelds], &d) != HY_OK)
		return hy_cli_fail(cli, P_DATA, "%s", d.msg);
	q->nmelds++;
	return 0;
}

static int indicators(hy_cli *cli, const char *s, uint8_t *dst, uint8_t *n, const char *what)
{
	uint8_t t[8];
	const char *end;
	int k = hy_mpsz_parse(s, t, 8, &end);
	if (k <= 0 || *end || *n + k > 5)
		return hy_cli_usage(cli, "bad %s indicators '%s' (mpsz, at most 5 in all)", what, s);
	memcpy(dst + *n, t, (size_t)k);
	*n = (uint8_t)(*n + k);
	return 0;
}

static int opt_dora(hy_cli *cli, const char *arg, void *dest)
{
	hy_hand_query *q = dest;
	return indicators(cli, arg, q->dora, &q->ndora, "dora");
}

static int opt_ura(hy_cli *cli, const char *arg, void *dest)
{
	hy_hand_query *q = dest;
	return indicators(cli, arg, q->ura, &q->nura, "ura");
}

static const hy_opt hand_table[] = {
	{.type = HY_OPT_TEXT, .help = "usage: hydra-hand [options] HAND [TILE]\n"
	 "       hydra-hand --batch [options] < QUERIES\n"
	 "Without --tsumo or --ron: shanten (standard, chiitoitsu, kokushi), waits and\n"
	 "tile acceptance of HAND. With --tsumo or --ron: yaku, han, fu, points and\n"
	 "payments of the win on TILE (or --win TILE, or the last tile of HAND) under\n"
	 "Tenhou rules. HAND is mpsz notation (123m406p789s1122z, 0 = red five).\n"},
	{.name = "tsumo", .type = HY_OPT_SET, .dest = &Q.mode, .min = MODE_TSUMO,
	 .help = "win by self-draw"},
	{.name = "ron", .key = 'r', .type = HY_OPT_SET, .dest = &Q.mode, .min = MODE_RON,
	 .help = "win on a discard"},
	{.name = "win", .key = 'w', .type = HY_OPT_STR, .dest = &Q.win,
	 .arg = "TILE", .help = "the winning tile (added when HAND has 3n+1 tiles)"},
	{.name = "from", .key = 'f', .type = HY_OPT_CALL, .dest = &Q.from, .call = opt_from,
	 .arg = "SEAT", .help = "ron: the discarder's seat wind (default: kamicha)"},
	{.name = "meld", .key = 'm', .type = HY_OPT_CALL, .dest = &Q.q, .call = opt_meld,
	 .arg = "MELD", .help = "an open meld or ankan: chi:345m, pon:555z+,\n"
		 "kan:1111s=, ankan:5055p, kakan:777z- (source\n"
		 "- kamicha, = toimen, + shimocha; repeatable)"},
	{.name = "riichi", .key = 'R', .type = HY_OPT_BIT, .dest = &Q.q.flags, .min = HY_WIN_RIICHI,
	 .help = "riichi"},
	{.name = "double-riichi", .type = HY_OPT_BIT, .dest = &Q.q.flags, .min = HY_WIN_DOUBLE_RIICHI,
	 .help = "double riichi"},
	{.name = "ippatsu", .key = 'i', .type = HY_OPT_BIT, .dest = &Q.q.flags, .min = HY_WIN_IPPATSU,
	 .help = "ippatsu"},
	{.name = "haitei", .type = HY_OPT_BIT, .dest = &Q.q.flags, .min = HY_WIN_HAITEI,
	 .help = "tsumo on the last tile"},
	{.name = "houtei", .type = HY_OPT_BIT, .dest = &Q.q.flags, .min = HY_WIN_HOUTEI,
	 .help = "ron on the last discard"},
	{.name = "rinshan", .type = HY_OPT_BIT, .dest = &Q.q.flags, .min = HY_WIN_RINSHAN,
	 .help = "tsumo on a kan replacement tile"},
	{.name = "chankan", .type = HY_OPT_BIT, .dest = &Q.q.flags, .min = HY_WIN_CHANKAN,
	 .help = "ron on an added kan"},
	{.name = "tenhou", .type = HY_OPT_BIT, .dest = &Q.q.flags, .min = HY_WIN_TENHOU,
	 .help = "dealer's first draw"},
	{.name = "chiihou", .type = HY_OPT_BIT, .dest = &Q.q.flags, .min = HY_WIN_CHIIHOU,
	 .help = "non-dealer's first draw"},
	{.name = "dora", .key = 'd', .type = HY_OPT_CALL, .dest = &Q.q, .call = opt_dora,
	 .arg = "IND", .help = "dora indicators in mpsz (repeatable)"},
	{.name = "ura", .key = 'u', .type = HY_OPT_CALL, .dest = &Q.q, .call = opt_ura,
	 .arg = "IND", .help = "ura dora indicators (counted with riichi)"},
	{.name = "round", .type = HY_OPT_CALL, .dest = &Q.q.round_wind, .call = opt_wind,
	 .arg = "WIND", .help = "round wind E, S, W or N (default E)"},
	{.name = "seat", .type = HY_OPT_CALL, .dest = &Q.q.seat_wind, .call = opt_wind,
	 .arg = "WIND", .help = "seat wind E, S, W or N (default E, the dealer)"},
	{.name = "honba", .type = HY_OPT_INT, .dest = &Q.honba, .min = 0, .max = 99, .range = "0 to 99",
	 .arg = "N", .help = "honba counters (0-99)"},
	{.name = "sticks", .type = HY_OPT_INT, .dest = &Q.sticks, .min = 0, .max = 99, .range = "0 to 99",
	 .arg = "N", .help = "riichi sticks on the table (0-99)"},
	{.name = "pao", .type = HY_OPT_CALL, .dest = &Q.q.pao_seat, .call = opt_wind,
	 .arg = "SEAT", .help = "seat wind liable for daisangen/daisuushii"},
	{.name = "double-ron", .type = HY_OPT_FLAG, .dest = &Q.second_winner,
	 .help = "ron: the hand is the second winner of a double\n"
		 "ron; honba and sticks go to the first winner (in\n"
		 "turn order from the discarder), not to this one"},
	{.name = "json", .type = HY_OPT_FLAG, .dest = &Q.json,
	 .help = "one JSON object per query"},
	{.name = "batch", .key = 'b', .type = HY_OPT_FLAG, .dest = &Q.batch,
	 .help = "read queries from stdin, one per line (the\n"
		 "arguments above); write one JSON line each"},
	{.name = "quiet", .key = 'q', .type = HY_OPT_DOC,
	 .help = "accepted as in every program (hydra-hand prints"},
	{.name = "verbose", .key = 'v', .type = HY_OPT_DOC,
	 .help = "no notices and has no more to say)"},
	{.name = "help", .key = 'h', .type = HY_OPT_FLAG, .dest = &Q.help,
	 .help = "show this help and exit"},
	{.name = "version", .key = 'V', .type = HY_OPT_FLAG, .dest = &Q.version,
	 .help = "show the version and exit"},
	{.type = HY_OPT_TEXT, .help = "\n"
	 "Exit status: 0 ok, 1 bad hand (batch: any bad line), 2 usage."},
	{.type = HY_OPT_END},
};

/* Parses one argument vector (the command line or a batch line) into *o;
 * the message of a failure in err. */
static int parse_args(hy_cli *cli, int argc, char **argv, query *o, char *err, size_t esize)
{
	memset(&Q, 0, sizeof Q);
	hy_hand_query_init(&Q.q);
	Q.from = -1;
	int optind_;
	hy_cli_capture(cli, err, esize);
	int rc = hy_cli_parse_opts(cli, hand_table, 25, argc, argv, &optind_);
	hy_cli_capture(cli, NULL, 0);
	if (rc >= 0)
		return rc ? rc : P_USAGE;
	Q.q.honba = (uint16_t)Q.honba;
	Q.q.sticks = (uint16_t)Q.sticks;
	*o = Q;
	optind = optind_;
	int npos = argc - optind;
	if (o->help || o->version || o->batch)
		return npos ? (snprintf(err, esize, "unexpected argument '%s'", argv[optind]), P_USAGE)
			    : P_OK;
	if (npos < 1 || npos > 2) {
		snprintf(err, esize, npos ? "too many arguments" : "no hand given");
		return P_USAGE;
	}
	o->hand = argv[optind];
	if (npos == 2) {
		/* "--ron 5m HAND" reads as well as "HAND --ron 5m" */
		uint8_t t[15];
		const char *e1, *e2;
		if (hy_mpsz_parse(argv[optind], t, 15, &e1) == 1 && !*e1 &&
		    hy_mpsz_parse(argv[optind + 1], t, 15, &e2) > 1 && !*e2) {
			char *tmp = argv[optind];
			argv[optind] = argv[optind + 1];
			argv[optind + 1] = tmp;
			o->hand = argv[optind];
		}
		if (o->win) {
			snprintf(err, esize, "winning tile given twice");
			return P_USAGE;
		}
		o->win = argv[optind + 1];
	}
	if (o->win && o->mode == MODE_ANALYSE) {
		snprintf(err, esize, "a winning tile needs --tsumo or --ron");
		return P_USAGE;
	}
	if (o->from >= 0 && o->mode != MODE_RON) {
		snprintf(err, esize, "--from needs --ron");
		return P_USAGE;
	}
	if (o->second_winner && o->mode != MODE_RON) {
		snprintf(err, esize, "--double-ron needs --ron");
		return P_USAGE;
	}
	/* Tenhou pays the honba and the riichi sticks of a double ron to the
	 * first winner only (the nearer in turn order after the discarder) */
	if (o->second_winner)
		o->q.honba = o->q.sticks = 0;
	return P_OK;
}

/* ------------------------------------------------------------ output */

static const char *kind_name(int k, char buf[4])
{
	uint8_t t = (uint8_t)k;
	hy_mpsz_format(&t, 1, buf, 4);
	return buf;
}

static json_t *kinds_json(uint64_t mask)
{
	json_t *a = json_array();
	char b[4];
	for (int k = 0; k < 34; k++)
		if (mask >> k & 1)
			json_array_append_new(a, json_string(kind_name(k, b)));
	return a;
}

static void kinds_text(FILE *f, uint64_t mask)
{
	char b[4];
	int first = 1;
	for (int k = 0; k < 34; k++)
		if (mask >> k & 1) {
			fprintf(f, "%s%s", first ? "" : " ", kind_name(k, b));
			first = 0;
		}
	if (first)
		fputs("-", f);
}

static json_t *melds_json(const hy_hand_query *q)
{
	json_t *a = json_array();
	char b[32];
	for (int i = 0; i < q->nmelds; i++) {
		hy_meld_format(&q->melds[i], b, sizeof b);
		json_array_append_new(a, json_string(b));
	}
	return a;
}

static void emit_json(json_t *o, int line)
{
	if (line > 0)
		json_object_set_new(o, "line", json_integer(line));
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (s) {
		puts(s);
		free(s);
	}
	json_decref(o);
}

/* ------------------------------------------------------------ analysis */

/* Sorts tile codes by kind, a red five before the plain ones. */
static void sort_tiles(uint8_t *t, int n)
{
	for (int i = 1; i < n; i++) {
		uint8_t x = t[i];
		int key = 2 * hy_tile_kind(x) + !hy_tile_is_red(x), j = i;
		for (; j > 0 && 2 * hy_tile_kind(t[j - 1]) + !hy_tile_is_red(t[j - 1]) > key; j--)
			t[j] = t[j - 1];
		t[j] = x;
	}
}


static int analyse(const query *o, const uint8_t *tiles, int n, int line, char *err, size_t esize)
{
	uint8_t c[34] = {0}, visible[34] = {0};
	int nm = o->q.nmelds;
	for (int i = 0; i < n; i++)
		c[hy_tile_kind(tiles[i])]++;
	for (int i = 0; i < nm; i++)
		for (int j = 0; j < o->q.melds[i].ntiles; j++)
			visible[hy_tile_kind(o->q.melds[i].tiles[j])]++;
	for (int k = 0; k < 34; k++)
		if (c[k] + visible[k] > 4) {
			char b[4];
			snprintf(err, esize, "%d tiles of %s (at most 4)", c[k] + visible[k], kind_name(k, b));
			return P_DATA;
		}
	int full = 3 * (4 - nm);
	if (n != full + 1 && n != full + 2) {
		snprintf(err, esize, "%d tiles with %d melds: expected %d or %d", n, nm, full + 1, full + 2);
		return P_DATA;
	}
	hy_shanten_forms sf = hy_shanten_all(c, nm);
	uint64_t waits = 0, uk = 0, best = 0;
	int live = 0, bestsh = 0;
	if (n == full + 1) {
		waits = hy_hand_waits(c, nm);
		live = hy_ukeire(c, nm, visible, &uk);
	} else {
		int8_t out[34];
		bestsh = hy_shanten_discards(c, nm, out);
		for (int k = 0; k < 34; k++)
			if (c[k] && out[k] == bestsh)
				best |= 1ull << k;
	}
	char hand[64];
	uint8_t sorted[18];
	memcpy(sorted, tiles, (size_t)n);
	sort_tiles(sorted, n);
	hy_mpsz_format(sorted, n, hand, sizeof hand);
	if (o->json || line > 0) {
		json_t *j = json_object();
		json_object_set_new(j, "hand", json_string(hand));
		json_object_set_new(j, "melds", melds_json(&o->q));
		json_t *s = json_object();
		json_object_set_new(s, "min", json_integer(sf.min));
		json_object_set_new(s, "standard", json_integer(sf.standard));
		json_object_set_new(s, "chiitoitsu",
				    sf.chiitoi == HY_SHANTEN_NA ? json_null() : json_integer(sf.chiitoi));
		json_object_set_new(s, "kokushi",
				    sf.kokushi == HY_SHANTEN_NA ? json_null() : json_integer(sf.kokushi));
		json_object_set_new(j, "shanten", s);
		if (n == full + 1) {
			json_object_set_new(j, "waits", kinds_json(waits));
			json_object_set_new(j, "ukeire", kinds_json(uk));
			json_object_set_new(j, "ukeire_tiles", json_integer(live));
		} else {
			json_object_set_new(j, "best_discards", kinds_json(best));
			json_object_set_new(j, "shanten_after_discard", json_integer(bestsh));
		}
		emit_json(j, line);
		return P_OK;
	}
	printf("hand: %s", hand);
	char b[32];
	for (int i = 0; i < nm; i++) {
		hy_meld_format(&o->q.melds[i], b, sizeof b);
		printf(" %s", b);
	}
	printf("\nshanten: %d (standard %d", sf.min, sf.standard);
	if (sf.chiitoi != HY_SHANTEN_NA)
		printf(", chiitoitsu %d", sf.chiitoi);
	if (sf.kokushi != HY_SHANTEN_NA)
		printf(", kokushi %d", sf.kokushi);
	printf(")\n");
	if (n == full + 1) {
		printf("waits: ");
		kinds_text(stdout, waits);
		printf("\nukeire: ");
		kinds_text(stdout, uk);
		printf(" (%d tiles)\n", live);
	} else {
		printf("best discards: ");
		kinds_text(stdout, best);
		printf(" (shanten %d after)\n", bestsh);
	}
	return P_OK;
}

/* ------------------------------------------------------------ scoring */

static const char *const outcome_names[] = {"win", "incomplete", "no_yaku"};

static int score(query *o, uint8_t *tiles, int n, int line, char *err, size_t esize)
{
	hy_hand_query *q = &o->q;
	int full = 14 - 3 * q->nmelds;
	int win;
	if (o->win) {
		uint8_t t[2];
		const char *end;
		if (hy_mpsz_parse(o->win, t, 2, &end) != 1 || *end) {
			snprintf(err, esize, "bad winning tile '%s'", o->win);
			return P_DATA;
		}
		win = t[0];
		if (n == full - 1)
			tiles[n++] = (uint8_t)win;
	} else {
		if (n < 1) {
			snprintf(err, esize, "empty hand");
			return P_DATA;
		}
		win = tiles[n - 1];
	}
	if (n > 14) {
		snprintf(err, esize, "%d concealed tiles", n);
		return P_DATA;
	}
	memcpy(q->tiles, tiles, (size_t)n);
	q->ntiles = (uint8_t)n;
	q->win_tile = (uint8_t)win;
	q->tsumo = o->mode == MODE_TSUMO;
	q->ron_from = o->from >= 0 ? (uint8_t)o->from : HY_SEAT_NONE;
	hy_hand_result r;
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_score_hand(q, &r, &d) != HY_OK) {
		snprintf(err, esize, "%s", d.msg);
		return P_DATA;
	}
	/* the hand without the winning tile, sorted; the tile shown apart */
	uint8_t rest[14];
	int nr = 0, skipped = 0;
	for (int i = n - 1; i >= 0; i--) {
		if (!skipped && tiles[i] == q->win_tile) {
			skipped = 1;
			continue;
		}
		rest[nr++] = tiles[i];
	}
	sort_tiles(rest, nr);
	char hand[64], wname[8];
	hy_mpsz_format(rest, nr, hand, sizeof hand);
	hy_mpsz_format(&q->win_tile, 1, wname, sizeof wname);
	if (o->json || line > 0) {
		json_t *j = json_object();
		json_object_set_new(j, "hand", json_string(hand));
		json_object_set_new(j, "melds", melds_json(q));
		json_object_set_new(j, "win", json_string(wname));
		json_object_set_new(j, "tsumo", json_boolean(q->tsumo));
		json_object_set_new(j, "outcome", json_string(outcome_names[r.outcome]));
		json_t *y = json_array();
		for (int i = 0; i < r.nyaku; i++) {
			json_t *e = json_object();
			json_object_set_new(e, "id", json_integer(r.yaku[i].id));
			json_object_set_new(e, "name", json_string(hy_yaku_name(r.yaku[i].id)));
			json_object_set_new(e, "han", json_integer(r.yaku[i].han));
			json_array_append_new(y, e);
		}
		json_object_set_new(j, "yaku", y);
		json_object_set_new(j, "han", json_integer(r.han));
		json_object_set_new(j, "fu", json_integer(r.fu));
		json_object_set_new(j, "yakuman", json_integer(r.yakuman));
		json_object_set_new(j, "limit", json_string(hy_limit_name(r.limit)));
		json_object_set_new(j, "wait", r.outcome == HY_HAND_WIN
					? json_string(hy_wait_name(r.wait)) : json_null());
		json_object_set_new(j, "points", json_integer(r.points));
		json_object_set_new(j, "ron", json_integer(r.ron));
		json_object_set_new(j, "tsumo_dealer", json_integer(r.tsumo_dealer));
		json_object_set_new(j, "tsumo_other", json_integer(r.tsumo_other));
		json_t *dl = json_array();
		for (int i = 0; i < 4; i++)
			json_array_append_new(dl, json_integer(r.deltas[i]));
		json_object_set_new(j, "deltas", dl);
		emit_json(j, line);
		return P_OK;
	}
	printf("hand: %s", hand);
	char b[32];
	for (int i = 0; i < q->nmelds; i++) {
		hy_meld_format(&q->melds[i], b, sizeof b);
		printf(" %s", b);
	}
	printf(" (%s %s)\n", q->tsumo ? "tsumo" : "ron", wname);
	if (r.outcome != HY_HAND_WIN) {
		printf("result: %s\n", r.outcome == HY_HAND_INCOMPLETE
		       ? "not a complete hand" : "no yaku");
		return P_OK;
	}
	printf("yaku:");
	for (int i = 0; i < r.nyaku; i++)
		printf(" %s %d%s", hy_yaku_name(r.yaku[i].id), r.yaku[i].han,
		       i + 1 < r.nyaku ? "," : "");
	printf("\n");
	if (r.yakuman)
		printf("han: %d (%d yakuman)\n", r.han, r.yakuman);
	else
		printf("han: %d, fu: %d%s%s\n", r.han, r.fu, r.limit ? ", " : "",
		       hy_limit_name(r.limit));
	if (q->tsumo && q->seat_wind == 0)
		printf("points: %d (%d all)\n", r.points, r.tsumo_other);
	else if (q->tsumo)
		printf("points: %d (%d/%d)\n", r.points, r.tsumo_other, r.tsumo_dealer);
	else
		printf("points: %d\n", r.points);
	printf("deltas: E %+d, S %+d, W %+d, N %+d\n", r.deltas[0], r.deltas[1], r.deltas[2],
	       r.deltas[3]);
	return P_OK;
}

static int run_query(query *o, int line, char *err, size_t esize)
{
	uint8_t tiles[20];
	const char *end;
	int n = hy_mpsz_parse(o->hand, tiles, 18, &end);
	if (n <= 0 || *end) {
		snprintf(err, esize, "bad hand '%s' (mpsz notation, e.g. 123m406p789s1122z)", o->hand);
		return P_DATA;
	}
	if (o->mode == MODE_ANALYSE)
		return analyse(o, tiles, n, line, err, esize);
	return score(o, tiles, n, line, err, esize);
}

/* ------------------------------------------------------------ batch */

static int batch(hy_cli *cli, int argc, char **argv)
{
	char *buf = NULL, err[600];
	size_t cap = 0;
	int lineno = 0, status = 0;
	/* options given with --batch are defaults that lead every line */
	char **args = malloc(sizeof(char *) * (size_t)(argc + 256));
	char **base = malloc(sizeof(char *) * (size_t)(argc + 1));
	if (!args || !base) {
		hy_cli_say(cli, "out of memory");
		free(args);
		free(base);
		return 1;
	}
	int nbase = 0;
	base[nbase++] = argv[0];
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--batch") && strcmp(argv[i], "-b"))
			base[nbase++] = argv[i];
	while (getline(&buf, &cap, stdin) > 0) {
		lineno++;
		/* getopt permutes its vector: start from a fresh copy */
		memcpy(args, base, sizeof(char *) * (size_t)nbase);
		int na = nbase;
		for (char *tok = strtok(buf, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
			if (na == nbase + 250)
				break;
			args[na++] = tok;
		}
		if (na == nbase || args[nbase][0] == '#')
			continue;
		args[na] = NULL;
		query o;
		int rc = parse_args(cli, na, args, &o, err, sizeof err);
		if (rc == P_OK && (o.help || o.version || o.batch)) {
			snprintf(err, sizeof err, "--help, --version and --batch are not queries");
			rc = P_USAGE;
		}
		if (rc == P_OK)
			rc = run_query(&o, lineno, err, sizeof err);
		if (rc != P_OK) {
			hy_cli_say(cli, "<stdin>:%d: %s", lineno, err);
			json_t *j = json_object();
			json_object_set_new(j, "error", json_string(err));
			emit_json(j, lineno);
			status = 1;
		}
	}
	free(buf);
	free(args);
	free(base);
	if (ferror(stdin)) {
		hy_cli_say(cli, "<stdin>: read error: %s", strerror(errno));
		return 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	hy_cli cli;
	hy_cli_init(&cli, "hydra-hand");
	query o;
	char err[600];
	int rc = parse_args(&cli, argc, argv, &o, err, sizeof err);
	if (rc == P_OK && o.help) {
		char *help = hy_cli_opts_help(hand_table, 25);
		if (!help) {
			hy_cli_say(&cli, "out of memory");
			return 1;
		}
		rc = hy_cli_help(&cli, help);
		free(help);
		return rc;
	}
	if (rc == P_OK && o.version)
		return hy_cli_version(&cli);
	if (rc == P_USAGE)
		return hy_cli_usage(&cli, "%s", err);
	if (rc == P_OK && o.batch) {
		hy_cli_stdin(&cli, NULL, 0, 0, "queries");
		return hy_cli_finish(&cli, batch(&cli, argc, argv));
	}
	if (rc == P_OK)
		rc = run_query(&o, 0, err, sizeof err);
	if (rc != P_OK)
		hy_cli_say(&cli, "%s", err);
	return hy_cli_finish(&cli, rc);
}
