/* Fuzz harness: mjai JSON lines (hy_mjai_parse_doc), every game parsed then
 * used as a consumer would (tests/fuzz/fuzz.h), plus the single-event parser
 * on the first line. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = fz_doc(data, size);
	hy_game_sink sink = {fz_sink_game, fz_sink_bad, NULL};
	hy_diag d;
	(void)hy_mjai_parse_doc("fuzz", doc, size, &sink, &d);

	const char *nl = memchr(doc, '\n', size);
	size_t n = nl ? (size_t)(nl - doc) : size;
	hy_game g;
	hy_game_init(&g);
	hy_event e;
	if (hy_mjai_parse_event(&g, doc, n, 1, &e, &d) == HY_OK) {
		char line[8192];
		(void)hy_mjai_format_event(&e, line, sizeof line);
	}
	hy_game_free(&g);
	free(doc);
	return 0;
}
