/* Unit tests for lib/io/lines: capped line reading — newlines, "\r\n", a
 * last line without newline, empty lines, a line of exactly the cap, one
 * byte over it (failing without reading further), NUL bytes kept. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/lines.h"

/* The lines of text (n bytes) read with cap max, "|"-joined into out;
 * returns the final status. */
static hy_status read_all(const char *text, size_t n, size_t max, char *out, size_t size)
{
	FILE *f = fmemopen((void *)text, n, "rb");
	assert_non_null(f);
	char *buf = NULL;
	size_t cap = 0, len;
	hy_status s;
	out[0] = '\0';
	while ((s = hy_lines_read(f, max, &buf, &cap, &len, NULL)) == HY_OK) {
		assert_true(cap <= max + 1);
		assert_int_equal(buf[len], '\0');
		size_t o = strlen(out);
		snprintf(out + o, size - o, "%s%.*s", o ? "|" : "", (int)len, buf);
		if (memchr(buf, '\0', len))
			snprintf(out + strlen(out), size - strlen(out), "<nul>");
	}
	free(buf);
	fclose(f);
	return s;
}

static void test_lines(void **state)
{
	(void)state;
	char out[256];
	static const char a[] = "ab\ncd\r\n\n\nlast";
	assert_int_equal(read_all(a, sizeof a - 1, 8, out, sizeof out), HY_STOP);
	assert_string_equal(out, "ab|cd|||last");
	static const char b[] = "x\n";
	assert_int_equal(read_all(b, 2, 8, out, sizeof out), HY_STOP);
	assert_string_equal(out, "x");
	assert_int_equal(read_all("", 0, 8, out, sizeof out), HY_STOP);
	assert_string_equal(out, "");
	static const char z[] = "a\0b\n";
	assert_int_equal(read_all(z, 4, 8, out, sizeof out), HY_STOP);
	assert_string_equal(out, "a<nul>");
	/* exactly the cap, then one over: fails after max + 1 bytes of it */
	static const char c[] = "12345678\n123456789abcdef\nnext\n";
	hy_diag d;
	hy_diag_init(&d, NULL);
	FILE *f = fmemopen((void *)c, sizeof c - 1, "rb");
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	char *buf = NULL;
	size_t cap = 0, len;
	assert_int_equal(hy_lines_read(f, 8, &buf, &cap, &len, &d), HY_OK);
	assert_int_equal(len, 8);
	assert_int_equal(hy_lines_read(f, 8, &buf, &cap, &len, &d), HY_EDATA);
	assert_non_null(strstr(d.msg, "longer than 8 bytes"));
	assert_int_equal(ftell(f), 9 + 9);
	assert_true(cap <= 9);
	free(buf);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
