/* train/prov: the inputs' description round-trips (absolute paths, sizes,
 * times, standard input), a changed, touched or removed input is named, a
 * damaged description is refused, the command line is quoted for a shell,
 * and a list that does not fit is refused rather than cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "train/prov.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	char p[128];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_roundtrip(void **state)
{
	strcpy(dir, "/tmp/hydra-prov.XXXXXX");
	assert_non_null(mkdtemp(dir));
	put("a.h5", "aaaa");
	put("b.bin", "bb");
	char cwd[4096], a[128], b[128];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(dir), 0);
	const char *in[] = {"a.h5", "-", "b.bin"};
	char desc[4096], changed[512];
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_prov_describe(in, 3, desc, sizeof desc, &d), HY_OK);
	assert_int_equal(chdir(cwd), 0);
	char **p;
	size_t n;
	assert_int_equal(hy_prov_parse(desc, &p, &n, changed, sizeof changed, &d), HY_OK);
	assert_int_equal(n, 3);
	snprintf(a, sizeof a, "%s/a.h5", dir);
	snprintf(b, sizeof b, "%s/b.bin", dir);
	char ra[4096], rb[4096];
	assert_non_null(realpath(a, ra));
	assert_non_null(realpath(b, rb));
	assert_string_equal(p[0], ra); /* absolute: a resume may run elsewhere */
	assert_string_equal(p[1], "-");
	assert_string_equal(p[2], rb);
	assert_string_equal(changed, "");
	hy_prov_free(p, n);

	/* b grows, a is touched with the same size, then a is removed */
	put("b.bin", "bbbbbb");
	struct timespec ts[2] = {{0, UTIME_OMIT}, {12345, 0}};
	assert_int_equal(utimensat(AT_FDCWD, a, ts, 0), 0);
	assert_int_equal(hy_prov_parse(desc, &p, &n, changed, sizeof changed, &d), HY_OK);
	hy_prov_free(p, n);
	assert_non_null(strstr(changed, "a.h5 (modified)"));
	assert_non_null(strstr(changed, "b.bin (size 2 -> 6)"));
	unlink(a);
	assert_int_equal(hy_prov_parse(desc, &p, &n, changed, sizeof changed, &d), HY_OK);
	hy_prov_free(p, n);
	assert_non_null(strstr(changed, "a.h5 (missing)"));

	/* no inputs: standard input */
	assert_int_equal(hy_prov_describe(NULL, 0, desc, sizeof desc, &d), HY_OK);
	assert_string_equal(desc, "-\t-\t-\n");
	/* an input that does not exist, a list that does not fit */
	const char *missing[] = {"/nonexistent/x.h5"};
	assert_int_equal(hy_prov_describe(missing, 1, desc, sizeof desc, &d), HY_EIO);
	const char *two[] = {rb, rb};
	assert_int_equal(hy_prov_describe(two, 2, desc, strlen(rb) + 10, &d), HY_EUSAGE);
	assert_string_equal(desc, "");
	/* damaged text */
	assert_int_equal(hy_prov_parse("x.h5\t12\n", &p, &n, changed, sizeof changed, &d),
		HY_EFORMAT);
	assert_int_equal(hy_prov_parse("x.h5\tab\t1\n", &p, &n, changed, sizeof changed, &d),
		HY_EFORMAT);
	assert_int_equal(hy_prov_parse("x.h5\t1\t1", &p, &n, changed, sizeof changed, &d),
		HY_EFORMAT);
	unlink(b);
	rmdir(dir);
}

static void test_command(void **state)
{
	char *argv[] = {"hydra-fit", "--out", "run dir/", "--lr=3e-4", "it's", ""};
	char out[256];
	hy_prov_command(6, argv, out, sizeof out);
	assert_string_equal(out, "hydra-fit --out 'run dir/' --lr=3e-4 'it'\\''s' ''");
	hy_prov_command(6, argv, out, 20);
	assert_string_equal(out, "hydra-fit --out ...");
	assert_true(strlen(out) < 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_command)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
