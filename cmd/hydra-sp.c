/* hydra-sp: self-play (ARCHITECTURE.md §9). Plays full hanchan on seeded walls with
 * policies at the seats, writes one gzip'd mjai log per game and a sample
 * stream for PPO. Option parsing and wiring only: the runner and the
 * policies are lib/play. */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/num.h"
#include "core/status.h"
#include "mpi/mpi.h"
#include "mpi/ordered.h"
#include "io/cleanup.h"
#include "io/output.h"
#include "io/staged.h"
#include "nn/threads.h"
#include "play/gamelog.h"
#include "play/league.h"
#include "play/policy.h"
#include "play/reward.h"
#include "play/runner.h"
#include "samples/stream.h"


enum { MAXPOL = 8 };

typedef struct sp {
	hy_cli *cli;
	/* seats */
	int mode;               /* 0 all, 1 seat0/others, 2 rotate, 3 league */
	int nrot, rot[4];       /* rotate: policy index of each list entry */
	hy_league league;       /* league: the seating (play/league.h) */
	/* outputs */
	const char *log_dir;
	int samples;
	int learner;            /* write only the decisions of policy 0 */
	int keep_going;         /* skip aborted games instead of stopping */
	int stopped;            /* the run stopped at an aborted game */
	hy_output out;
	int out_open;
	hy_sms_writer *w;
	hy_gamelog_buf jbuf;    /* a game's JSON lines */
	/* progress */
	uint64_t total, played, aborted, nsamples;
	/* ranks (mpirun): rank r of N plays games r, r + N, r + 2N, ... of
	 * the run; every rank keeps its samples game by game, and after the
	 * games rank 0 writes them in game order */
	hy_mpi ds;
	hy_mpi_ordered kept;   /* this rank's samples by game (mpi/ordered.h) */
} sp;

static int seat_policy(void *ctx, uint64_t game, int seat)
{
	const sp *s = ctx;
	if (s->mode == 1)
		return seat == 0 ? 0 : 1;
	if (s->mode == 3)
		return hy_league_seat(&s->league, game, seat);
	if (s->mode == 2) {
		uint64_t n = (uint64_t)s->nrot;
		return s->rot[((uint64_t)seat + game % n) % n];
	}
	return 0;
}

/* DIR/game-NNNNNNNN.json.gz (play/gamelog.h: gzip'd, staged). */
static hy_status write_log(sp *s, const hy_play_game *g, hy_diag *d)
{
	char path[4096];
	int n = snprintf(path, sizeof path, "%s/game-%08" PRIu64 ".json.gz", s->log_dir, g->game);
	if (n < 0 || (size_t)n >= sizeof path)
		return hy_diag_set(d, HY_EUSAGE, 0, "log directory name too long");
	return hy_gamelog_write(path, g->log, &s->jbuf, d);
}

/* The progress line (rank 0 draws it); final: the counts after it, on a
 * terminal or with -v. */
static void progress(sp *s, int final)
{
	hy_cli_progress_count(s->cli, "games", s->played, s->total, final);
	if (!final)
		return;
	hy_cli_progress_end(s->cli);
	if (s->ds.rank == 0 && ((s->cli->tty && !hy_cli_quiet(s->cli)) || hy_cli_verbose(s->cli)))
		hy_cli_say(s->cli, "%" PRIu64 " games (%" PRIu64 " aborted), %" PRIu64
			" samples in %.1f s", s->played, s->aborted, s->nsamples,
			hy_cli_now() - s->cli->t0);
}

/* Rank 0's writer of a game's samples, in game order (mpi/ordered.h). */
static hy_status write_game(void *u, uint64_t game, const void *items, size_t n, hy_diag *d)
{
	(void)game;
	sp *s = u;
	const hy_sample *x = items;
	hy_diag_init(d, s->out.st.path ? s->out.st.path : "(stdout)");
	hy_status st = HY_OK;
	for (size_t j = 0; s->w && j < n && st == HY_OK; j++)
		st = hy_sms_write(s->w, &x[j], d);
	return st;
}

/* After every rank's games: the counts summed on every rank, and the
 * samples written by rank 0 in game order. */
static hy_status gather(sp *s, uint64_t count, hy_diag *d)
{
	double c[3] = {(double)s->played, (double)s->aborted, (double)s->nsamples};
	hy_status st = hy_mpi_sum_f64(&s->ds, c, 3, d);
	if (st != HY_OK)
		return st;
	s->played = (uint64_t)c[0];
	s->aborted = (uint64_t)c[1];
	s->nsamples = (uint64_t)c[2];
	if (!s->samples)
		return HY_OK;
	return hy_mpi_ordered_gather(&s->kept, &s->ds, count, write_game, s, d);
}

static hy_status on_game(void *ctx, const hy_play_game *g, hy_diag *d)
{
	sp *s = ctx;
	s->played++;
	hy_status st;
	if (g->aborted) {
		s->aborted++;
		char buf[1400];
		if (!s->keep_going) { /* the run fails: main reports it, the stream is aborted */
			s->stopped = 1;
			hy_diag_init(d, NULL);
			return hy_diag_set(d, HY_EDATA, 0, "game %" PRIu64 " (index %" PRIu64
				") aborted: %s", g->game + 1, g->game,
				hy_diag_format(&g->d, buf, sizeof buf));
		}
		hy_cli_say(s->cli, "game %" PRIu64 " (index %" PRIu64 ") aborted: %s", g->game + 1,
			g->game, hy_diag_format(&g->d, buf, sizeof buf));
		progress(s, 0);
		/* no samples, but a place in the game order */
		return s->samples && s->ds.size > 1 ? hy_mpi_ordered_end_game(&s->kept, s->ds.rank, d)
						    : HY_OK;
	}
	if (s->log_dir && (st = write_log(s, g, d)) != HY_OK)
		return st;
	if (s->ds.size > 1) {
		if (s->samples) {
			for (size_t i = 0; i < g->nsteps; i++) {
				if (s->learner && g->steps[i].policy != 0)
					continue;
				if ((st = hy_mpi_ordered_add(&s->kept, &g->steps[i].s, s->ds.rank,
					     d)) != HY_OK)
					return st;
				s->nsamples++;
			}
			if ((st = hy_mpi_ordered_end_game(&s->kept, s->ds.rank, d)) != HY_OK)
				return st;
		}
	} else if (s->w) {
		hy_diag_init(d, s->out.st.path ? s->out.st.path : "(stdout)");
		for (size_t i = 0; i < g->nsteps; i++) {
			if (s->learner && g->steps[i].policy != 0)
				continue;
			if ((st = hy_sms_write(s->w, &g->steps[i].s, d)) != HY_OK)
				return st;
			s->nsamples++;
		}
	}
	progress(s, 0);
	return HY_OK;
}

/* Splits a comma-separated list (at most max entries) in place. */
static int split_list(char *s, char *item[], int max)
{
	int n = 0;
	for (char *p = s;;) {
		if (n == max)
			return -1;
		item[n++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = 0;
		p = c + 1;
	}
	for (int i = 0; i < n; i++)
		if (!*item[i])
			return -1;
	return n;
}

/* The rows of hydra-sp's table (cli/opts.h) that check more than a range. */
static int opt_reward(hy_cli *cli, const char *arg, void *dest);

/* The options, where sp_table writes them (the run's own settings go to S,
 * the run's state). */
static sp S;
static struct sp_args {
	hy_play_opts po;
	hy_policy_opts pol_o;
	hy_nn_device dev; /* --device, resolved once (cli/options.h) */
	const char *policy, *seat0, *others, *outpath, *start, *mix, *label_by;
	const char *grp_path, *reward_state;
	int reward_kyoku; /* --reward kyoku (play/reward.h hy_reward_score) */
	char *pool, *rotate;
	int have_games;
} A;

/* --reward's row: placement, kyoku or grp:PATH into A (the last one wins) */
static int opt_reward(hy_cli *cli, const char *arg, void *dest)
{
	struct sp_args *a = dest;
	a->grp_path = NULL;
	a->reward_kyoku = 0;
	if (strcmp(arg, "kyoku") == 0)
		a->reward_kyoku = 1;
	else if (strncmp(arg, "grp:", 4) == 0 && arg[4])
		a->grp_path = arg + 4;
	else if (strcmp(arg, "placement") != 0)
		return hy_cli_usage(cli, "bad --reward '%s': placement, kyoku or grp:PATH", arg);
	return 0;
}

static const hy_opt sp_table[] = {
	{.type = HY_OPT_TEXT, .help = "usage: hydra-sp --games N [options]\n"
		 "Self-play: plays N full hanchan on seeded walls with policies at the\n"
		 "seats and writes a sample stream for PPO (behaviour log-probability,\n"
		 "value, reward, GAE advantage and return) and, optionally, mjai logs.\n"
		 "A policy is random, baseline, rulebot, rulebot:PARAMS (other numbers, a\n"
		 "NAME=VALUE list or a file: hydra-tune(1)), search:GRP.h5[,K][,MODEL.h5]\n"
		 "(rulebot with a rollout lookahead, its deals guessed from a checkpoint's\n"
		 "heads when given), a checkpoint PATH.h5, or mjai:COMMAND.\n"},
	{.name = "games", .type = HY_OPT_U64, .dest = &A.po.count, .min = 1, .max = INT64_MAX,
	 .range = "a positive integer",
	 .seen = &A.have_games,
	 .arg = "N", .help = "hanchan to play (required)"},
	{.name = "first", .type = HY_OPT_U64, .dest = &A.po.first, .min = 0, .max = INT64_MAX,
	 .range = "0 or more",
	 .arg = "N", .help = "index of the first game (default 0)"},
	{.name = "tables", .key = 't', .type = HY_OPT_INT, .dest = &A.po.tables, .min = 1,
	 .max = 65536, .range = "1 to 65536",
	 .arg = "T", .help = "tables played at once (default 16)"},
	{.name = "threads", .key = 'j', .type = HY_OPT_CALL, .dest = &A.po.threads,
	 .call = hy_cli_row_threads,
	 .arg = "J", .help = "threads (default: the CPUs this process may use)"},
	{.name = "seed", .key = 'S', .type = HY_OPT_CALL, .dest = &A.po.seed,
	 .call = hy_cli_row_seed63,
	 .arg = "S", .help = "master seed of the walls, decimal or 0x hex,\n"
		 "below 2^63 (default 0)"},
	{.name = "policy", .type = HY_OPT_STR, .dest = &A.policy,
	 .arg = "P", .help = "policy at every seat (default baseline)"},
	{.name = "seat0", .type = HY_OPT_STR, .dest = &A.seat0,
	 .arg = "P", .help = "policy at seat 0 (with --others)"},
	{.name = "others", .type = HY_OPT_STR, .dest = &A.others,
	 .arg = "Q", .help = "policy at seats 1-3 (with --seat0)"},
	{.name = "rotate", .type = HY_OPT_STR, .dest = &A.rotate,
	 .arg = "P,Q,...", .help = "seat s of game g plays policy (s + g) mod count"},
	{.name = "temperature", .key = 'T', .type = HY_OPT_FLOAT, .dest = &A.pol_o.temperature,
	 .lo = 0, .hi = 1e6, .range = "a number >= 0",
	 .arg = "X", .help = "model sampling temperature, 0 = greedy\n"
		 "(default 1)"},
	{.name = "cpu-path", .type = HY_OPT_CALL, .call = hy_cli_row_cpu_path,
	 .arg = "P", .help = HY_CLI_CPU_PATH_HELP},
	{.name = "device", .type = HY_OPT_CALL, .dest = &A.pol_o.device,
	 .call = hy_cli_row_device,
	 .arg = "D", .help = "model device: auto (the default: the GPU when one\n"
		 "is usable, else the CPU), cpu, cuda or cuda:N"},
	{.name = "model-threads", .type = HY_OPT_INT, .dest = &A.pol_o.threads, .min = 1,
	 .max = HY_CLI_THREADS_MAX, .range = "1 to 1024",
	 .arg = "N", .help = "threads of a model's forward pass (default 1;\n"
		 "its rounding, so the games, depend on N)"},
	{.name = "bot-timeout", .type = HY_OPT_DOUBLE, .dest = &A.pol_o.bot_timeout, .lo = 0,
	 .hi = 1e6, .open_lo = 1, .range = "seconds, more than 0",
	 .arg = "S", .help = "seconds an mjai bot may take per answer\n"
		 "(default 10)"},
	{.name = "gae-lambda", .type = HY_OPT_FLOAT, .dest = &A.po.gae_lambda, .lo = 0, .hi = 1,
	 .range = "0 to 1",
	 .arg = "L", .help = "GAE lambda (default 0.95)"},
	{.name = "gamma", .type = HY_OPT_FLOAT, .dest = &A.po.gamma, .lo = 0, .hi = 1,
	 .range = "0 to 1",
	 .arg = "G", .help = "discount (default 1)"},
	{.name = "reward", .type = HY_OPT_CALL, .dest = &A, .call = opt_reward,
	 .arg = "R", .help = "placement (the default: placement points on each\n"
		 "seat's last decision), kyoku (each kyoku's score\n"
		 "change / 10000 on the seat's last decision in it,\n"
		 "clipped to [-5, 5]) or grp:PATH (per-kyoku\n"
		 "rewards from a GRP of hydra-fit --mode grp,\n"
		 "normalised by a running std, clipped to [-5, 5])"},
	{.name = "reward-state", .type = HY_OPT_PATH, .dest = &A.reward_state,
	 .arg = "FILE", .help = "the running std of --reward grp: read at the\n"
		 "start (absent: a fresh one), written at the end"},
	{.name = "log-dir", .key = 'l', .type = HY_OPT_PATH, .dest = &S.log_dir,
	 .arg = "DIR", .help = "write DIR/game-NNNNNNNN.json.gz per game"},
	{.name = "output", .key = 'o', .type = HY_OPT_PATH, .dest = &A.outpath,
	 .arg = "PATH", .help = "write the samples to PATH instead of stdout"},
	{.name = "no-samples", .type = HY_OPT_SET, .dest = &S.samples, .min = 0,
	 .help = "write no sample stream (logs only)"},
	{.name = "pool", .type = HY_OPT_STR, .dest = &A.pool,
	 .arg = "P,Q,...", .help = "a league around the learner --policy: each game\n"
		 "seats the learner at seat game mod 4 and draws\n"
		 "the others from the learner, a checkpoint of\n"
		 "the pool (at most 6) and the frozen --start;\n"
		 "samples of the learner's seats only"},
	{.name = "start", .type = HY_OPT_PATH, .dest = &A.start,
	 .arg = "S", .help = "the league's frozen start (its BC model)"},
	{.name = "mix", .type = HY_OPT_STR, .dest = &A.mix,
	 .arg = "A,B,C", .help = "league weights of learner, pool and start\n"
		 "(default 0.5,0.3,0.2)"},
	{.name = "label-by", .type = HY_OPT_STR, .dest = &A.label_by,
	 .arg = "P", .help = "DAgger: each sample's action label is rule\n"
		 "policy P's choice in its state (rulebot or\n"
		 "search:GRP.h5[,K][,MODEL.h5]) while the seats\n"
		 "play on;\n"
		 "for behaviour cloning, not for PPO"},
	{.name = "label-adv", .type = HY_OPT_FLAG, .dest = &A.po.label_adv,
	 .help = "with --label-by qlabel:GRP.h5[,K]: each\n"
		 "sample's advantage is the rollout value of the\n"
		 "action taken less rulebot's choice's (steps\n"
		 "that took rulebot's choice are dropped), for\n"
		 "hydra-fit --mode ppo --no-adv-norm"},
	{.name = "hidden", .type = HY_OPT_FLAG, .dest = &A.po.hidden,
	 .help = "each sample also holds its decision's hidden\n"
		 "state (the opponents' hands, the wall: the\n"
		 "oracle planes of a teacher or a fading\n"
		 "student, hydra-fit --oracle); a stream of the\n"
		 "hidden-state extension (formats/samples.md)"},
	{.name = "oracle", .type = HY_OPT_FLAG, .dest = &A.po.allow_oracle,
	 .help = "let a policy that reads the hidden tiles\n"
		 "play a seat (rulebot-waits:..., a network of\n"
		 "hydra-fit --oracle): the games of a teacher"},
	{.name = "learner", .type = HY_OPT_FLAG, .dest = &S.learner,
	 .help = "samples of the first policy's decisions only\n"
		 "(--policy, --seat0 or the first of --rotate):\n"
		 "the learner's games against a pool, for PPO"},
	{.name = "keep-going", .key = 'k', .type = HY_OPT_FLAG, .dest = &S.keep_going,
	 .help = "skip a game whose policy fails (counted and\n"
		 "reported) instead of failing the run"},
	HY_OPT_DOC_COMMON("no progress line",
			  "say the device and the threads, and the counts\n"
			  "at the end"),
	{.type = HY_OPT_TEXT, .help = "\n"
		 "Exit status: 0 ok, 1 runtime error or an aborted game (with\n"
		 "--keep-going: every game aborted), 2 usage, 3 format, 4 device\n"
		 "unavailable."},
	{.type = HY_OPT_END},
};

/* The checks between options: 0, or 2 after a usage message. */
static int check_options(hy_cli *cli)
{
	if (!A.have_games)
		return hy_cli_usage(cli, "--games is required");
	if ((A.seat0 != NULL) != (A.others != NULL))
		return hy_cli_usage(cli, "--seat0 and --others go together");
	if ((A.policy != NULL) + (A.seat0 != NULL) + (A.rotate != NULL) > 1)
		return hy_cli_usage(cli, "use one of --policy, --seat0/--others, --rotate");
	if (!S.samples && A.outpath)
		return hy_cli_usage(cli, "--no-samples and --output exclude each other");
	/* --first + --games cannot overflow: each is below 2^63 (the table) */
	if (A.reward_state && !A.grp_path)
		return hy_cli_usage(cli, "--reward-state goes with --reward grp:PATH");
	if (A.grp_path && !S.samples)
		return hy_cli_usage(cli, "--reward grp:PATH rewards samples: not with --no-samples");
	if (A.reward_kyoku && !S.samples)
		return hy_cli_usage(cli, "--reward kyoku rewards samples: not with --no-samples");
	if (A.po.hidden && !S.samples)
		return hy_cli_usage(cli, "--hidden is a field of the samples: not with --no-samples");
	if (A.label_by && !S.samples)
		return hy_cli_usage(cli, "--label-by labels samples: not with --no-samples");
	if (A.po.label_adv && !A.label_by)
		return hy_cli_usage(cli, "--label-adv goes with --label-by qlabel:GRP.h5");
	if (A.po.label_adv && (A.grp_path || A.reward_kyoku))
		return hy_cli_usage(cli, "--label-adv sets the advantages: not with --reward");
	if ((A.pool || A.start || A.mix) && !A.policy)
		return hy_cli_usage(cli, "--pool, --start and --mix make a league around the learner "
				   "given by --policy");
	return 0;
}

/* The seating (S.mode, the league or the rotation) and the policy list:
 * distinct specs, each opened once. 0, or 2 after a usage message. */
static int seats(hy_cli *cli, const char *spec[MAXPOL], int *nspec)
{
	int ns = 0;
	if (A.pool || A.start || A.mix) {
		/* the league: 0 the learner, 1..n the pool, then the start */
		double w[3] = {0.5, 0.3, 0.2};
		hy_diag ld;
		hy_diag_init(&ld, NULL);
		if (A.mix && hy_league_parse_mix(A.mix, w, &ld) != HY_OK)
			return hy_cli_usage(cli, "%s", ld.msg);
		spec[ns++] = A.policy;
		char *item[MAXPOL];
		int n = 0;
		if (A.pool && (n = split_list(A.pool, item, MAXPOL - 2)) < 1)
			return hy_cli_usage(cli, "bad --pool '%s': 1 to 6 checkpoints, comma "
				"separated", A.pool);
		for (int i = 0; i < n; i++)
			spec[ns++] = item[i];
		if (A.start)
			spec[ns++] = A.start;
		if (hy_league_init(&S.league, A.po.seed, w, n, A.start != NULL, &ld) != HY_OK)
			return hy_cli_usage(cli, "%s", ld.msg);
		S.mode = 3;
		S.learner = 1; /* only the learner's seats give samples */
	} else if (A.seat0) {
		S.mode = 1;
		spec[ns++] = A.seat0;
		spec[ns++] = A.others;
	} else if (A.rotate) {
		char *item[4];
		int n = split_list(A.rotate, item, 4);
		if (n < 1)
			return hy_cli_usage(cli, "bad --rotate '%s': 1 to 4 policies, comma separated",
				A.rotate);
		S.mode = 2;
		S.nrot = n;
		for (int i = 0; i < n; i++) {
			int j = 0;
			while (j < ns && strcmp(spec[j], item[i]) != 0)
				j++;
			if (j == ns)
				spec[ns++] = item[i];
			S.rot[i] = j;
		}
	} else {
		spec[ns++] = A.policy ? A.policy : "baseline";
	}
	if (S.mode == 1 && strcmp(A.seat0, A.others) == 0)
		S.mode = 0, ns = 1;
	*nspec = ns;
	return 0;
}

/* The run's policies, its labeller and its GRP reward. */
typedef struct sp_pols {
	hy_policy pol[MAXPOL], lab;
	hy_policy *pp[MAXPOL];
	int npol;
	hy_reward_grp rg;
	int rg_found;       /* the reward state was there to read */
	hy_reward_score rs; /* --reward kyoku */
} sp_pols;

static void close_policies(sp_pols *P)
{
	for (int i = 0; i < P->npol; i++)
		hy_policy_close(&P->pol[i]);
	hy_policy_close(&P->lab);
	hy_reward_grp_close(&P->rg);
	hy_reward_score_close(&P->rs);
}

/* Opens the GRP reward (and its state), the labeller and the policies:
 * 0, or the exit status after saying why (every rank ended). */
static int open_policies(hy_cli *cli, sp_pols *P, const char *spec[], int nspec)
{
	memset(P, 0, sizeof *P);
	hy_diag d;
	hy_status st = HY_OK;
	if (A.grp_path) {
		hy_diag_init(&d, A.grp_path);
		st = hy_reward_grp_open(&P->rg, A.grp_path, &d);
		if (st == HY_OK && A.reward_state) {
			hy_diag_init(&d, A.reward_state);
			st = hy_reward_norm_load(A.reward_state, &P->rg.norm, &P->rg_found, &d);
		}
		if (st != HY_OK)
			hy_cli_say(cli, "--reward grp: %s", d.msg);
	}
	if (st == HY_OK && A.label_by) {
		hy_diag_init(&d, A.label_by);
		if ((st = hy_policy_open(&P->lab, A.label_by, &A.pol_o, &d)) != HY_OK)
			hy_cli_say(cli, "--label-by '%s': %s", A.label_by, d.msg);
		else
			A.po.label = &P->lab;
	}
	for (int i = 0; i < nspec && st == HY_OK; i++) {
		hy_diag_init(&d, spec[i]);
		if ((st = hy_policy_open(&P->pol[i], spec[i], &A.pol_o, &d)) != HY_OK)
			hy_cli_say(cli, "policy '%s': %s", spec[i], d.msg);
		else
			P->pp[P->npol++] = &P->pol[i];
	}
	if (st == HY_OK)
		return 0;
	close_policies(P);
	int rc = st == HY_EUNSUP ? 4 : hy_status_exit(st);
	hy_mpi_abort(&S.ds, rc);
	return rc;
}

/* Plays this rank's games (first + rank, then every size-th) and, under
 * mpirun, gathers the samples to rank 0 in game order. */
static hy_status play(hy_cli *cli, sp_pols *P, const char *outname, hy_diag *d)
{
	hy_status st = HY_OK;
	if (S.samples && S.ds.rank == 0) {
		hy_diag_init(d, outname);
		st = hy_output_open(&S.out, outname, d);
		if (st == HY_OK) {
			S.out_open = 1;
			if ((st = hy_sms_writer_open(&S.w, S.out.f)) != HY_OK ||
			    (A.po.hidden && (st = hy_sms_writer_set_hidden(S.w, 1)) != HY_OK))
				hy_diag_set(d, st, 0, "cannot start the sample stream");
		}
	}
	if (st == HY_OK && S.log_dir) {
		hy_diag_init(d, S.log_dir);
		st = hy_mkdirs(S.log_dir, d);
	}
	if (st != HY_OK)
		return st;
	hy_play_opts po = A.po;
	po.record_steps = S.samples;
	po.seat_policy = S.mode ? seat_policy : NULL;
	po.seat_ctx = &S;
	if (A.grp_path) {
		po.reward = hy_reward_grp_apply;
		po.reward_ctx = &P->rg;
	} else if (A.reward_kyoku) {
		po.reward = hy_reward_score_apply;
		po.reward_ctx = &P->rs;
	}
	S.total = po.count;
	hy_cli_progress_start(cli);
	hy_diag_init(d, NULL);
	const uint64_t count = po.count;
	po.first += (uint64_t)S.ds.rank;
	po.count = hy_mpi_stride_count(S.ds.rank, S.ds.size, count);
	po.stride = (uint64_t)S.ds.size;
	if (po.count)
		st = hy_play_run(&po, P->pp, P->npol, on_game, &S, d);
	if (st == HY_OK && S.ds.size > 1)
		st = gather(&S, count, d);
	return st;
}

/* Every output of the run appears together or none does: the reward state
 * is written (staged) before the samples' trailer, so a state that cannot
 * be written fails the run with its stream incomplete; the two files are
 * renamed into place together at the end. After a failure the stream
 * never gets its trailer: the next stage fails too. */
static hy_status finish(hy_cli *cli, sp_pols *P, const char *outname, hy_status st, hy_diag *d)
{
	hy_fileset outs = {0};
	if (st == HY_OK && A.grp_path && A.reward_state) {
		hy_diag_init(d, A.reward_state);
		if ((st = hy_reward_norm_save(A.reward_state, &P->rg.norm, &outs, d)) != HY_OK)
			hy_cli_diag(cli, d);
	}
	if (st == HY_OK && S.w) {
		hy_diag_init(d, outname ? outname : "(stdout)");
		hy_sms_writer *w = S.w;
		S.w = NULL;
		st = hy_sms_writer_close(w, d);
		if (st == HY_OK)
			st = hy_output_finish(&S.out, &outs, d);
		else
			hy_output_abort(&S.out);
		S.out_open = 0;
		if (st != HY_OK)
			hy_cli_diag(cli, d);
	}
	if (st == HY_OK) {
		hy_diag_init(d, NULL);
		if ((st = hy_fileset_commit(&outs, d)) != HY_OK)
			hy_cli_diag(cli, d);
	} else {
		hy_fileset_discard(&outs);
	}
	if (st != HY_OK) {
		if (S.w) {
			char why[1500], buf[1400];
			snprintf(why, sizeof why, "%s failed: %s", cli->prog,
				 hy_cli_diag_text(d, buf, sizeof buf));
			hy_sms_writer_abort(S.w, why);
		}
		if (S.out_open)
			hy_output_abort(&S.out);
	}
	return st;
}

/* The lines after a good run: the counts, the GRP rewards' scale, the
 * games --keep-going skipped. */
static void report(hy_cli *cli, const sp_pols *P)
{
	progress(&S, 1);
	if (A.grp_path)
		hy_cli_say(cli, "grp rewards: %" PRIu64 " games, running std %.6g over %" PRIu64
			" kyoku rewards%s%s%s", P->rg.games, hy_reward_norm_std(&P->rg.norm),
			P->rg.norm.count,
			A.reward_state ? (P->rg_found ? " (state '" : " (new state '") : "",
			A.reward_state ? A.reward_state : "", A.reward_state ? "')" : "");
	if (A.reward_kyoku)
		hy_cli_say(cli, "kyoku rewards: %" PRIu64 " games, score changes / %.0f",
			P->rs.games, HY_REWARD_SCORE_SCALE);
	if (S.aborted && S.ds.rank == 0)
		hy_cli_say(cli, "%" PRIu64 " of %" PRIu64 " games aborted and skipped "
			"(--keep-going)", S.aborted, S.played);
}

int main(int argc, char **argv)
{
	hy_nn_threads_init(argv); /* first: may start the program again (nn/threads.h) */
	hy_cli cli;
	hy_cli_init(&cli, "hydra-sp");
	S.cli = &cli;
	S.samples = 1;
	hy_mpi_ordered_init(&S.kept, sizeof(hy_sample));
	hy_play_opts_default(&A.po);
	A.po.tables = 16;
	A.po.threads = hy_cli_threads_default();
	hy_policy_opts_default(&A.pol_o);
	A.pol_o.device = "auto";
	A.pol_o.hidden = 1; /* self-play deals the hidden tiles (the runner gates oracles at seats) */
	int operands, rc = hy_cli_parse_opts(&cli, sp_table, 26, argc, argv, &operands);
	if (rc >= 0)
		return rc;
	if (operands < argc)
		return hy_cli_usage(&cli, "unexpected argument '%s'", argv[operands]);
	const char *spec[MAXPOL];
	int nspec = 0;
	if ((rc = check_options(&cli)) != 0 || (rc = seats(&cli, spec, &nspec)) != 0 ||
		(rc = hy_cli_device_resolve(&cli, A.pol_o.device, A.po.threads, &A.dev)) != 0)
		return rc;
	A.pol_o.dev = &A.dev;
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_mpi_init(&S.ds, &d) != HY_OK) {
		hy_cli_diag(&cli, &d);
		return 1;
	}
	if (S.ds.rank > 0) /* rank 0 draws the progress line */
		cli.tty = 0;
	const char *outname = A.outpath && strcmp(A.outpath, "-") != 0 ? A.outpath : NULL;
	if (S.samples && !outname && S.ds.rank == 0 &&
		hy_cli_stdout_binary(&cli, "a binary sample stream", "use -o FILE, a pipe, or "
			"--no-samples")) {
		hy_mpi_abort(&S.ds, 2);
		return 2;
	}
	if (A.grp_path && S.ds.size > 1) { /* the normalisation runs in game order */
		if (S.ds.rank == 0)
			hy_cli_say(&cli, "--reward grp runs in one process, not under mpirun "
				"(its running normalisation follows the game order)");
		hy_mpi_abort(&S.ds, 2);
		return 2;
	}
	signal(SIGPIPE, SIG_DFL);
	hy_cleanup_install();
	sp_pols P;
	if ((rc = open_policies(&cli, &P, spec, nspec)) != 0) {
		hy_mpi_free(&S.ds);
		return rc;
	}
	hy_status st = play(&cli, &P, outname, &d);
	/* --keep-going: a run in which every game aborted is an error too; every
	 * rank knows the summed counts, so none of them fails alone */
	int all_aborted = st == HY_OK && S.played && S.aborted == S.played;
	if (all_aborted) {
		hy_diag_init(&d, NULL);
		st = hy_diag_set(&d, HY_EDATA, 0, "all %" PRIu64 " games aborted: no samples",
			S.played);
	}
	if (st != HY_OK) {
		hy_cli_progress_end(&cli);
		if (!all_aborted || S.ds.rank == 0)
			hy_cli_diag(&cli, &d);
		if (S.stopped)
			fprintf(stderr, "hint: --keep-going skips the games whose policy fails "
				"(counted and reported)\n");
	}
	st = finish(&cli, &P, outname, st, &d);
	if (st == HY_OK)
		report(&cli, &P);
	if (st != HY_OK && S.ds.size > 1 && !all_aborted) { /* the others would wait for it */
		hy_cli_say(&cli, "rank %d of %d failed; ending all ranks", S.ds.rank, S.ds.size);
		hy_mpi_abort(&S.ds, st == HY_EUNSUP ? 4 : hy_status_exit(st));
	}
	close_policies(&P);
	hy_gamelog_free(&S.jbuf);
	hy_mpi_ordered_free(&S.kept);
	hy_mpi_free(&S.ds);
	return st == HY_EUNSUP ? 4 : hy_status_exit(st);
}
