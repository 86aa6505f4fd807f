/* The numbers of rulebot (lib/play/policies/rulebot.c) as named parameters: its
 * threat weights, its danger model, its push/fold thresholds, its discard
 * score and its call and riichi rules. The defaults are rulebot as
 * written; `rulebot` plays them and stays the fixed yardstick. A policy
 * `rulebot:PARAMS` plays other values, where PARAMS is a list
 * `NAME=VALUE[,NAME=VALUE…]` or the path of a file of `NAME=VALUE` lines
 * (`#` starts a comment) — the form hy_rule_params_write gives and the
 * tuner (play/ruletune.h) writes. Names not given keep their defaults. */
#ifndef HY_PLAY_RULEPARAMS_H
#define HY_PLAY_RULEPARAMS_H

#include <stddef.h>
#include <stdio.h>

#include "core/status.h"

/* The parameters, in the order of the table in ruleparams.c. */
enum {
	HY_RP_THREAT_OPEN3,    /* weight of an open hand with 3+ melds         */
	HY_RP_THREAT_OPEN2V,   /* two melds that show value                    */
	HY_RP_THREAT_OPEN2,    /* two plain melds                              */
	HY_RP_THREAT_DEALER,   /* factor on a dealer's threat                  */
	HY_RP_D_HONOUR1,       /* danger of an honour, 1 copy unseen           */
	HY_RP_D_HONOUR2,
	HY_RP_D_HONOUR3,
	HY_RP_D_HONOUR4,
	HY_RP_D_RYANMEN,       /* per open ryanmen side                        */
	HY_RP_D_KANCHAN,
	HY_RP_D_PENCHAN,
	HY_RP_D_SHANPON3,      /* shanpon, three copies unseen                 */
	HY_RP_D_SHANPON2,
	HY_RP_D_TANKI,
	HY_RP_D_DORA,          /* factor on a dora                             */
	HY_RP_PUSH_VALUE,      /* one-shanten pushes against riichi from this
				* value (a dealer's 1.5 times)                 */
	HY_RP_PUSH_ACCEPT,     /* … with this lookahead acceptance             */
	HY_RP_PUSH_WALL,       /* … and this many draws left                   */
	HY_RP_PUSH_FAR_VALUE,  /* two-shanten and farther push against riichi
				* from this value (a dealer's 1.5 times; the
				* default, above any hand's, never)           */
	HY_RP_FOLD_OPEN_SHANTEN, /* against open threats: fold from this shanten */
	HY_RP_FOLD_OPEN_WEIGHT,  /* … against a threat of this weight          */
	HY_RP_SCORE_DANGER,    /* pushing: acceptance less this × danger       */
	HY_RP_SCORE_VALUE,     /* tenpai: plus value / this                    */
	HY_RP_SCORE_DORA,      /* two-shanten on: each dora kept worth this    */
	HY_RP_DAMA_VALUE,      /* dama from this value (a dealer's 1.5 times)  */
	HY_RP_RIICHI_LIVE,     /* riichi needs this many live copies of the
				* waits                                        */
	HY_RP_RIICHI_WALL,     /* … and this many draws left                   */
	HY_RP_CALL_TERMINALS,  /* fast tanyao: at most this many terminals and
				* honours in the closed hand                   */
	HY_RP_CALL_DORA,       /* … and at least this many dora                */
	HY_RP_CALL_TANYAO_SHANTEN, /* … and a tanyao shanten after the call of
				* at most this (0: straight to tenpai)         */
	HY_RP_COUNT
};

typedef struct hy_rule_params {
	double v[HY_RP_COUNT];
} hy_rule_params;

/* The name, default and the range a tuner searches, of each parameter. */
typedef struct hy_rule_param_info {
	const char *name;
	double def, lo, hi;
	int integer; /* whole numbers only */
} hy_rule_param_info;

const hy_rule_param_info *hy_rule_param_info_of(int i);
/* The index of a name, −1 when unknown. */
int hy_rule_param_index(const char *name);

void hy_rule_params_default(hy_rule_params *p);
/* Sets the parameters a text names (the list or the lines above; `,`,
 * `;` and newlines separate). HY_EUSAGE naming the entry: an unknown
 * name, one given twice, a value that is not a number, or one outside
 * [lo, hi]. */
hy_status hy_rule_params_parse(hy_rule_params *p, const char *text, hy_diag *d);
/* PARAMS as a policy spec gives it: a list when it holds '=', else a file
 * (HY_EIO with the system's reason when it cannot be opened); the
 * defaults first. */
hy_status hy_rule_params_from_spec(hy_rule_params *p, const char *params, hy_diag *d);
/* Writes every parameter, one NAME=VALUE line each, with its default in a
 * comment where it differs. Returns the stream's error state. */
int hy_rule_params_write(const hy_rule_params *p, FILE *f);

#endif
