/* The policies built into lib/play (random.c, baseline.c, rulebot.c, model.c), opened
 * through hy_policy_open's spec dispatch (policy.c). */
#ifndef HY_PLAY_BUILTIN_H
#define HY_PLAY_BUILTIN_H

#include "core/status.h"
#include "play/policy.h"

hy_status hy_policy_open_random(hy_policy *p, hy_diag *d);
hy_status hy_policy_open_baseline(hy_policy *p, hy_diag *d);
/* The stronger rule teacher and yardstick (rulebot.c); params NULL for
 * its defaults, else `rulebot:`'s PARAMS (play/ruleparams.h). */
hy_status hy_policy_open_rulebot(hy_policy *p, const char *params, hy_diag *d);
/* rulebot whose belief about the waits is blended with the truth
 * (play/waitoracle.h): spec "ALPHA[,riichi|tenpai][,PARAMS]", PARAMS a file
 * or a list separated by ';'. An oracle. */
hy_status hy_policy_open_rulebot_waits(hy_policy *p, const char *spec, hy_diag *d);
/* The same with parameters given as numbers (play/ruleparams.h). */
struct hy_rule_params;
hy_status hy_policy_open_rulebot_with(hy_policy *p, const struct hy_rule_params *P, hy_diag *d);
/* A checkpoint (nn/checkpoint.h) on the CPU backend; o->device "cuda"
 * gives HY_EUNSUP ("no CUDA backend in this build"). */
hy_status hy_policy_open_model(hy_policy *p, const char *path, const hy_policy_opts *o,
			       hy_diag *d);

#endif
