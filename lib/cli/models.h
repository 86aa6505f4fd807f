/* The models a checkout or an installation ships (models/README.md): the
 * policy network and the wait reader the programs use when no checkpoint
 * is named (hydra-bot, hydra-review, hydra-eval).
 *
 * Where they are looked for, first found wins:
 *   $HYDRA_MODELS/FILE, when HYDRA_MODELS is set (and then only there);
 *   DIR/../../models/FILE, DIR the directory of the running program (a
 *     checkout's build/bin: the repository's models/);
 *   DIR/../share/hydra/models/FILE (PREFIX/bin of `make install`). */
#ifndef HY_CLI_MODELS_H
#define HY_CLI_MODELS_H

#include <stddef.h>

#include "cli/cli.h"

#define HY_MODEL_POLICY "policy.h5" /* the shipped policy network */
#define HY_MODEL_READER "reader.h5" /* the shipped wait reader     */

/* The help text's line about it (one option's help, or a paragraph). */
#define HY_CLI_MODEL_HELP "default: the shipped policy, models/policy.h5 of\n" \
	"the checkout or PREFIX/share/hydra/models of an\n"                       \
	"installation (HYDRA_MODELS=DIR: DIR/policy.h5)"

/* The shipped FILE into out (n bytes, an absolute path): 1 found, 0 not
 * (out then lists the places looked in, separated by ", "). */
int hy_cli_model_find(const char *file, char *out, size_t n);

/* *spec, or, when the program was given no ROLE ("policy", "reviewer")
 * and *spec is NULL, the shipped FILE: its path into out (n bytes), *spec
 * pointed at it, said once on stderr unless -q ("prog: no policy named: the
 * shipped one, PATH (models/README.md)"); returns 0. Not found: a usage
 * error that names the places looked in and how to name one (hint),
 * returning 2. */
int hy_cli_model_default(hy_cli *c, const char **spec, const char *file, const char *role,
	const char *hint, char *out, size_t n);

#endif
