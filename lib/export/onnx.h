/* The inference network of a model as an ONNX file (ARCHITECTURE.md §7,
 * "ONNX export"): observation and legal mask in, the masked policy logits
 * and the other heads' outputs out, the weights as initializers, a dynamic
 * batch dimension. The ModelProto is built with protobuf-c from code that
 * protoc-c generates at build time out of the onnx.proto a Debian package
 * installs (Makefile: HAVE_ONNX); a build without protoc-c, libprotobuf-c
 * or onnx.proto has these functions too, and hy_export_onnx_save says that
 * the exporter was not built (HY_EUNSUP), so callers need no #ifdef.
 *
 * Opset 17, IR version 8 (ONNX 1.12, what Debian 12 ships): every op is
 * one that onnx 1.12's checker and current onnxruntime both know. GroupNorm
 * is InstanceNormalization over [N, 32, C/32·34] between two Reshapes, then
 * the per-channel affine; Mish is x·tanh(softplus(x)). */
#ifndef HY_EXPORT_ONNX_H
#define HY_EXPORT_ONNX_H

#include "core/status.h"
#include "nn/model.h"

enum { HY_EXPORT_ONNX_OPSET = 17, HY_EXPORT_ONNX_IR = 8 };

/* The graph's input and output names (ARCHITECTURE.md §7). */
#define HY_EXPORT_IN_OBS "obs"       /* float [N][85][34], the §5 planes  */
#define HY_EXPORT_IN_LEGAL "legal"   /* bool [N][46], the legal mask       */
#define HY_EXPORT_OUT_POLICY "policy_logits" /* float [N][46], −inf where illegal */
#define HY_EXPORT_OUT_VALUE "value"          /* float [N]                     */
#define HY_EXPORT_OUT_GRP "grp_logits"       /* float [N][24]                 */
#define HY_EXPORT_OUT_TENPAI "tenpai_logits" /* float [N][3]                  */
#define HY_EXPORT_OUT_DANGER "danger_logits" /* float [N][3][34]              */

/* 1 when this build has the ONNX exporter. */
int hy_export_onnx_built(void);

/* Writes m's inference graph to path atomically (io/output.h; "-" or NULL:
 * standard output). producer_version goes into the model's
 * producer_version field (NULL: none), obs_version (the observation version
 * of the checkpoint, samples/sample.h; < 0: none) into its metadata_props
 * as "obs_version". HY_EUNSUP when the exporter was not built; HY_EIO,
 * HY_ENOMEM otherwise. */
hy_status hy_export_onnx_save(const char *path, const hy_nn_model *m,
	const char *producer_version, int obs_version, hy_diag *d);

#endif
