/* Fuzz harness: Tenhou mjlog XML through hy_tenhou_parse_doc (the seeds and
 * the dictionary are mjlog; the parser sniffs the format itself). */
#include "fuzz.h"
#include "tenhou/tenhou.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = fz_doc(data, size);
	(void)hy_tenhou_detect(doc, size);
	hy_game_sink sink = {fz_sink_game, fz_sink_bad, NULL};
	hy_diag d;
	(void)hy_tenhou_parse_doc("fuzz.mjlog", doc, size, &sink, &d);
	free(doc);
	return 0;
}
