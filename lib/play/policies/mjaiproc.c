/* The external-bot policy "mjai:COMMAND" (policies.h; the protocol's
 * pieces are play/mjaibot.h): one child process per (table, seat), fed its
 * seat's view of the table log at each decision, one answer line read per
 * decision under a timeout. */
#include "play/policies/policies.h"

#include "play/mjaibot.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/grow.h"

extern char **environ;

enum {
	MAX_LINE = 1 << 20,  /* longest answer line accepted */
	QUOTE = 160,         /* bytes of a bad line quoted in a message */
	GRACE_MS = 1000,     /* a bot may take this long to exit after end_game */
};

typedef struct bot {
	pid_t pid;          /* 0: no process */
	int wfd, rfd;       /* its stdin (socket), its stdout (pipe) */
	uint64_t game;      /* the game it is playing */
	size_t sent;        /* events of the table log already sent */
	char *buf;          /* bytes read and not yet consumed */
	size_t blen, bcap;
	/* the decision being answered */
	int waiting;
	size_t ev_index;    /* 1-based index of the last event sent */
	int ev_type;
} bot;

typedef struct mjaibot {
	char *command;
	double timeout;     /* seconds; ≤ 0: none */
	bot *bots;          /* [table * 4 + seat] */
	size_t nbots;
	hy_game view;       /* scratch: one seat's view of pending events */
	hy_game scratch;    /* scratch: parsed answers */
} mjaibot;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Milliseconds left until deadline for poll (-1: no deadline). */
static int ms_left(double deadline)
{
	if (deadline <= 0)
		return -1;
	double left = deadline - now_s();
	return left <= 0 ? 0 : (int)(left * 1000.0) + 1;
}

/* ------------------------------------------------------------ processes */

static void close_fds(bot *b)
{
	if (b->wfd >= 0)
		close(b->wfd);
	if (b->rfd >= 0)
		close(b->rfd);
	b->wfd = b->rfd = -1;
}

/* Reaps the bot: waits up to grace_ms for it to exit on its own (its stdin
 * is closed first), then kills its process group. Fills *status. */
static void reap(bot *b, int grace_ms, int *status)
{
	int st = 0;
	if (b->wfd >= 0) {
		close(b->wfd);
		b->wfd = -1;
	}
	pid_t r = 0;
	for (int waited = 0; (r = waitpid(b->pid, &st, WNOHANG)) == 0 && waited < grace_ms;
	     waited += 5)
		nanosleep(&(struct timespec){0, 5000000}, NULL);
	if (r == 0) {
		kill(-b->pid, SIGKILL);
		kill(b->pid, SIGKILL);
		while ((r = waitpid(b->pid, &st, 0)) < 0 && errno == EINTR)
			;
	}
	kill(-b->pid, SIGKILL); /* stragglers of the group (the shell's children) */
	if (status)
		*status = st;
	close_fds(b);
	b->pid = 0;
	b->blen = 0;
	b->waiting = 0;
}

static hy_status spawn(mjaibot *m, bot *b, uint64_t game, hy_diag *d)
{
	int sv[2] = {-1, -1}, pf[2] = {-1, -1};
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return hy_diag_set(d, HY_EIO, 0, "cannot start bot '%s': socketpair: %s",
				   m->command, strerror(errno));
	if (pipe2(pf, O_CLOEXEC) != 0) {
		int err = errno;
		close(sv[0]);
		close(sv[1]);
		return hy_diag_set(d, HY_EIO, 0, "cannot start bot '%s': pipe: %s", m->command,
				   strerror(err));
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pf[1], STDOUT_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	/* nothing of ours but stdin, stdout and stderr reaches the bot (files
	 * the caller opened without O_CLOEXEC included) */
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
#endif
	sigset_t def, none;
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
					      POSIX_SPAWN_SETSIGMASK);
	char *argv[] = {"/bin/sh", "-c", m->command, NULL};
	pid_t pid;
	int rc = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(sv[1]);
	close(pf[1]);
	if (rc != 0) {
		close(sv[0]);
		close(pf[0]);
		return hy_diag_set(d, HY_EIO, 0, "cannot start bot '%s': %s", m->command,
				   strerror(rc));
	}
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	fcntl(pf[0], F_SETFL, fcntl(pf[0], F_GETFL) | O_NONBLOCK);
	b->pid = pid;
	b->wfd = sv[0];
	b->rfd = pf[0];
	b->game = game;
	b->sent = 0;
	b->blen = 0;
	b->waiting = 0;
	return HY_OK;
}

/* ------------------------------------------------------------ messages */

/* s quoted for a message, at most QUOTE bytes, control bytes escaped. */
static void quote(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0;
	out[o++] = '"';
	for (size_t i = 0; i < n && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (i == QUOTE) {
			o += (size_t)snprintf(out + o, size - o, "...");
			break;
		}
		if (c == '"' || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	if (o + 2 > size)
		o = size - 2;
	out[o++] = '"';
	out[o] = 0;
}

static hy_status fail(mjaibot *m, const hy_decision *r, bot *b, hy_diag *d, const char *fmt,
		      ...) __attribute__((format(printf, 5, 6)));

static hy_status fail(mjaibot *m, const hy_decision *r, bot *b, hy_diag *d, const char *fmt,
		      ...)
{
	char why[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	const char *tn = hy_ev_type_name(b->ev_type);
	hy_diag_set(d, HY_EDATA, 0, "seat %d, answering event %zu (%s): the bot %s", r->seat,
		    b->ev_index, tn ? tn : "none", why);
	if (d) {
		d->game = (uint32_t)r->game;
		if (!d->source[0])
			snprintf(d->source, sizeof d->source, "mjai:%s", m->command);
	}
	return HY_EDATA;
}

/* How a process ended, for a message. */
static void describe_exit(int st, char *buf, size_t n)
{
	if (WIFEXITED(st))
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, n, "ended");
}

/* ------------------------------------------------------------ I/O */

/* Writes all of s (n bytes) to the bot's stdin before the deadline.
 * 0 ok, -1 error (errno; EPIPE: the bot is gone), -2 timeout. */
static int send_all(bot *b, const char *s, size_t n, double deadline)
{
	while (n) {
		ssize_t k = send(b->wfd, s, n, MSG_NOSIGNAL);
		if (k > 0) {
			s += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		struct pollfd pf = {.fd = b->wfd, .events = POLLOUT};
		int pr = poll(&pf, 1, ms_left(deadline));
		if (pr == 0)
			return -2;
		if (pr < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}

/* Reads one line (without its newline) into *line, *len (pointing into
 * b->buf; consumed by drop_line). 0 ok, 1 end of file, -1 error (errno),
 * -2 timeout, -3 line too long. */
static int read_line(bot *b, double deadline, char **line, size_t *len)
{
	for (;;) {
		char *nl = b->blen ? memchr(b->buf, '\n', b->blen) : NULL;
		if (nl) {
			*line = b->buf;
			*len = (size_t)(nl - b->buf);
			if (*len && b->buf[*len - 1] == '\r')
				(*len)--;
			return 0;
		}
		if (b->blen >= MAX_LINE)
			return -3;
		if (HY_GROW(b->buf, b->bcap, b->blen + 4096, 8192)) {
			errno = ENOMEM;
			return -1;
		}
		ssize_t k = read(b->rfd, b->buf + b->blen, b->bcap - b->blen);
		if (k > 0) {
			b->blen += (size_t)k;
			continue;
		}
		if (k == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		struct pollfd pf = {.fd = b->rfd, .events = POLLIN};
		int pr = poll(&pf, 1, ms_left(deadline));
		if (pr == 0)
			return -2;
		if (pr < 0 && errno != EINTR)
			return -1;
	}
}

static void drop_line(bot *b)
{
	char *nl = memchr(b->buf, '\n', b->blen);
	size_t used = nl ? (size_t)(nl - b->buf) + 1 : b->blen;
	memmove(b->buf, b->buf + used, b->blen - used);
	b->blen -= used;
}

/* The pending events of the table log (from b->sent), as the seat sees
 * them, as one protocol line with its newline: malloc'd. */
static hy_status pending_line(mjaibot *m, bot *b, const hy_game *log, int seat, char **out,
			      size_t *len, hy_diag *d)
{
	hy_game_clear(&m->view);
	hy_status s = HY_OK;
	for (size_t i = b->sent; log && i < log->n && s == HY_OK; i++)
		s = hy_mjaibot_view_event(&m->view, &log->ev[i], seat, d);
	if (s == HY_OK)
		s = hy_mjaibot_format_batch(m->view.ev, m->view.n, out, len, d);
	if (s != HY_OK)
		return s;
	char *t = realloc(*out, *len + 2);
	if (!t) {
		free(*out);
		*out = NULL;
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	t[(*len)++] = '\n';
	t[*len] = 0;
	*out = t;
	if (log && log->n) {
		b->ev_index = log->n;
		b->ev_type = log->ev[log->n - 1].type;
	}
	b->sent = log ? log->n : 0;
	return HY_OK;
}

/* ------------------------------------------------------------ policy */

static bot *slot(mjaibot *m, uint64_t table, int seat, hy_diag *d)
{
	size_t i = (size_t)table * 4 + (size_t)seat;
	if (i >= m->nbots) {
		size_t n = hy_grow_cap(m->nbots, i + 1, 16); /* new slots get closed fds */
		bot *nb = n ? realloc(m->bots, n * sizeof *nb) : NULL;
		if (!nb) {
			hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			return NULL;
		}
		for (size_t j = m->nbots; j < n; j++)
			nb[j] = (bot){.wfd = -1, .rfd = -1};
		m->bots = nb;
		m->nbots = n;
	}
	return &m->bots[i];
}

/* Sends one request's pending events; starts the bot if needed. */
static hy_status ask(mjaibot *m, const hy_decision *r, bot *b, double deadline, hy_diag *d)
{
	hy_status s;
	if (!r->log)
		return hy_diag_set(d, HY_EUSAGE, 0, "mjai: the decision carries no table log");
	if (b->pid && b->game != r->game)
		reap(b, 0, NULL); /* left over from an earlier game on this table */
	if (!b->pid && (s = spawn(m, b, r->game, d)) != HY_OK)
		return s;
	if (b->blen) {
		char q[QUOTE + 16];
		quote(b->buf, b->blen, q, sizeof q);
		fail(m, r, b, d, "wrote more than one line for one request: %s", q);
		reap(b, 0, NULL);
		return HY_EDATA;
	}
	char *line = NULL;
	size_t len = 0;
	if ((s = pending_line(m, b, r->log, r->seat, &line, &len, d)) != HY_OK)
		return s;
	int w = send_all(b, line, len, deadline);
	int err = errno;
	free(line);
	b->waiting = 1;
	if (w == 0)
		return HY_OK;
	if (w == -2)
		fail(m, r, b, d, "did not read its input within %g s", m->timeout);
	else if (err == EPIPE || err == ECONNRESET)
		w = 1; /* gone: the read reports how it ended */
	else
		fail(m, r, b, d, "cannot be written to: %s", strerror(err));
	if (w == 1)
		return HY_OK;
	reap(b, 0, NULL);
	return HY_EDATA;
}

/* Reads and maps the answer of a request already sent. */
static hy_status answer(mjaibot *m, const hy_decision *r, bot *b, double deadline,
			hy_choice *out, hy_diag *d)
{
	char *line;
	size_t len;
	int rc = read_line(b, deadline, &line, &len);
	b->waiting = 0;
	if (rc != 0) {
		int st, err = errno;
		char how[120];
		if (rc == 1) {
			reap(b, 200, &st);
			describe_exit(st, how, sizeof how);
			return fail(m, r, b, d, "closed its output without answering (it %s)", how);
		}
		reap(b, 0, NULL);
		if (rc == -2)
			return fail(m, r, b, d, "gave no answer within %g s", m->timeout);
		if (rc == -3)
			return fail(m, r, b, d, "wrote an answer line longer than %d bytes",
				    MAX_LINE);
		return fail(m, r, b, d, "cannot be read: %s", strerror(err));
	}
	hy_action a;
	int index, illegal;
	hy_diag ad;
	hy_diag_init(&ad, NULL);
	hy_status s = hy_mjaibot_parse_answer(r->e, r->seat, line, len, &m->scratch, &a, &index,
					      &illegal, &ad);
	if (s != HY_OK) {
		char q[QUOTE + 16];
		quote(line, len, q, sizeof q);
		fail(m, r, b, d, "answered %s %s: %s",
		     illegal ? "an illegal action" : "malformed JSON", q, ad.msg);
		reap(b, 0, NULL);
		return HY_EDATA;
	}
	drop_line(b);
	out->index = index;
	out->act = a; /* the bot's own choice of tiles, never substituted */
	out->logp = 0;
	out->value = 0;
	return HY_OK;
}

/* The first failure of a batch goes to d, keeping the caller's source. */
static void keep_first(hy_status *first, hy_status s, hy_diag *d, const hy_diag *tmp)
{
	if (s == HY_OK || *first != HY_OK)
		return;
	*first = s;
	if (!d)
		return;
	d->status = tmp->status;
	d->line = tmp->line;
	d->game = tmp->game;
	memcpy(d->msg, tmp->msg, sizeof d->msg);
	if (!d->source[0])
		memcpy(d->source, tmp->source, sizeof d->source);
}

static hy_status decide(hy_policy *p, size_t n, const hy_decision *req, hy_choice *out,
			hy_diag *d)
{
	mjaibot *m = p->impl;
	double deadline = m->timeout > 0 ? now_s() + m->timeout : 0;
	hy_status first = HY_OK;
	hy_diag tmp;
	/* send every request first, so that the bots think in parallel */
	for (size_t i = 0; i < n; i++) {
		bot *b = slot(m, req[i].table, req[i].seat, d);
		if (!b)
			return HY_ENOMEM;
		hy_diag_init(&tmp, NULL);
		hy_status s = ask(m, &req[i], b, deadline, &tmp);
		if (s)
			snprintf(out[i].why, sizeof out[i].why, "%s", tmp.msg);
		keep_first(&first, s, d, &tmp);
	}
	for (size_t i = 0; i < n; i++) {
		bot *b = slot(m, req[i].table, req[i].seat, d);
		if (!b || !b->waiting)
			continue;
		hy_diag_init(&tmp, NULL);
		hy_status s = answer(m, &req[i], b, deadline, &out[i], &tmp);
		if (s)
			snprintf(out[i].why, sizeof out[i].why, "%s", tmp.msg);
		keep_first(&first, s, d, &tmp);
	}
	return first;
}

static hy_status game_over(hy_policy *p, uint64_t table, uint64_t game, const hy_game *log,
			   hy_diag *d)
{
	mjaibot *m = p->impl;
	(void)d;
	for (int s = 0; s < 4; s++) {
		size_t i = (size_t)table * 4 + (size_t)s;
		if (i >= m->nbots || !m->bots[i].pid)
			continue;
		bot *b = &m->bots[i];
		if (b->game == game) {
			/* the final events; the bot's answer (none) is read and
			 * not judged: the game is over */
			double deadline = m->timeout > 0 ? now_s() + m->timeout : now_s() + 10.0;
			char *line = NULL;
			size_t len = 0;
			if (pending_line(m, b, log, s, &line, &len, NULL) == HY_OK &&
			    send_all(b, line, len, deadline) == 0) {
				char *l;
				size_t ll;
				read_line(b, deadline, &l, &ll);
			}
			free(line);
			reap(b, GRACE_MS, NULL);
		} else {
			reap(b, 0, NULL);
		}
	}
	return HY_OK;
}

static void policy_free(hy_policy *p)
{
	mjaibot *m = p->impl;
	if (!m)
		return;
	for (size_t i = 0; i < m->nbots; i++) {
		if (m->bots[i].pid)
			reap(&m->bots[i], GRACE_MS, NULL);
		free(m->bots[i].buf);
	}
	free(m->bots);
	hy_game_free(&m->view);
	hy_game_free(&m->scratch);
	free(m->command);
	free(m);
	p->impl = NULL;
}

static const hy_policy_ops mjaibot_ops = {
	.decide = decide,
	.game_over = game_over,
	.free = policy_free,
};

hy_status hy_policy_open_mjai(hy_policy *p, const char *command, const hy_policy_opts *o,
				 hy_diag *d)
{
	if (!command || !*command)
		return hy_diag_set(d, HY_EUSAGE, 0, "mjai: no bot command given");
	mjaibot *m = calloc(1, sizeof *m);
	if (!m || !(m->command = strdup(command))) {
		free(m);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	m->timeout = o ? o->bot_timeout : 0;
	hy_game_init(&m->view);
	hy_game_init(&m->scratch);
	memset(p, 0, sizeof *p);
	p->ops = &mjaibot_ops;
	p->impl = m;
	snprintf(p->name, sizeof p->name, "mjai:%s", command);
	p->stochastic = 0;
	p->has_value = 0;
	return HY_OK;
}
