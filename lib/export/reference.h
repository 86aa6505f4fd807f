/* The outputs an exported graph must reproduce (export/onnx.h): the model's
 * own forward pass on samples, written with the graph's input and output
 * names, for checking an ONNX file in another runtime. */
#ifndef HY_EXPORT_REFERENCE_H
#define HY_EXPORT_REFERENCE_H

#include <stddef.h>
#include <stdio.h>

#include "core/status.h"
#include "nn/model.h"
#include "samples/sample.h"

/* m's own forward pass (an inference workspace, batches of up to 256) over
 * s[0..n), one JSON object a line on f, named as the graph's inputs and
 * outputs (export/onnx.h):
 *   {"obs":[85·34 numbers, plane-major],"legal":[46 of 0/1],
 *    "policy_logits":[46, null where illegal: JSON has no −inf],
 *    "value":x,"grp_logits":[24],"tenpai_logits":[3],
 *    "danger_logits":[3·34, opponent-major]}
 * Numbers are printed with 9 significant digits, so every float reads back
 * exactly. HY_EDATA for a sample the model cannot load (names it), HY_EIO
 * when f fails. */
hy_status hy_export_reference(const hy_nn_model *m, const hy_sample *s, size_t n, FILE *f,
	hy_diag *d);

#endif
