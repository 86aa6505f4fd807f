/* lib/io/output: atomic outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/output.h"

static char dir[64];

static int count_entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int setup(void **state)
{
	strcpy(dir, "/tmp/hydra-out.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_commit(void **state)
{
	char path[128];
	snprintf(path, sizeof path, "%s/a.bin", dir);
	hy_output o;
	hy_diag d;
	hy_diag_init(&d, NULL);
	mode_t old = umask(022);
	assert_int_equal(hy_output_open(&o, path, &d), HY_OK);
	umask(old);
	fputs("hello", o.f);
	/* nothing at the target name until commit */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(count_entries(), 1);
	assert_int_equal(hy_output_commit(&o, &d), HY_OK);
	FILE *f = fopen(path, "rb");
	char buf[16] = {0};
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof buf, f), 5);
	fclose(f);
	assert_string_equal(buf, "hello");
	assert_int_equal(count_entries(), 1);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644); /* umask-derived, not mkstemp's 0600 */
}

static void test_abort(void **state)
{
	char path[128];
	snprintf(path, sizeof path, "%s/b.bin", dir);
	hy_output o;
	hy_diag d;
	hy_diag_init(&d, NULL);
	int before = count_entries();
	assert_int_equal(hy_output_open(&o, path, &d), HY_OK);
	fputs("partial", o.f);
	hy_output_abort(&o);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(count_entries(), before);
}

/* A temporary left by a process killed with SIGKILL is removed by the next
 * run on that path, also while the killed process is an unreaped zombie
 * (a container whose first process reaps nothing); one of a live process
 * is kept. */
static void test_stale(void **state)
{
	char path[128], dead[160], live[160];
	snprintf(path, sizeof path, "%s/c.bin", dir);
	pid_t z = fork();
	assert_true(z >= 0);
	if (z == 0)
		_exit(0);
	usleep(200000); /* the child is a zombie now: nobody waits for it */
	snprintf(dead, sizeof dead, "%s.tmp-%ld-abcdef", path, (long)z);
	snprintf(live, sizeof live, "%s.tmp-%ld-ghijkl", path, (long)getppid());
	fclose(fopen(dead, "w"));
	fclose(fopen(live, "w"));
	hy_output o;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_output_open(&o, path, &d), HY_OK);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(live, F_OK), 0);
	hy_output_abort(&o);
	unlink(live);
	waitpid(z, NULL, 0);
}

static void test_bad_dir(void **state)
{
	hy_output o;
	hy_diag d;
	hy_diag_init(&d, NULL);
	/* a parent that is a file, not a directory */
	assert_int_equal(hy_output_open(&o, "/dev/null/x.bin", &d), HY_EIO);
	assert_non_null(strstr(d.msg, "'/dev/null' is not a directory"));
	/* missing directories are created */
	char path[128];
	snprintf(path, sizeof path, "%s/a/b/x.bin", dir);
	assert_int_equal(hy_output_open(&o, path, &d), HY_OK);
	fputs("x", o.f);
	assert_int_equal(hy_output_commit(&o, &d), HY_OK);
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	snprintf(path, sizeof path, "%s/a/b", dir);
	rmdir(path);
	snprintf(path, sizeof path, "%s/a", dir);
	rmdir(path);
}

/* A device is written in place, never replaced by a renamed file. */
static void test_device(void **state)
{
	hy_output o;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_output_open(&o, "/dev/null", &d), HY_OK);
	fputs("x", o.f);
	assert_int_equal(hy_output_commit(&o, &d), HY_OK);
	struct stat sb;
	assert_int_equal(stat("/dev/null", &sb), 0);
	assert_true(S_ISCHR(sb.st_mode));
	/* a staged writer (shards, checkpoints) refuses it outright */
	hy_staged st;
	assert_int_equal(hy_staged_create(&st, "/dev/null", NULL, &d), HY_EIO);
	assert_non_null(strstr(d.msg, "is not a regular file"));
	if (access("/dev/full", W_OK) == 0) {
		assert_int_equal(hy_output_open(&o, "/dev/full", &d), HY_OK);
		fputs("x", o.f);
		assert_int_equal(hy_output_commit(&o, &d), HY_EIO);
		assert_non_null(strstr(d.msg, "No space left"));
		assert_int_equal(stat("/dev/full", &sb), 0);
		assert_true(S_ISCHR(sb.st_mode));
	}
}

static void test_stdout(void **state)
{
	hy_output o;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_output_open(&o, "-", &d), HY_OK);
	assert_ptr_equal(o.f, stdout);
	assert_int_equal(hy_output_commit(&o, &d), HY_OK);
	assert_int_equal(hy_output_open(&o, NULL, &d), HY_OK);
	assert_ptr_equal(o.f, stdout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit), cmocka_unit_test(test_abort),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_bad_dir), cmocka_unit_test(test_device),
		cmocka_unit_test(test_stdout),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
