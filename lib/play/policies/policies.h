/* The policies of lib/play/policies/, one file each, and the registry that
 * opens them by spec (registry.c: hy_policy_open, play/policy.h). Every
 * opener has one signature, hy_policy_opener: arg is what follows the
 * spec's prefix (NULL for a bare name), o the caller's options (never NULL
 * here). Adding a policy: its file here, its opener declared below, one
 * row in registry.c's table.
 *
 * Layering inside lib/play: policy.h (the types) below the runner, the
 * policies above both (search and qlabel play rollouts through the
 * runner), the registry above the policies; nothing below includes this
 * header but ruletune.c, which opens rulebot with numbers. */
#ifndef HY_PLAY_POLICIES_H
#define HY_PLAY_POLICIES_H

#include "core/status.h"
#include "play/policy.h"

typedef hy_status (*hy_policy_opener)(hy_policy *p, const char *arg, const hy_policy_opts *o,
	hy_diag *d);

/* uniform over the legal actions (random.c) */
hy_status hy_policy_open_random(hy_policy *p, const char *arg, const hy_policy_opts *o,
	hy_diag *d);
/* the deterministic rule bot (baseline.c) */
hy_status hy_policy_open_baseline(hy_policy *p, const char *arg, const hy_policy_opts *o,
	hy_diag *d);
/* The stronger rule teacher and yardstick (rulebot.c); params NULL for
 * its defaults, else `rulebot:`'s PARAMS (policies/ruleparams.h). */
hy_status hy_policy_open_rulebot(hy_policy *p, const char *params, const hy_policy_opts *o,
	hy_diag *d);
/* rulebot whose belief about the waits is blended with the truth
 * (policies/waitoracle.h): spec "ALPHA[,riichi|tenpai][,logit][,PARAMS]",
 * PARAMS a file or a list separated by ';'. An oracle. */
hy_status hy_policy_open_rulebot_waits(hy_policy *p, const char *spec,
	const hy_policy_opts *o, hy_diag *d);
/* rulebot with parameters given as numbers (policies/ruleparams.h). */
struct hy_rule_params;
hy_status hy_policy_open_rulebot_with(hy_policy *p, const struct hy_rule_params *P, hy_diag *d);
/* Gives rulebot p (opened by one of the two above, no reader yet) the wait
 * reader at path `reader` as its belief (play/policies/readercheck.h):
 * mode "danger" (its danger alone), "threats" (and the threat weights of
 * the opponents rulebot sees as threats) or "all" (every opponent's; NULL
 * means all) — `rulebot:...,reader=R.h5,read=MODE`. */
hy_status hy_rulebot_read_with(hy_policy *p, const char *reader, const char *mode, hy_diag *d);
/* The same with a reader already open (readercheck.h), which p holds from
 * now on beside its opener (hy_reader_check_ref): one reader for many
 * policies, as hydra-tune's evaluations play it, opened once. */
struct hy_reader_check;
hy_status hy_rulebot_read_using(hy_policy *p, struct hy_reader_check *rc, const char *mode,
	hy_diag *d);
/* rulebot's own belief about the waits at decision r (with numbers P), as
 * the wait oracle reads it (waitoracle.h): tau[o] that seat o is tenpai
 * (its threat weight over the dealer's factor, at most 1) and q[o][k] that
 * k completes o's hand (its danger / 100), for the seats other than
 * r->seat. For measurements beside a reader (bench/learn/waits_logs.c). */
void hy_rulebot_belief(const struct hy_rule_params *P, const hy_decision *r, double tau[4],
	double q[4][34]);
/* The external policy "mjai:COMMAND", a bot speaking the mjai protocol in
 * a child process (mjaiproc.c; the protocol's pieces are play/mjaibot.h):
 * arg is the COMMAND; logp and value of its choices are 0. */
hy_status hy_policy_open_mjai(hy_policy *p, const char *command, const hy_policy_opts *o,
	hy_diag *d);
/* A checkpoint (nn/checkpoint.h) on the CPU backend or a GPU (model.c). */
hy_status hy_policy_open_model(hy_policy *p, const char *path, const hy_policy_opts *o,
			       hy_diag *d);
/* search:, qlabel: (search.h, qlabel.h) and mjai: (mjaiproc.c, declared in
 * play/mjaibot.h beside the bot protocol) have the same signature. */

#endif
