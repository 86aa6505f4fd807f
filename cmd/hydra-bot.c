/* hydra-bot: a policy (checkpoint, baseline, rulebot or random) as an mjai bot on
 * stdin/stdout (the mjai.app protocol, lib/play/mjaibot.h). Option parsing
 * and wiring only: the seat's view is lib/play/seatview.c. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/status.h"
#include "core/version.h"
#include "io/lines.h"
#include "io/output.h"
#include "events/event.h"
#include "hand/shanten.h"
#include "play/mjaibot.h"
#include "play/policy.h"
#include "play/seatview.h"

static const char usage[] =
	"usage: hydra-bot [options] CKPT.h5 | baseline | rulebot | random\n"
	"Plays one seat as an mjai bot: reads lines of JSON arrays of mjai events\n"
	"(the events since its last answer, as its seat sees them; start_game\n"
	"carries the seat as \"id\") on standard input and answers each line with\n"
	"one JSON action line on standard output ({\"type\":\"none\"} when the seat\n"
	"has no decision), flushed at once.\n"
	"\n"
	"  -T, --temperature X  sample a checkpoint's policy at temperature X\n"
	"                       (default 0: the most probable action)\n"
	"  -S, --seed S         seed of the sampling (default 0)\n"
	"      --meta           add \"meta\" to every answer to a decision: the legal\n"
	"                       actions' probabilities, the value, the time taken,\n"
	"                       in the layout of Mortal's bot (q_values, mask_bits,\n"
	"                       is_greedy, batch_size, eval_time_ns, shanten) with\n"
	"                       probs and value\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"Exit status: 0 at the end of the input, 1 malformed input, a line over\n"
	"1 MiB or an event that cannot happen in the seat's game, 2 usage.\n";

/* Longest input line (bytes before its newline), as hydra-sp's cap on the
 * answers of a bot. */
enum { MAX_LINE = 1 << 20 };

static const char *prog = "hydra-bot";

/* After --help/--version: 0, or 1 when stdout could not take it. */
static int info_done(void)
{
	hy_diag d;
	return hy_stdout_check(&d) ? fprintf(stderr, "%s: standard output: %s\n", prog, d.msg), 1 : 0;
}

typedef struct bot {
	hy_policy pol;
	hy_seatview v;
	hy_game batch;      /* the events of one input line */
	hy_game log;        /* the game so far, as the seat sees it */
	int seat;           /* -1 before start_game */
	uint64_t seed, game, ndec;
	int games;
	int meta;           /* --meta */
} bot;

static int die_line(unsigned long line, const char *msg)
{
	fprintf(stderr, "%s: line %lu: %s\n", prog, line, msg);
	return 1;
}

/* Applies the events of one input line; 0 ok, else an exit status. */
static int take_events(bot *b, unsigned long line)
{
	char msg[1200];
	for (size_t i = 0; i < b->batch.n; i++) {
		const hy_event *ev = &b->batch.ev[i];
		const char *tn = hy_ev_type_name(ev->type);
		if (ev->type == HY_EV_START_GAME) {
			int id = hy_mjaibot_start_id(ev);
			if (id < 0) {
				snprintf(msg, sizeof msg, "event %zu (start_game): no seat \"id\" 0-3",
					 i + 1);
				return die_line(line, msg);
			}
			b->seat = id;
			b->game = (uint64_t)b->games++;
			b->ndec = 0;
			hy_game_clear(&b->log);
			hy_seatview_init(&b->v, id);
		} else if (b->seat < 0) {
			snprintf(msg, sizeof msg, "event %zu (%s) before start_game", i + 1, tn);
			return die_line(line, msg);
		}
		hy_diag d;
		hy_diag_init(&d, NULL);
		hy_status s = hy_mjaibot_view_event(&b->log, ev, b->seat, &d);
		if (s == HY_OK)
			s = hy_seatview_event(&b->v, &b->log.ev[b->log.n - 1], &d);
		if (s != HY_OK) {
			snprintf(msg, sizeof msg, "event %zu (%s): %s", i + 1, tn, d.msg);
			return die_line(line, msg);
		}
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The answer to the state after the line's events, into buf. */
static int answer(bot *b, unsigned long line, char *buf, size_t size)
{
	hy_action a = {.type = HY_ACT_PASS};
	char msg[1200];
	uint64_t mask = b->seat >= 0 ? hy_seatview_legal(&b->v) : 0;
	hy_mjaibot_meta m;
	if (mask) {
		hy_decision q = {
			.e = &b->v.e,
			.track = &b->v.trk,
			.log = &b->log,
			.table = 0,
			.game = b->game,
			.key = hy_policy_key(b->seed, b->game, b->ndec++, b->seat),
			.legal = mask,
			.seat = b->seat,
		};
		hy_choice c;
		hy_diag d;
		hy_diag_init(&d, b->pol.name);
		uint64_t t0 = now_ns();
		hy_status s = hy_policy_decide_one(&b->pol, &q, &c, m.prob, &d);
		m.eval_ns = now_ns() - t0;
		if (s == HY_OK && hy_engine_action_of(&b->v.e, b->seat, c.index, &a) != HY_OK)
			s = hy_diag_set(&d, HY_EUSAGE, 0, "policy chose index %d, not legal",
					c.index);
		if (s != HY_OK) {
			snprintf(msg, sizeof msg, "policy '%s': %s", b->pol.name, d.msg);
			die_line(line, msg);
			return -1;
		}
		int top = c.index;
		for (uint64_t r = mask; r; r &= r - 1)
			if (m.prob[__builtin_ctzll(r)] > m.prob[top])
				top = __builtin_ctzll(r);
		m.mask = mask;
		m.greedy = m.prob[c.index] >= m.prob[top];
		m.has_value = b->pol.has_value;
		m.value = c.value;
		const hy_player *p = &b->v.e.p[b->seat];
		m.shanten = hy_shanten(p->cnt, p->nmelds);
	}
	int n = hy_mjaibot_format_answer(&b->v.e, b->seat, &a, buf, size);
	if (n >= 0 && mask && b->meta)
		n = hy_mjaibot_add_meta(buf, n, size, &m);
	if (n < 0) {
		die_line(line, "answer does not fit");
		return -1;
	}
	return n;
}

static int run(bot *b)
{
	char *text = NULL, out[4096];
	size_t cap = 0, len;
	unsigned long line = 0;
	int rc = 0;
	for (;;) {
		hy_diag d;
		hy_diag_init(&d, NULL);
		hy_status s = hy_lines_read(stdin, MAX_LINE, &text, &cap, &len, &d);
		if (s == HY_STOP)
			break;
		line++;
		if (s == HY_EDATA) {
			char msg[80];
			snprintf(msg, sizeof msg, "longer than %d bytes (1 MiB)", MAX_LINE);
			rc = die_line(line, msg);
			break;
		}
		if (s != HY_OK) {
			fprintf(stderr, "%s: standard input: %s\n", prog, d.msg);
			rc = 1;
			break;
		}
		hy_game_clear(&b->batch);
		if (hy_mjaibot_parse_batch(&b->batch, text, len, (uint32_t)line, &d) != HY_OK) {
			rc = die_line(line, d.msg);
			break;
		}
		if ((rc = take_events(b, line)) != 0)
			break;
		int n = answer(b, line, out, sizeof out);
		if (n < 0) {
			rc = 1;
			break;
		}
		out[n] = '\n';
		if (fwrite(out, 1, (size_t)n + 1, stdout) != (size_t)n + 1 || fflush(stdout) != 0) {
			fprintf(stderr, "%s: write error: %s\n", prog, strerror(errno));
			rc = 1;
			break;
		}
	}
	free(text);
	return rc;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"temperature", required_argument, 0, 'T'},
		{"seed", required_argument, 0, 'S'},
		{"meta", no_argument, 0, 'M'},
		{"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'},
		{0, 0, 0, 0},
	};
	hy_policy_opts po;
	hy_policy_opts_default(&po);
	po.temperature = 0.0f;
	po.threads = 1;
	uint64_t seed = 0;
	int c, meta = 0;
	while ((c = getopt_long(argc, argv, "T:S:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'T': {
			char *end;
			errno = 0;
			double t = strtod(optarg, &end);
			if (errno || *end || !(t >= 0) || t > 1e6) {
				fprintf(stderr, "%s: bad temperature '%s'\n", prog, optarg);
				return 2;
			}
			po.temperature = (float)t;
			break;
		}
		case 'S':
			if (parse_u64(optarg, &seed) != 0) {
				fprintf(stderr, "%s: bad seed '%s'\n", prog, optarg);
				return 2;
			}
			break;
		case 'M': meta = 1; break;
		case 'h': fputs(usage, stdout); return info_done();
		case 'V': printf("hydra-bot (hydra-c) %s\n", HY_VERSION); return info_done();
		default:
			fprintf(stderr, "%s: try 'hydra-bot --help'\n", prog);
			return 2;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "%s: expected one policy (CKPT.h5, baseline, rulebot or random)\n"
				"%s: try 'hydra-bot --help'\n", prog, prog);
		return 2;
	}
	const char *spec = argv[optind];
	if (strncmp(spec, "mjai:", 5) == 0) {
		fprintf(stderr, "%s: policy '%s': an external bot cannot be served again\n", prog,
			spec);
		return 2;
	}
	signal(SIGPIPE, SIG_DFL);
	bot *b = calloc(1, sizeof *b);
	if (!b) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	b->seat = -1;
	b->seed = seed;
	b->meta = meta;
	hy_game_init(&b->batch);
	hy_game_init(&b->log);
	hy_diag d;
	hy_diag_init(&d, spec);
	hy_status s = hy_policy_open(&b->pol, spec, &po, &d);
	int rc;
	if (s != HY_OK) {
		char buf[1200];
		fprintf(stderr, "%s: %s\n", prog, hy_diag_format(&d, buf, sizeof buf));
		rc = s == HY_EUSAGE ? 2 : hy_status_exit(s);
	} else {
		rc = run(b);
		hy_policy_close(&b->pol);
	}
	hy_game_free(&b->batch);
	hy_game_free(&b->log);
	free(b);
	return rc;
}
