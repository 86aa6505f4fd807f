/* What a training mode needs of its inputs (see inputs.h). */
#include "train/inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samples/reader.h"

hy_status hy_train_inputs_have(const char *const *paths, size_t n,
	int (*has)(const hy_sample *s), hy_status (*none)(hy_diag *d), hy_diag *d)
{
	hy_sample *s = malloc(sizeof *s);
	if (!s)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	hy_status st = HY_OK;
	for (size_t i = 0; i < n && !st; i++) {
		if (!paths[i] || strcmp(paths[i], "-") == 0)
			continue;
		hy_sample_reader *r;
		if ((st = hy_sample_reader_open(&r, paths[i], d)))
			break;
		int found = 0;
		uint64_t seen = 0;
		while ((st = hy_sample_read(r, s, d)) == HY_OK) {
			seen++;
			if (has(s)) {
				found = 1;
				break;
			}
		}
		hy_sample_reader_close(r);
		if (st == HY_STOP && !seen)
			st = hy_diag_set(d, HY_EDATA, 0, "no samples: the stream is empty (no game "
				"was encoded into it, or every game of the self-play run that wrote "
				"it aborted)");
		else if (st == HY_STOP || found)
			st = found ? HY_OK : none(d);
		if (st && d)
			snprintf(d->source, sizeof d->source, "%s", paths[i]);
	}
	free(s);
	return st;
}

static int has_opp(const hy_sample *s)
{
	return (s->flags & HY_SAMPLE_F_OPP_KNOWN) != 0;
}

static hy_status no_opp(hy_diag *d)
{
	return hy_diag_set(d, HY_EDATA, 0, "no sample knows the opponents' hands (flags bit 0 "
		"clear in every one): a wait reader learns nothing from them; --mode reader "
		"trains on hydra-sp output or on logs that show every hand");
}

hy_status hy_train_reader_check_inputs(const char *const *paths, size_t n, hy_diag *d)
{
	return hy_train_inputs_have(paths, n, has_opp, no_opp, d);
}
