/* A wait reader scored where rulebot's belief is (issue 42, step 4): at each
 * of the seat's discards that the wait oracle measures (waitoracle.h), the
 * reader network (hydra-fit --mode reader, or any checkpoint's tenpai and
 * danger heads) is run on the seat's own observation and its deal-in
 * prediction σ(tenpai_o)·σ(danger_o,k) is tallied against the same truth on
 * the same cells as rulebot's belief, so the two are compared state for
 * state: `rulebot-waits:0,tenpai,reader=R.h5` under hydra-eval --oracle.
 * The network runs on the CPU, one decision at a time, under a lock (the
 * runner may call rulebot from several threads). */
#ifndef HY_PLAY_READERCHECK_H
#define HY_PLAY_READERCHECK_H

#include "core/status.h"
#include "encode/obs.h"
#include "engine/engine.h"

typedef struct hy_reader_check hy_reader_check;

/* Opens the checkpoint (its observation version must be this build's, its
 * kind a wait reader's: the refusal names ROLE, "reader=" for the first). */
hy_status hy_reader_check_open(hy_reader_check **rc, const char *path, hy_diag *d);
hy_status hy_reader_check_open_as(hy_reader_check **rc, const char *path, const char *role,
	hy_diag *d);
/* One more holder of rc (returned): a reader opened once and played by
 * many policies, as hydra-tune's evaluations do; each holder closes it,
 * the last close frees it. Called while no game runs (not locked). */
hy_reader_check *hy_reader_check_ref(hy_reader_check *rc);
void hy_reader_check_close(hy_reader_check *rc); /* NULL: nothing */

/* The reader's prediction that a discard of kind k by seat deals in to
 * seat o, p[o][k] for the three other seats (absolute; p[seat] is left as
 * it was), from the seat's observation (e, t). */
hy_status hy_reader_check_predict(hy_reader_check *rc, const hy_engine *e,
	const hy_obs_track *t, int seat, double p[4][34], hy_diag *d);
/* Its two parts: tau[o] that seat o is tenpai, q[o][k] that k completes its
 * hand when it is (p = tau·q). */
hy_status hy_reader_check_read(hy_reader_check *rc, const hy_engine *e, const hy_obs_track *t,
	int seat, double tau[4], double q[4][34], hy_diag *d);

#endif
