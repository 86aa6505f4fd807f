/* Fuzz harness: tenhou.net/6 JSON (one object with "log", or one kyoku per
 * line) through hy_tenhou_parse_doc; seeds and dictionary are tenhou.net/6. */
#include "fuzz.h"
#include "tenhou/tenhou.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = fz_doc(data, size);
	(void)hy_tenhou_detect(doc, size);
	hy_game_sink sink = {fz_sink_game, fz_sink_bad, NULL};
	hy_diag d;
	(void)hy_tenhou_parse_doc("fuzz.json", doc, size, &sink, &d);
	free(doc);
	return 0;
}
