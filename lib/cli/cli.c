/* Program set-up, messages and the progress line shared by cmd/ (cli.h). */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/version.h"
#include "io/output.h"

void hy_cli_init(hy_cli *c, const char *prog)
{
	memset(c, 0, sizeof *c);
	c->prog = prog;
	c->tty = isatty(STDERR_FILENO);
	c->t0 = c->last = hy_cli_now();
}

void hy_cli_verbosity(hy_cli *c, int opt)
{
	if (opt == 'q')
		c->level = -1;
	else
		c->level = c->level < 0 ? 1 : c->level + 1;
}

int hy_cli_opt_common(hy_cli *c, int opt, const char *usage)
{
	switch (opt) {
	case 'q':
	case 'v': hy_cli_verbosity(c, opt); return -1;
	case 'h': return hy_cli_help(c, usage);
	case 'V': return hy_cli_version(c);
	default: return hy_cli_try_help(c);
	}
}

int hy_cli_stdout_done(const hy_cli *c)
{
	hy_diag d;
	if (!hy_stdout_check(&d))
		return 0;
	fprintf(stderr, "%s: standard output: %s\n", c->prog, d.msg);
	return 1;
}

/* After a write to stdout that failed as it ran (a text longer than the
 * buffer meets a full disk): its reason, kept from the write itself, for
 * a later flush finds only the error flag. */
static int stdout_failed(const hy_cli *c, int err)
{
	fprintf(stderr, "%s: standard output: write error: %s\n", c->prog,
		strerror(err ? err : EIO));
	return 1;
}

int hy_cli_help(const hy_cli *c, const char *usage)
{
	errno = 0;
	if (fputs(usage, stdout) == EOF)
		return stdout_failed(c, errno);
	return hy_cli_stdout_done(c);
}

int hy_cli_version(const hy_cli *c)
{
	errno = 0;
	if (printf("%s (hydra-c) %s\n", c->prog, HY_VERSION) < 0)
		return stdout_failed(c, errno);
	return hy_cli_stdout_done(c);
}

int hy_cli_try_help(const hy_cli *c)
{
	fprintf(stderr, "%s: try '%s --help'\n", c->prog, c->prog);
	return 2;
}

/* One write a message: stderr is unbuffered, and mpirun --tag-output tags
 * each write, so a line written in pieces would reach the reader in pieces. */
static void vsay(hy_cli *c, const char *fmt, va_list ap)
{
	hy_cli_progress_clear(c);
	char line[8192];
	int n = snprintf(line, sizeof line, "%s: ", c->prog);
	if (n < 0 || (size_t)n >= sizeof line - 2)
		n = 0;
	int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	size_t len = m < 0 ? (size_t)n : (size_t)n + (size_t)m;
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	line[len] = '\n';
	line[len + 1] = '\0';
	fputs(line, stderr);
}

void hy_cli_capture(hy_cli *c, char *buf, size_t n)
{
	c->capture = buf;
	c->capn = buf ? n : 0;
	if (buf && n)
		buf[0] = '\0';
}

/* A message about the arguments: captured, or said. */
static void vargs(const hy_cli *c, const char *fmt, va_list ap)
{
	if (c->capture)
		vsnprintf(c->capture, c->capn, fmt, ap);
	else
		vsay((hy_cli *)c, fmt, ap);
}

int hy_cli_usage(const hy_cli *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vargs(c, fmt, ap);
	va_end(ap);
	return c->capture ? 2 : hy_cli_try_help(c);
}

int hy_cli_fail(const hy_cli *c, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vargs(c, fmt, ap);
	va_end(ap);
	return status;
}

void hy_cli_say(hy_cli *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(c, fmt, ap);
	va_end(ap);
}

void hy_cli_info(hy_cli *c, const char *fmt, ...)
{
	if (!hy_cli_verbose(c))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsay(c, fmt, ap);
	va_end(ap);
}

const char *hy_cli_diag_text(const hy_diag *d, char *buf, int size)
{
	return d->source[0] || d->line ? hy_diag_format(d, buf, size) : d->msg;
}

void hy_cli_diag(hy_cli *c, const hy_diag *d)
{
	char buf[1200];
	hy_cli_say(c, "%s", hy_cli_diag_text(d, buf, sizeof buf));
}

hy_status hy_cli_bad_game(hy_cli *c, const hy_diag *d, int keep_going, int *reported,
			  uint64_t *skipped)
{
	hy_cli_diag(c, d);
	if (!keep_going) {
		*reported = 1;
		return d->status ? d->status : HY_EDATA;
	}
	(*skipped)++;
	return HY_OK;
}

int hy_cli_finish(hy_cli *c, int rc)
{
	if (fclose(stdout) != 0 && rc == 0) {
		if (errno != EPIPE)
			hy_cli_say(c, "standard output: write error: %s", strerror(errno));
		rc = 1;
	}
	return rc;
}

double hy_cli_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void hy_cli_hms(double s, char *buf, size_t n)
{
	if (s < 0 || !isfinite(s)) {
		snprintf(buf, n, "?");
		return;
	}
	long t = (long)(s + 0.5);
	snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

/* ---------------------------------------------------------------- progress */

void hy_cli_progress_start(hy_cli *c)
{
	c->t0 = c->last = hy_cli_now();
}

int hy_cli_progress_due(hy_cli *c, int force)
{
	if (!c->tty || hy_cli_quiet(c))
		return 0;
	double t = hy_cli_now();
	if (!force && c->shown && t - c->last < 0.2)
		return 0;
	c->last = t;
	return 1;
}

static void draw(hy_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vdraw(hy_cli *c, const char *fmt, va_list ap)
{
	char line[1024] = "\r"; /* one write, as vsay */
	int m = vsnprintf(line + 1, sizeof line - 5, fmt, ap);
	size_t len = m < 0 ? 1 : 1 + ((size_t)m < sizeof line - 5 ? (size_t)m : sizeof line - 6);
	memcpy(line + len, "\033[K", 4);
	fputs(line, stderr);
	c->shown = 1;
}

static void draw(hy_cli *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdraw(c, fmt, ap);
	va_end(ap);
}

void hy_cli_progress(hy_cli *c, int force, const char *fmt, ...)
{
	if (!hy_cli_progress_due(c, force))
		return;
	va_list ap;
	va_start(ap, fmt);
	vdraw(c, fmt, ap);
	va_end(ap);
}

void hy_cli_progress_count(hy_cli *c, const char *what, uint64_t done, uint64_t total, int force)
{
	if (!hy_cli_progress_due(c, force))
		return;
	double el = hy_cli_now() - c->t0;
	double rate = el > 0 ? (double)done / el : 0;
	char eta[32];
	hy_cli_hms(rate > 0 && total >= done ? (double)(total - done) / rate : -1, eta, sizeof eta);
	if (total)
		draw(c, "%s %llu/%llu  %.1f %s/s  ETA %s", what,
			(unsigned long long)done, (unsigned long long)total, rate, what, eta);
	else
		draw(c, "%s %llu  %.1f %s/s", what, (unsigned long long)done, rate,
			what);
}

void hy_cli_progress_clear(hy_cli *c)
{
	if (c->shown)
		fputs("\r\033[K", stderr);
	c->shown = 0;
}

void hy_cli_progress_end(hy_cli *c)
{
	if (c->shown)
		fputc('\n', stderr);
	c->shown = 0;
}

/* ---------------------------------------------------------------- terminals */

int hy_cli_stdin(hy_cli *c, const char *const *paths, size_t n, int binary, const char *what)
{
	int reads = n == 0;
	for (size_t i = 0; i < n; i++)
		reads |= strcmp(paths[i], "-") == 0;
	if (!reads || !isatty(STDIN_FILENO))
		return 0;
	if (!binary) {
		hy_cli_say(c, "reading %s from standard input (a terminal); give files or a pipe, "
			"or see --help", what);
		return 0;
	}
	hy_cli_say(c, "no input: standard input is a terminal");
	fprintf(stderr, "hint: give %s as files or through a pipe\n", what);
	return 2;
}

int hy_cli_paths(hy_cli *c, const char *const *paths, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (!*paths[i])
			return hy_cli_usage(c, "empty %s (argument %zu)", what, i + 1);
	return 0;
}

int hy_cli_stdout_binary(hy_cli *c, const char *what, const char *hint)
{
	if (!isatty(STDOUT_FILENO))
		return 0;
	hy_cli_say(c, "refusing to write %s to a terminal", what);
	fprintf(stderr, "hint: %s\n", hint);
	return 2;
}
