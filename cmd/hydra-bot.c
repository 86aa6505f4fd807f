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

#include "cli/cli.h"
#include "cli/models.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/num.h"
#include "core/status.h"
#include "io/lines.h"
#include "io/output.h"
#include "events/event.h"
#include "hand/shanten.h"
#include "play/mjaibot.h"
#include "play/policy.h"
#include "play/seatview.h"


/* Longest input line (bytes before its newline), as hydra-sp's cap on the
 * answers of a bot. */
enum { MAX_LINE = 1 << 20 };

typedef struct bot {
	hy_cli cli;
	hy_policy pol;
	hy_seatview v;
	hy_game batch;      /* the events of one input line */
	hy_game log;        /* the game so far, as the seat sees it */
	int seat;           /* -1 before start_game */
	uint64_t seed, game, ndec;
	int games;
	int meta;           /* --meta */
} bot;

static int die_line(bot *b, unsigned long line, const char *msg)
{
	hy_cli_say(&b->cli, "line %lu: %s", line, msg);
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
				return die_line(b, line, msg);
			}
			b->seat = id;
			b->game = (uint64_t)b->games++;
			b->ndec = 0;
			hy_game_clear(&b->log);
			hy_seatview_init(&b->v, id);
		} else if (b->seat < 0) {
			snprintf(msg, sizeof msg, "event %zu (%s) before start_game", i + 1, tn);
			return die_line(b, line, msg);
		}
		hy_diag d;
		hy_diag_init(&d, NULL);
		hy_status s = hy_mjaibot_view_event(&b->log, ev, b->seat, &d);
		if (s == HY_OK)
			s = hy_seatview_event(&b->v, &b->log.ev[b->log.n - 1], &d);
		if (s != HY_OK) {
			snprintf(msg, sizeof msg, "event %zu (%s): %s", i + 1, tn, d.msg);
			return die_line(b, line, msg);
		}
	}
	return 0;
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
		double t0 = hy_cli_now();
		hy_status s = hy_policy_decide_one(&b->pol, &q, &c, m.prob, &d);
		m.eval_ns = (uint64_t)((hy_cli_now() - t0) * 1e9);
		if (s == HY_OK && hy_engine_action_of(&b->v.e, b->seat, c.index, &a) != HY_OK)
			s = hy_diag_set(&d, HY_EUSAGE, 0, "policy chose index %d, not legal",
					c.index);
		if (s != HY_OK) {
			snprintf(msg, sizeof msg, "policy '%s': %s", b->pol.name, d.msg);
			die_line(b, line, msg);
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
		die_line(b, line, "answer does not fit");
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
			rc = die_line(b, line, msg);
			break;
		}
		if (s != HY_OK) {
			hy_cli_say(&b->cli, "standard input: %s", d.msg);
			rc = 1;
			break;
		}
		hy_game_clear(&b->batch);
		if (hy_mjaibot_parse_batch(&b->batch, text, len, (uint32_t)line, &d) != HY_OK) {
			rc = die_line(b, line, d.msg);
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
			hy_cli_say(&b->cli, "standard output: write error: %s", strerror(errno));
			rc = 1;
			break;
		}
	}
	free(text);
	return rc;
}

int main(int argc, char **argv)
{
	hy_cli cli;
	hy_cli_init(&cli, "hydra-bot");
	hy_policy_opts po;
	hy_policy_opts_default(&po);
	po.temperature = 0.0f;
	po.threads = hy_cli_threads_default();
	po.device = "auto";
	uint64_t seed = 0;
	int meta = 0;
	const hy_opt table[] = { /* cli/opts.h */
		{.type = HY_OPT_TEXT, .help = "usage: hydra-bot [options] [CKPT.h5 | baseline | rulebot | random]\n"
			 "Plays one seat as an mjai bot: reads lines of JSON arrays of mjai events\n"
			 "(the events since its last answer, as its seat sees them; start_game\n"
			 "carries the seat as \"id\") on standard input and answers each line with\n"
			 "one JSON action line on standard output ({\"type\":\"none\"} when the seat\n"
			 "has no decision), flushed at once. With no policy named it plays the\n"
			 "shipped one: models/policy.h5 of the checkout, or\n"
			 "PREFIX/share/hydra/models/policy.h5 of an installation (HYDRA_MODELS=DIR:\n"
			 "DIR/policy.h5), and says so once on stderr (-q: not).\n"},
		{.name = "temperature", .key = 'T', .type = HY_OPT_FLOAT, .dest = &po.temperature,
		 .lo = 0, .hi = 1e6, .range = "a number >= 0",
		 .arg = "X", .help = "sample a checkpoint's policy at temperature X\n"
			 "(default 0: the most probable action)"},
		{.name = "seed", .key = 'S', .type = HY_OPT_CALL, .dest = &seed, .call = hy_cli_row_seed,
		 .arg = "S", .help = "seed of the sampling (decimal or 0x hex; default 0)"},
		{.name = "threads", .key = 'j', .type = HY_OPT_CALL, .dest = &po.threads, .call = hy_cli_row_threads,
		 .arg = "N", .help = "CPU threads of a checkpoint (default: the CPUs this\n"
			 "process may use)"},
		{.name = "cpu-path", .type = HY_OPT_CALL, .call = hy_cli_row_cpu_path,
			 .arg = "P", .help = HY_CLI_CPU_PATH_HELP},
		{.name = "device", .type = HY_OPT_CALL, .dest = &po.device, .call = hy_cli_row_device,
		 .arg = "DEV", .help = "a checkpoint's device: auto (the default: the GPU\n"
			 "when one is usable, else the CPU), cpu, cuda or\n"
			 "cuda:N"},
		{.name = "meta", .type = HY_OPT_FLAG, .dest = &meta,
		 .help = "add \"meta\" to every answer to a decision: the legal\n"
			 "actions' probabilities, the value, the time taken,\n"
			 "in the layout of Mortal's bot (q_values, mask_bits,\n"
			 "is_greedy, batch_size, eval_time_ns, shanten) with\n"
			 "probs and value"},
		HY_OPT_DOC_COMMON("no notices (errors still go to stderr)",
				  "say the device and the threads"),
		{.type = HY_OPT_TEXT, .help = "\n"
			 "Exit status: 0 at the end of the input, 1 malformed input, a line over\n"
			 "1 MiB or an event that cannot happen in the seat's game, 2 usage, 3 format\n"
			 "or version mismatch (a checkpoint), 4 requested device unavailable."},
		{.type = HY_OPT_END},
	};
	int first, prc = hy_cli_parse_opts(&cli, table, 23, argc, argv, &first);
	if (prc >= 0)
		return prc;
	optind = first;
	if (argc - optind > 1)
		return hy_cli_usage(&cli, "expected one policy (CKPT.h5, baseline, rulebot or random)");
	char shipped[4096];
	const char *spec = argc > optind ? argv[optind] : NULL;
	if ((prc = hy_cli_model_default(&cli, &spec, HY_MODEL_POLICY, "policy",
		"give CKPT.h5, baseline, rulebot or random", shipped, sizeof shipped)))
		return prc;
	if (strncmp(spec, "mjai:", 5) == 0)
		return hy_cli_usage(&cli, "policy '%s': an external bot cannot be served again", spec);
	hy_nn_device dev; /* resolved once, handed down */
	int rc = hy_cli_device_resolve(&cli, po.device, po.threads, &dev);
	po.dev = &dev;
	if (rc)
		return rc;
	hy_cli_stdin(&cli, NULL, 0, 0, "mjai events");
	signal(SIGPIPE, SIG_DFL);
	bot *b = calloc(1, sizeof *b);
	if (!b) {
		hy_cli_say(&cli, "out of memory");
		return 1;
	}
	b->cli = cli;
	b->seat = -1;
	b->seed = seed;
	b->meta = meta;
	hy_game_init(&b->batch);
	hy_game_init(&b->log);
	hy_diag d;
	hy_diag_init(&d, spec);
	hy_status s = hy_policy_open(&b->pol, spec, &po, &d);
	if (s != HY_OK) {
		hy_cli_diag(&b->cli, &d);
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
