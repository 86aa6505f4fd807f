/* lib/cli/options: the shared option parsers and their exact messages (the
 * text every program prints after "prog: "). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "nn/backend.h"
#include "nn/cuda/cuda.h"

static void test_threads(void **state)
{
	hy_diag d;
	int n = 7;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_cli_parse_threads("1", &n, &d), HY_OK);
	assert_int_equal(n, 1);
	assert_int_equal(hy_cli_parse_threads("1024", &n, &d), HY_OK);
	assert_int_equal(n, 1024);
	static const char *const bad[] = {"0", "x", "", "1025", "-1", "2x"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char want[100];
		n = 7;
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_cli_parse_threads(bad[i], &n, &d), HY_EUSAGE);
		assert_int_equal(n, 7);
		snprintf(want, sizeof want, "bad --threads '%s': 1 to 1024", bad[i]);
		assert_string_equal(d.msg, want);
	}
	int def = hy_cli_threads_default();
	assert_true(def >= 1 && def <= HY_CLI_THREADS_MAX);
}

static void test_seed(void **state)
{
	hy_diag d;
	uint64_t s = 7;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_cli_parse_seed("0x2a", UINT64_MAX, &s, &d), HY_OK);
	assert_true(s == 42);
	assert_int_equal(hy_cli_parse_seed("18446744073709551615", UINT64_MAX, &s, &d), HY_OK);
	assert_true(s == UINT64_MAX);
	assert_int_equal(hy_cli_parse_seed("9223372036854775807", INT64_MAX, &s, &d), HY_OK);
	assert_true(s == INT64_MAX);
	s = 7;
	assert_int_equal(hy_cli_parse_seed("9223372036854775808", INT64_MAX, &s, &d), HY_EUSAGE);
	assert_string_equal(d.msg, "bad --seed '9223372036854775808': 0 to 2^63-1, decimal or "
		"0x hex");
	assert_true(s == 7);
	static const char *const bad[] = {"x", "", "-1", "1.5", "18446744073709551616"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char want[120];
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_cli_parse_seed(bad[i], UINT64_MAX, &s, &d), HY_EUSAGE);
		snprintf(want, sizeof want, "bad --seed '%s': 0 to 2^64-1, decimal or 0x hex", bad[i]);
		assert_string_equal(d.msg, want);
	}
	assert_true(s == 7);
}

static void test_device(void **state)
{
	hy_diag d;
	static const char *const good[] = {"auto", "cpu", "cuda", "cuda:0", "cuda:1", "cuda:1023"};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_cli_parse_device(good[i], &d), HY_OK);
	}
	static const char *const bad[] = {"bogus", "", "gpu", "cuda:", "cuda:x", "cuda:-1",
		"cuda:1024", "CPU", "cuda0", "cuda:1 "};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char want[120];
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_cli_parse_device(bad[i], &d), HY_EUSAGE);
		snprintf(want, sizeof want, "bad --device '%s': auto, cpu, cuda or cuda:N (N from 0 "
			"to 1023)", bad[i]);
		assert_string_equal(d.msg, want);
	}
}

static void test_precision(void **state)
{
	hy_diag d;
	int p = -1;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_cli_parse_precision("bf16", &p, &d), HY_OK);
	assert_int_equal(p, HY_NN_PREC_BF16);
	assert_int_equal(hy_cli_parse_precision("fp32", &p, &d), HY_OK);
	assert_int_equal(p, HY_NN_PREC_FP32);
	p = -1;
	assert_int_equal(hy_cli_parse_precision("fp16", &p, &d), HY_EUSAGE);
	assert_string_equal(d.msg, "bad --precision 'fp16': bf16 or fp32");
	assert_int_equal(p, -1);
}

/* cpu is always there; without the CUDA backend an explicit GPU is the
 * requested-device-unavailable answer (exit status 4), and auto is the CPU
 * with the reason. */
static void test_pick(void **state)
{
	hy_cli c;
	hy_cli_init(&c, "test_cli");
	int cuda = -1, ord = -1;
	char why[256];
	assert_int_equal(hy_cli_device_pick(&c, "cpu", &cuda, &ord, why, sizeof why), 0);
	assert_int_equal(cuda, 0);
	if (hy_nn_cuda_built())
		return;
	assert_int_equal(hy_cli_device_pick(&c, "auto", &cuda, &ord, why, sizeof why), 0);
	assert_int_equal(cuda, 0);
	assert_true(strstr(why, "no CUDA backend") != NULL);
	assert_int_equal(hy_cli_device_pick(&c, "cuda:1", &cuda, &ord, why, sizeof why), 4);
	assert_int_equal(hy_cli_device_check(&c, "cuda", 1), 4);
	assert_int_equal(hy_cli_device_check(&c, "auto", 1), 0);
	assert_int_equal(hy_cli_device_check(&c, NULL, 1), 0);
}

static void test_verbosity(void **state)
{
	hy_cli c;
	hy_cli_init(&c, "test_cli");
	assert_false(hy_cli_quiet(&c) || hy_cli_verbose(&c));
	hy_cli_verbosity(&c, 'v');
	hy_cli_verbosity(&c, 'v');
	assert_int_equal(c.level, 2);
	hy_cli_verbosity(&c, 'q');
	assert_true(hy_cli_quiet(&c));
	hy_cli_verbosity(&c, 'v');
	assert_int_equal(c.level, 1);
	char buf[32];
	hy_cli_hms(3725.4, buf, sizeof buf);
	assert_string_equal(buf, "1:02:05");
	hy_cli_hms(-1, buf, sizeof buf);
	assert_string_equal(buf, "?");
}

/* A bad game: printed, then skipped and counted with -k, or else the run
 * stops with its status (HY_EDATA when it has none) and says it reported. */
static void test_bad_game(void **state)
{
	(void)state;
	hy_cli c;
	hy_cli_init(&c, "test_cli");
	hy_cli_verbosity(&c, 'q');
	hy_diag d;
	hy_diag_init(&d, "game.json");
	hy_diag_set(&d, HY_EFORMAT, 3, "bad tile");
	int reported = 0;
	uint64_t skipped = 0;
	assert_int_equal(hy_cli_bad_game(&c, &d, 1, &reported, &skipped), HY_OK);
	assert_int_equal(skipped, 1);
	assert_int_equal(reported, 0);
	assert_int_equal(hy_cli_bad_game(&c, &d, 0, &reported, &skipped), HY_EFORMAT);
	assert_int_equal(skipped, 1);
	assert_int_equal(reported, 1);
	d.status = HY_OK; /* a hook that gave no status still stops the run */
	assert_int_equal(hy_cli_bad_game(&c, &d, 0, &reported, &skipped), HY_EDATA);
}

/* Options declared once (cli/opts.h): each type stored, each range
 * refused with status 2, the operands found after the options, and the
 * shared -q handled beside the table. getopt is reset for each parse. */
static int parse(const hy_opt *t, int argc, const char *const *args, int *first)
{
	static char buf[32][64];
	char *argv[32];
	for (int i = 0; i < argc; i++) {
		snprintf(buf[i], sizeof buf[i], "%s", args[i]);
		argv[i] = buf[i];
	}
	argv[argc] = NULL;
	optind = 0; /* a fresh scan (GNU getopt) */
	hy_cli c;
	hy_cli_init(&c, "test_cli");
	return hy_cli_parse_opts(&c, t, 20, argc, argv, first);
}

static int called;
static int opt_call(hy_cli *cli, const char *arg, void *dest)
{
	called++;
	*(const char **)dest = arg;
	return strcmp(arg, "bad") ? 0 : hy_cli_usage(cli, "--call: bad");
}

static void test_opts_table(void **state)
{
	(void)state;
	int flag = 0, n = 7, threads = 1;
	int64_t big = 0;
	uint64_t seeds = 0, seed = 0;
	double x = 0;
	const char *str = NULL, *cs = NULL;
	const hy_opt t[] = {
		{.name = "flag", .key = 'f', .type = HY_OPT_FLAG, .dest = &flag},
		{.name = "num", .key = 'n', .type = HY_OPT_INT, .dest = &n, .min = 1, .max = 9,
		 .range = "1 to 9"},
		{.name = "big", .type = HY_OPT_I64, .dest = &big, .min = -5, .max = 1000000000000,
		 .range = "-5 to 10^12"},
		{.name = "seeds", .type = HY_OPT_U64, .dest = &seeds, .min = 3, .max = 100,
		 .range = "3 to 100"},
		{.name = "x", .type = HY_OPT_DOUBLE, .dest = &x, .lo = 0, .hi = 1, .open_lo = 1,
		 .range = "in (0, 1]"},
		{.name = "str", .key = 'o', .type = HY_OPT_STR, .dest = &str},
		{.name = "seed", .key = 'S', .type = HY_OPT_CALL, .dest = &seed, .call = hy_cli_row_seed},
		{.name = "threads", .key = 'j', .type = HY_OPT_CALL, .dest = &threads, .call = hy_cli_row_threads},
		{.name = "call", .type = HY_OPT_CALL, .dest = &cs, .call = opt_call},
		{.type = HY_OPT_END},
	};
	int first = -1;
	const char *good[] = {"p", "-f", "-n", "4", "--big=-5", "--seeds", "100", "--x", "1",
			      "-o", "out", "-S", "0x10", "-j", "3", "--call", "ok", "-q", "operand"};
	assert_int_equal(parse(t, 19, good, &first), -1);
	assert_int_equal(first, 18);
	assert_true(flag == 1 && n == 4 && big == -5 && seeds == 100 && x == 1.0);
	assert_string_equal(str, "out");
	assert_true(seed == 16 && threads == 3 && called == 1);
	assert_string_equal(cs, "ok");
	/* every range refused, with status 2; the value left as it was */
	const char *bad[][3] = {{"p", "-n", "0"}, {"p", "-n", "10"}, {"p", "--big", "-6"},
				{"p", "--seeds", "2"}, {"p", "--x", "0"}, {"p", "--x", "1.5"},
				{"p", "-S", "x"}, {"p", "-j", "0"}, {"p", "--call", "bad"},
				{"p", "--num", "four"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(parse(t, 3, bad[i], &first), 2);
	assert_true(n == 4 && seeds == 100 && x == 1.0);
	/* an unknown option and a missing argument are usage errors too */
	const char *unknown[] = {"p", "--nope"}, *missing[] = {"p", "--num"};
	assert_int_equal(parse(t, 2, unknown, &first), 2);
	assert_int_equal(parse(t, 2, missing, &first), 2);
}

/* The help a table makes: TEXT rows as they are, an option's line padded
 * to the column (one space past a long one), its further lines indented
 * to the column, DOC rows shown but not parsed, an INCLUDE's rows in its
 * place, a row without help hidden; a CALL0 row takes no argument and may
 * end the parse with status 0 (HY_OPT_DONE). */
static int done_calls;
static int opt_done(hy_cli *cli, const char *arg, void *dest)
{
	(void)cli;
	(void)dest;
	assert_null(arg);
	done_calls++;
	return HY_OPT_DONE;
}

static void test_opts_help(void **state)
{
	(void)state;
	int n = 0, k = 0, hidden = 0;
	const hy_opt other[] = {
		{.name = "keep", .key = 'k', .type = HY_OPT_FLAG, .dest = &k, .help = "keep on"},
		{.name = "secret", .type = HY_OPT_FLAG, .dest = &hidden},
		{.type = HY_OPT_END},
	};
	const hy_opt t[] = {
		{.type = HY_OPT_TEXT, .help = "usage: p [options]\n\nOptions:"},
		{.name = "num", .key = 'n', .type = HY_OPT_INT, .dest = &n, .min = 1, .max = 9,
		 .range = "1 to 9", .arg = "N", .help = "a number\nfrom 1 to 9"},
		{.name = "a-very-long-name", .type = HY_OPT_FLAG, .dest = &hidden, .arg = "X",
		 .help = "past the column"},
		{.name = "quiet", .key = 'q', .type = HY_OPT_DOC, .help = "no progress"},
		{.type = HY_OPT_INCLUDE, .include = other},
		{.name = "done", .type = HY_OPT_CALL0, .call = opt_done},
		{.type = HY_OPT_TEXT, .help = ""},
		{.type = HY_OPT_END},
	};
	char *h = hy_cli_opts_help(t, 20);
	assert_non_null(h);
	assert_string_equal(h, "usage: p [options]\n"
			       "\n"
			       "Options:\n"
			       "  -n, --num N       a number\n"
			       "                    from 1 to 9\n"
			       "      --a-very-long-name X past the column\n"
			       "  -q, --quiet       no progress\n"
			       "  -k, --keep        keep on\n"
			       "\n");
	free(h);
	int first = -1;
	const char *ok[] = {"p", "--done", "x"}, *inc[] = {"p", "--keep"};
	assert_int_equal(parse(t, 3, ok, &first), 0);
	assert_int_equal(done_calls, 1);
	/* an INCLUDE's rows are its own table's: not parsed here */
	assert_int_equal(parse(t, 2, inc, &first), 2);
	const char *q[] = {"p", "-q", "-n", "3"};
	assert_int_equal(parse(t, 4, q, &first), -1);
	assert_int_equal(n, 3);
}

/* A batch line's errors captured (hy_cli_capture): the message in the
 * buffer, nothing on stderr, status 2 for usage and the CALL's own status
 * for a failure of the data; BIT rows or'ed in; the table's own -h row
 * taking -h before the common one. */
static int opt_fail(hy_cli *cli, const char *arg, void *dest)
{
	(void)dest;
	return hy_cli_fail(cli, 1, "bad data '%s'", arg);
}

static void test_opts_capture(void **state)
{
	(void)state;
	uint32_t bits = 0;
	int help = 0, n = 0;
	const hy_opt t[] = {
		{.name = "a", .key = 'a', .type = HY_OPT_BIT, .dest = &bits, .min = 1},
		{.name = "b", .type = HY_OPT_BIT, .dest = &bits, .min = 4},
		{.name = "num", .type = HY_OPT_INT, .dest = &n, .min = 0, .max = 9, .range = "0 to 9"},
		{.name = "data", .type = HY_OPT_CALL, .call = opt_fail},
		{.name = "help", .key = 'h', .type = HY_OPT_FLAG, .dest = &help},
		{.type = HY_OPT_END},
	};
	hy_cli c;
	hy_cli_init(&c, "test_cli");
	char err[128];
	char *argv[8];
	char a0[] = "p", a1[] = "-a", a2[] = "--b", a3[] = "-h", a4[] = "--nope", a5[] = "--num",
	     a6[] = "12", a7[] = "--data", a8[] = "x";
	int first;
	hy_cli_capture(&c, err, sizeof err);
	argv[0] = a0, argv[1] = a1, argv[2] = a2, argv[3] = a3, argv[4] = NULL;
	assert_int_equal(hy_cli_parse_opts(&c, t, 20, 4, argv, &first), -1);
	assert_true(bits == 5 && help == 1 && first == 4);
	argv[1] = a4, argv[2] = NULL;
	assert_int_equal(hy_cli_parse_opts(&c, t, 20, 2, argv, &first), 2);
	assert_string_equal(err, "unknown option '--nope'");
	argv[1] = a5, argv[2] = NULL;
	assert_int_equal(hy_cli_parse_opts(&c, t, 20, 2, argv, &first), 2);
	assert_string_equal(err, "option '--num' needs an argument");
	argv[1] = a5, argv[2] = a6, argv[3] = NULL;
	assert_int_equal(hy_cli_parse_opts(&c, t, 20, 3, argv, &first), 2);
	assert_string_equal(err, "bad --num '12': 0 to 9");
	argv[1] = a7, argv[2] = a8, argv[3] = NULL;
	assert_int_equal(hy_cli_parse_opts(&c, t, 20, 3, argv, &first), 1);
	assert_string_equal(err, "bad data 'x'");
	hy_cli_capture(&c, NULL, 0);
	assert_null(c.capture);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_precision),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_verbosity),
		cmocka_unit_test(test_bad_game),
		cmocka_unit_test(test_opts_table),
		cmocka_unit_test(test_opts_help),
		cmocka_unit_test(test_opts_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
