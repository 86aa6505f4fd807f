/* Fuzz harness: the mjai bot protocol (lib/play/mjaibot.h). Each input line
 * is read twice: as a server line (hy_mjaibot_parse_batch; what parses must
 * format back with hy_mjaibot_format_batch and parse again to as many events)
 * and as the answer of the seat that decides now in a self-played game
 * (hy_mjaibot_parse_answer on a hy_table seeded from the first byte). A
 * legal answer is played, so inputs can walk through a game; an answer that
 * parses as legal must be one the engine accepts. */
#include "engine/table.h"
#include "fuzz.h"
#include "play/mjaibot.h"

static hy_table table;

static void server_line(const char *line, size_t len)
{
	hy_game g, back;
	hy_game_init(&g);
	hy_game_init(&back);
	hy_diag d;
	if (hy_mjaibot_parse_batch(&g, line, len, 1, &d) == HY_OK) {
		char *out = NULL;
		size_t olen = 0;
		if (hy_mjaibot_format_batch(g.ev, g.n, &out, &olen, &d) == HY_OK) {
			if (hy_mjaibot_parse_batch(&back, out, olen, 1, &d) != HY_OK ||
			    back.n != g.n) {
				fprintf(stderr, "fuzz: protocol line does not read back: %s\n", d.msg);
				abort();
			}
			free(out);
		}
		for (size_t i = 0; i < g.n; i++)
			(void)hy_mjaibot_start_id(&g.ev[i]);
	}
	hy_game_free(&g);
	hy_game_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	hy_diag d;
	if (hy_table_start(&table, NULL, data[0], 0, NULL, &d) != HY_OK)
		abort();
	char *doc = fz_doc(data + 1, size - 1);
	size_t len = size - 1;
	hy_game scratch;
	hy_game_init(&scratch);
	const char *p = doc, *end = doc + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		server_line(p, n);
		if (table.e.phase != HY_PH_GAME_END) {
			unsigned who = hy_engine_deciders(&table.e);
			int seat = 0;
			while (seat < 4 && !(who >> seat & 1))
				seat++;
			if (seat < 4) {
				hy_action a;
				int index = -1, illegal = 0;
				if (hy_mjaibot_parse_answer(&table.e, seat, p, n, &scratch, &a, &index,
							    &illegal, &d) == HY_OK) {
					if (hy_table_act(&table, seat, index, &d) != HY_OK) {
						fprintf(stderr, "fuzz: accepted answer refused: %s\n",
							d.msg);
						abort();
					}
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	hy_game_free(&scratch);
	free(doc);
	return 0;
}
