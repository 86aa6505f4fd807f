/* Shared helper of the play unit tests (test_play.c, test_arena.c). */
#ifndef HY_TEST_FIXTURE_PLAY_H
#define HY_TEST_FIXTURE_PLAY_H

#include "play/policy.h"

/* A policy from its spec (play/policy.h); fails the test with the reason.
 * The tests play it through the runner, which deals the hidden tiles: an
 * oracle opens (opts.hidden). */
static hy_policy open_policy(const char *spec)
{
	hy_policy p;
	hy_diag d;
	hy_diag_init(&d, spec);
	hy_policy_opts o;
	hy_policy_opts_default(&o);
	o.hidden = 1;
	hy_status st = hy_policy_open(&p, spec, &o, &d);
	if (st != HY_OK)
		print_error("%s: %s\n", spec, d.msg);
	assert_int_equal(st, HY_OK);
	return p;
}

#endif
