/* hydra-eval's reports: the arena summary and the dataset metrics as a
 * readable table and as one JSON object (jansson). Numbers that do not
 * exist (an interval over fewer than 3 seeds, a rate without kyoku, an
 * accuracy of an action type with no sample) are "-" in the table and
 * null in JSON. Each writer returns HY_EIO when the stream reports a write
 * error. */
#ifndef HY_PLAY_REPORT_H
#define HY_PLAY_REPORT_H

#include <stdio.h>

#include "core/status.h"
#include "play/arena.h"
#include "play/dseval.h"

/* What the arena ran, for the report's header. */
typedef struct hy_report_arena_info {
	const char *challenger, *opponent; /* policy specs          */
	double chal_temp, opp_temp;        /* a checkpoint's sampling
					    * temperature (0 greedy);
					    * −1: not a checkpoint   */
	unsigned long long seed;           /* master seed           */
	double elapsed_s;                  /* wall time of the games */
	/* --sequential (arena.h hy_arena_seq; seq NULL: a fixed number of
	 * seeds): the looks made, whether the last one decided, the most
	 * seeds the run would have played */
	const hy_arena_seq *seq;
	int looks, decided;
} hy_report_arena_info;

hy_status hy_report_arena_table(FILE *f, const hy_report_arena_info *info,
				const hy_arena_summary *s, hy_diag *d);
/* One line: the JSON object and a newline. */
hy_status hy_report_arena_json(FILE *f, const hy_report_arena_info *info,
			       const hy_arena_summary *s, hy_diag *d);

hy_status hy_report_dseval_table(FILE *f, const char *model, const hy_dseval_result *r,
				 hy_diag *d);
hy_status hy_report_dseval_json(FILE *f, const char *model, const hy_dseval_result *r,
				hy_diag *d);

#endif
