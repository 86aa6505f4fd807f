/* lib/mpi without a launcher (the multi-rank paths are tested under
 * mpirun by tests/shell/t1300-mpi.sh): block partitions cover every index
 * once, in rank order, sizes differing by at most one; a plain process is
 * rank 0 of 1 and never starts MPI; the split loss statistics of two
 * slices sum to the whole batch's means; items kept by game come back in
 * game order, an empty game in its place, and a rank that kept another
 * number of games than its share is an error. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "mpi/mpi.h"
#include "mpi/grad.h"
#include "mpi/ordered.h"

static void test_ranges(void **state)
{
	(void)state;
	for (int size = 1; size <= 9; size++)
		for (uint64_t n = 0; n <= 40; n++) {
			uint64_t next = 0, mn = UINT64_MAX, mx = 0;
			for (int r = 0; r < size; r++) {
				uint64_t lo, hi;
				hy_mpi_range_of(r, size, n, &lo, &hi);
				assert_int_equal(lo, next); /* contiguous, in rank order */
				assert_true(hi >= lo);
				next = hi;
				mn = hi - lo < mn ? hi - lo : mn;
				mx = hi - lo > mx ? hi - lo : mx;
			}
			assert_int_equal(next, n);
			assert_true(mx - mn <= 1);
		}
	hy_mpi ds = {.rank = 2, .size = 3};
	assert_int_equal(hy_mpi_owner(&ds, 7), 1);
	uint64_t lo, hi;
	hy_mpi_range(&ds, 10, &lo, &hi);
	assert_int_equal(lo, 7);
	assert_int_equal(hi, 10);
}

static void test_single_process(void **state)
{
	(void)state;
	unsetenv("OMPI_COMM_WORLD_SIZE");
	unsetenv("PMI_SIZE");
	unsetenv("PMIX_RANK");
	assert_false(hy_mpi_launched());
	hy_mpi ds;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_mpi_init(&ds, &d), HY_OK);
	assert_int_equal(ds.rank, 0);
	assert_int_equal(ds.size, 1);
	assert_int_equal(ds.mpi, 0);
	float f[3] = {1, 2, 3};
	double g[2] = {4, 5};
	int m = 6;
	assert_int_equal(hy_mpi_sum_f32(&ds, f, 3, &d), HY_OK);
	assert_int_equal(hy_mpi_sum_f64(&ds, g, 2, &d), HY_OK);
	assert_int_equal(hy_mpi_max_int(&ds, &m, 1, &d), HY_OK);
	assert_true(f[2] == 3 && g[1] == 5 && m == 6);
	hy_mpi_abort(&ds, 1); /* a single rank: returns */
	hy_mpi_free(&ds);
}

#ifndef HY_HAVE_MPI
static void test_no_mpi_build(void **state)
{
	(void)state;
	setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
	hy_mpi ds;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_mpi_init(&ds, &d), HY_EUNSUP);
	assert_non_null(strstr(d.msg, "built without MPI"));
	unsetenv("OMPI_COMM_WORLD_SIZE");
}
#endif

/* Two slices of 3 and 1 samples with their own means give, summed, the
 * means of the 4 samples; an empty slice adds nothing. */
static void test_loss_split(void **state)
{
	(void)state;
	hy_nn_work w;
	memset(&w, 0, sizeof w);
	hy_nn_losses a = {.policy = 2, .value = 1, .grp = 3, .tenpai = 0.5, .danger = 0.25,
			  .correct = 2, .n = 3};
	hy_nn_losses b = {.policy = 6, .value = 5, .grp = 7, .tenpai = 1.5, .danger = 0,
			  .correct = 1, .n = 1};
	double va[HY_MPI_LOSS_N], vb[HY_MPI_LOSS_N], ve[HY_MPI_LOSS_N];
	w.n_known = 2, w.n_danger = 1;
	hy_mpi_loss_local(&w, &a, 3, va);
	w.n_known = 1, w.n_danger = 0;
	hy_mpi_loss_local(&w, &b, 1, vb);
	hy_mpi_loss_local(&w, &b, 0, ve);
	for (int i = 0; i < HY_MPI_LOSS_N; i++) {
		assert_true(ve[i] == 0);
		va[i] += vb[i] + ve[i];
	}
	hy_nn_losses l;
	hy_mpi_loss_global(va, &hy_nn_loss_w_policy, &l);
	assert_float_equal(l.policy, (2 * 3 + 6) / 4.0, 1e-12);
	assert_float_equal(l.value, (1 * 3 + 5) / 4.0, 1e-12);
	assert_float_equal(l.tenpai, (0.5 * 6 + 1.5 * 3) / 9.0, 1e-12); /* 3 opponents a sample */
	assert_float_equal(l.danger, 0.25, 1e-12);
	assert_int_equal(l.correct, 3);
	assert_int_equal(l.n, 4);
	assert_float_equal(l.total, HY_NN_W_POLICY * l.policy + HY_NN_W_VALUE * l.value +
		HY_NN_W_GRP * l.grp + HY_NN_W_TENPAI * l.tenpai + HY_NN_W_DANGER * l.danger, 1e-12);
}

typedef struct seen {
	uint64_t games[8];
	int items[32];
	size_t ngames, nitems;
} seen;

static hy_status take_game(void *u, uint64_t game, const void *items, size_t n, hy_diag *d)
{
	(void)d;
	seen *s = u;
	s->games[s->ngames++] = game;
	for (size_t i = 0; i < n; i++)
		s->items[s->nitems++] = ((const int *)items)[i];
	return game == 6 ? HY_EIO : HY_OK; /* the writer's failure ends the gather */
}

static void test_ordered(void **state)
{
	(void)state;
	hy_mpi ds = {.rank = 0, .size = 1};
	hy_mpi_ordered o;
	hy_mpi_ordered_init(&o, sizeof(int));
	hy_diag d;
	hy_diag_init(&d, NULL);
	/* three games: 2 items, none (an aborted game), 1500 (past the first
	 * capacity) */
	int v = 0;
	for (int g = 0; g < 3; g++) {
		int n = g == 0 ? 2 : g == 1 ? 0 : 1500;
		for (int i = 0; i < n; i++, v++)
			assert_int_equal(hy_mpi_ordered_add(&o, &v, 0, &d), HY_OK);
		assert_int_equal(hy_mpi_ordered_end_game(&o, 0, &d), HY_OK);
	}
	seen s = {0};
	/* a count that is not this rank's share of games */
	assert_int_equal(hy_mpi_ordered_gather(&o, &ds, 4, take_game, &s, &d), HY_EDATA);
	assert_non_null(strstr(d.msg, "3 games kept, expected 4"));
	assert_int_equal(s.ngames, 0);
	hy_mpi_ordered o2;
	hy_mpi_ordered_init(&o2, sizeof(int));
	for (int g = 0; g < 3; g++) {
		v = 10 * g;
		for (int i = 0; i < g; i++, v++)
			assert_int_equal(hy_mpi_ordered_add(&o2, &v, 0, &d), HY_OK);
		assert_int_equal(hy_mpi_ordered_end_game(&o2, 0, &d), HY_OK);
	}
	assert_int_equal(hy_mpi_ordered_gather(&o2, &ds, 3, take_game, &s, &d), HY_OK);
	assert_int_equal(s.ngames, 3);
	assert_true(s.games[0] == 0 && s.games[1] == 1 && s.games[2] == 2);
	assert_int_equal(s.nitems, 3);
	assert_true(s.items[0] == 10 && s.items[1] == 20 && s.items[2] == 21);
	assert_int_equal(o.n, 1502);
	assert_int_equal(o.gend[0], 2);
	assert_int_equal(o.gend[1], 2);
	hy_mpi_ordered_free(&o);
	hy_mpi_ordered_free(&o2);
	/* the writer's status ends the gather at its game */
	hy_mpi_ordered_init(&o, sizeof(int));
	for (int g = 0; g < 8; g++)
		assert_int_equal(hy_mpi_ordered_end_game(&o, 0, &d), HY_OK);
	memset(&s, 0, sizeof s);
	assert_int_equal(hy_mpi_ordered_gather(&o, &ds, 8, take_game, &s, &d), HY_EIO);
	assert_int_equal(s.ngames, 7);
	hy_mpi_ordered_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_single_process),
#ifndef HY_HAVE_MPI
		cmocka_unit_test(test_no_mpi_build),
#endif
		cmocka_unit_test(test_loss_split),
		cmocka_unit_test(test_ordered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
