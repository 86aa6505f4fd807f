/* What a training mode needs of its inputs, looked for before any step: a
 * run that could learn nothing from them fails at once, naming the input,
 * instead of training to a loss of 0 and saving a checkpoint that learned
 * nothing. PPO needs behaviour log-probabilities (hydra-sp output), a wait
 * reader needs the opponents' hands (HY_SAMPLE_F_OPP_KNOWN: self-play, or
 * logs whose hands are known). Standard input ("-") is not read here: it
 * cannot be read twice. */
#ifndef HY_TRAIN_INPUTS_H
#define HY_TRAIN_INPUTS_H

#include <stddef.h>

#include "core/status.h"
#include "samples/sample.h"

/* HY_OK when every named input (a stream or a shard) has a sample for
 * which has() is true, read only until the first; else the status of
 * none(d, path), or HY_EDATA for an input with no sample at all, the input
 * as the diagnostic's source. */
hy_status hy_train_inputs_have(const char *const *paths, size_t n,
	int (*has)(const hy_sample *s), hy_status (*none)(hy_diag *d), hy_diag *d);

/* --mode reader: some sample of each input knows the opponents' hands. */
hy_status hy_train_reader_check_inputs(const char *const *paths, size_t n, hy_diag *d);

#endif
