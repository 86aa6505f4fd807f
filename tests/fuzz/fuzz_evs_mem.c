/* Fuzz harness: the event stream read from memory (hy_evs_reader_open_mem),
 * every game read then used as a consumer would (tests/fuzz/fuzz.h). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)hy_evs_is_stream(data, size);
	hy_evs_reader *r = NULL;
	if (hy_evs_reader_open_mem(&r, "fuzz.bin", data, size) != HY_OK)
		return 0;
	hy_game g;
	hy_game_init(&g);
	hy_diag d;
	/* a 1 MB input holds at most ~8000 records: the loop is bounded */
	while (hy_evs_read_game(r, &g, &d) == HY_OK)
		fz_use_game(&g);
	(void)hy_evs_reader_records(r);
	hy_evs_reader_close(r);
	hy_game_free(&g);
	return 0;
}
