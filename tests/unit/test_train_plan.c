/* The plan of a training run (train/plan.h) from a configuration and what
 * the files say, without a model, a device or a file: defaults on the CPU
 * and the GPU, totals from epochs, a resume that takes the checkpoint's
 * settings unless given (with the notices), the refusals (options that
 * exclude each other, another architecture or mode, nothing to do, epochs
 * of a stream, a minibatch over the batch), this rank's part of a batch
 * (streams, shards, PPO), and a PPO resume that keeps its stored
 * settings. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "train/plan.h"

static const char *const IN[] = {"a.h5"};

static hy_train_cfg cfg_new(void)
{
	hy_train_cfg c;
	memset(&c, 0, sizeof c);
	c.inputs = IN;
	c.ninputs = 1;
	c.out = "run";
	return c;
}

static hy_train_facts facts_new(uint64_t epoch_size)
{
	hy_train_facts f;
	memset(&f, 0, sizeof f);
	f.ranks = 1;
	f.default_threads = 6;
	f.epoch_size = epoch_size;
	return f;
}

/* A checkpoint at step 200 of 1000: batch 512, 3 threads, seed 7. */
static hy_train_facts facts_resume(void)
{
	hy_train_facts f = facts_new(0);
	f.resuming = 1;
	snprintf(f.ckpt, sizeof f.ckpt, "run/ckpt-00000200.h5");
	f.arch = (hy_nn_arch){6, 64, 0};
	f.ts = (hy_ckdir_state){.epoch = 1, .pos = 40, .batch = 512, .shuffle_buffer = 4096,
		.threads = 3, .best = 1.5, .log_every = 5, .save_every = 100, .eval_every = 50,
		.keep = 4, .mode = 0};
	hy_nn_optim_defaults(&f.meta.opt, 1000);
	f.meta.opt.lr = 3e-4f;
	f.meta.step = 200;
	f.meta.seed = 7;
	return f;
}

static int has_note(const hy_train_plan *p, const char *part)
{
	for (int i = 0; i < p->nnotes; i++)
		if (strstr(p->notes[i], part))
			return 1;
	return 0;
}

static void test_new_cpu(void **state)
{
	(void)state;
	hy_train_cfg c = cfg_new();
	c.batch = 100;
	hy_train_facts f = facts_new(1000);
	hy_train_plan p;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.arch.blocks, 6); /* small on the CPU, said once */
	assert_int_equal(p.arch.channels, 64);
	assert_int_equal(p.nnotes, 1);
	assert_true(has_note(&p, "architecture small"));
	assert_int_equal(p.threads, 6);
	assert_int_equal(p.batch, 100);
	assert_int_equal(p.part, 100);
	assert_int_equal(p.opt.total, 10); /* one epoch of 1000 */
	assert_int_equal(p.eval_every, 1);  /* about 20 a run */
	assert_int_equal(p.save_every, 1000);
	assert_int_equal(p.log_every, 10);
	assert_int_equal(p.keep, 3);
	assert_int_equal(p.step, 0);
	assert_int_equal(p.one_pass, 1);
	assert_int_equal(p.loader_threads, 0);
	assert_true(isinf(p.best));
	/* 2.5 epochs of 1000 at 256; 400 steps given */
	c.batch = 0;
	c.epochs = 2.5;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.batch, 256);
	assert_int_equal(p.opt.total, 10);
	c.steps = 400;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.opt.total, 400);
	assert_int_equal(p.opt.warmup, 20); /* 5% */
	assert_int_equal(p.eval_every, 20);
	assert_int_equal(p.one_pass, 0);
	/* a stream without --steps: open-ended, 500 warmup steps */
	hy_train_facts fs = facts_new(0);
	c.steps = 0;
	c.epochs = 0;
	assert_int_equal(hy_train_plan_make(&c, &fs, &p, &d), HY_OK);
	assert_int_equal(p.opt.total, 0);
	assert_int_equal(p.opt.warmup, 500);
	assert_int_equal(p.eval_every, 500);
	/* its epochs are unknown */
	c.epochs = 2;
	assert_int_equal(hy_train_plan_make(&c, &fs, &p, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "--epochs needs shard inputs"));
}

static void test_new_gpu(void **state)
{
	(void)state;
	hy_train_cfg c = cfg_new();
	c.cuda = 1;
	c.steps = 10;
	hy_train_facts f = facts_new(0);
	hy_train_plan p;
	hy_diag d;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.arch.blocks, 40);
	assert_int_equal(p.arch.channels, 256);
	assert_true(has_note(&p, "architecture full"));
	assert_int_equal(p.loader_threads, 2);
	/* an architecture given is no default: no notice */
	c.arch = (hy_nn_arch){2, 32, 0};
	c.loader_threads = 5;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.nnotes, 0);
	assert_int_equal(p.arch.channels, 32);
	assert_int_equal(p.loader_threads, 5);
	/* --init's architecture when none is given */
	hy_train_cfg ci = cfg_new();
	ci.steps = 10;
	ci.init = "bc.h5";
	f.init_arch = (hy_nn_arch){3, 96, 0};
	assert_int_equal(hy_train_plan_make(&ci, &f, &p, &d), HY_OK);
	assert_int_equal(p.arch.blocks, 3);
	assert_int_equal(p.nnotes, 0);
	/* an output directory that holds checkpoints needs --resume */
	f.out_has_ckpts = 1;
	assert_int_equal(hy_train_plan_make(&ci, &f, &p, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "already holds checkpoints"));
}

static void test_resume(void **state)
{
	(void)state;
	hy_train_cfg c = cfg_new();
	c.resume = "run";
	hy_train_facts f = facts_resume();
	hy_train_plan p;
	hy_diag d;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.nnotes, 0);
	assert_int_equal(p.arch.channels, 64);
	assert_int_equal(p.threads, 3);
	assert_int_equal(p.batch, 512);
	assert_int_equal(p.shuffle_buffer, 4096);
	assert_int_equal(p.seed, 7);
	assert_int_equal(p.step, 200);
	assert_int_equal(p.opt.total, 1000);
	assert_true(p.opt.lr == 3e-4f);
	assert_int_equal(p.keep, 4);
	assert_int_equal(p.save_every, 100);
	assert_int_equal(p.eval_every, 50);
	assert_int_equal(p.log_every, 5);
	assert_true(p.best == 1.5);
	assert_int_equal(p.one_pass, 0);
	/* given settings win, each with its notice */
	c.threads = 2;
	c.batch = 256;
	c.seed = 9;
	c.seed_set = 1;
	c.steps = 2000;
	c.lr = 1e-4f;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.nnotes, 4);
	assert_true(has_note(&p, "--threads 2 differs"));
	assert_true(has_note(&p, "--batch/--shuffle-buffer differ"));
	assert_true(has_note(&p, "--seed differs"));
	assert_true(has_note(&p, "--steps 2000 changes the planned total (1000"));
	assert_int_equal(p.threads, 2);
	assert_int_equal(p.batch, 256);
	assert_int_equal(p.seed, 9);
	assert_int_equal(p.opt.total, 2000);
	assert_true(p.opt.lr == 1e-4f);
	/* nothing left to do */
	c.steps = 150;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "nothing to do"));
	/* another architecture, another mode */
	c.steps = 0;
	c.arch = (hy_nn_arch){40, 256, 0};
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_EFORMAT);
	assert_non_null(strstr(d.msg, "is 6 blocks x 64 channels"));
	c.arch = (hy_nn_arch){0, 0, 0};
	hy_train_ppo_cfg pc;
	hy_train_ppo_defaults(&pc);
	c.ppo = &pc;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "is of a --mode bc run"));
}

static void test_usage(void **state)
{
	(void)state;
	hy_train_cfg c = cfg_new();
	hy_diag d;
	c.resume = "run";
	c.init = "bc.h5";
	assert_int_equal(hy_train_plan_usage(&c, 1, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "exclude each other"));
	c = cfg_new();
	assert_int_equal(hy_train_plan_usage(&c, 2, &d), HY_OK);
	c.ninputs = 0; /* standard input under mpirun */
	assert_int_equal(hy_train_plan_usage(&c, 2, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "under mpirun with 2 ranks"));
	c = cfg_new();
	hy_train_ppo_cfg pc;
	hy_train_ppo_defaults(&pc);
	c.ppo = &pc;
	assert_int_equal(hy_train_plan_usage(&c, 1, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "--mode ppo improves a trained model"));
}

/* This process's part of a batch: the workspace and the device plan. */
static void test_parts(void **state)
{
	(void)state;
	hy_train_cfg c = cfg_new();
	c.batch = 1000;
	c.steps = 10;
	hy_train_facts f = facts_new(0);
	hy_train_plan p;
	hy_diag d;
	f.ranks = 4;
	f.rank = 3;
	f.streams = 1; /* a rank's block of the positions */
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.batch, 1000);
	assert_int_equal(p.part, 250);
	c.batch = 1001;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.part, 251);
	f.streams = 0; /* shards: a part is bounded by the batch only */
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.part, 1001);
	/* PPO: a minibatch, a quarter of the rollout batch by default; its
	 * epochs' total counts every pass */
	hy_train_cfg cp = cfg_new();
	hy_train_ppo_cfg pc;
	hy_train_ppo_defaults(&pc);
	cp.ppo = &pc;
	cp.init = "bc.h5";
	cp.arch = (hy_nn_arch){2, 32, 0};
	cp.batch = 1000;
	hy_train_facts f1 = facts_new(4000);
	assert_int_equal(hy_train_plan_make(&cp, &f1, &p, &d), HY_OK);
	assert_int_equal(p.ppo_minibatch, 250);
	assert_int_equal(p.part, 250);
	assert_int_equal(p.ppo_steps, 3 * 4);
	assert_int_equal(p.opt.total, 4 * 3 * 4); /* 4 rollout batches */
	assert_int_equal(p.loader_threads, 0);
	/* PPO on stream files: the schedule over the steps their size allows
	 * (3,001 samples at most: 4 rollout batches), still one pass; a pipe
	 * (no bound): open-ended, the warm-up over the first rollout batch */
	hy_train_facts f2 = facts_new(0);
	f2.stream_bound = 3001;
	assert_int_equal(hy_train_plan_make(&cp, &f2, &p, &d), HY_OK);
	assert_int_equal(p.opt.total, 4 * 3 * 4);
	assert_true(p.one_pass);
	f2.stream_bound = 0;
	assert_int_equal(hy_train_plan_make(&cp, &f2, &p, &d), HY_OK);
	assert_int_equal(p.opt.total, 0);
	assert_int_equal(p.opt.warmup, 3 * 4);
	pc.minibatch = 2000;
	assert_int_equal(hy_train_plan_make(&cp, &f1, &p, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "--minibatch 2000 is larger than the batch (1000)"));
}

/* A resumed PPO run keeps its stored settings but for those given; the
 * stored anchor's path lives in the plan. */
static void test_ppo_resume(void **state)
{
	(void)state;
	hy_train_cfg c = cfg_new();
	c.resume = "run";
	hy_train_ppo_cfg given;
	hy_train_ppo_defaults(&given);
	given.loss.clip = 0.3f;
	c.ppo = &given;
	c.ppo_given = HY_PPO_GIVEN_CLIP;
	hy_train_facts f = facts_resume();
	f.ts.mode = 1;
	f.ppo_stored = 1;
	hy_train_ppo_defaults(&f.ppo);
	f.ppo.epochs = 2;
	f.ppo.minibatch = 128;
	f.ppo.loss.clip = 0.1f;
	snprintf(f.ppo_anchor, sizeof f.ppo_anchor, "bc/model.h5");
	f.ppo.anchor = f.ppo_anchor;
	hy_train_plan p;
	hy_diag d;
	assert_int_equal(hy_train_plan_make(&c, &f, &p, &d), HY_OK);
	assert_int_equal(p.ppo.epochs, 2);
	assert_int_equal(p.ppo_minibatch, 128);
	assert_int_equal(p.part, 128);
	assert_true(p.ppo.loss.clip == 0.3f);
	assert_non_null(p.ppo.anchor);
	assert_string_equal(p.ppo.anchor, "bc/model.h5");
	assert_ptr_equal(p.ppo.anchor, p.ppo_anchor);
	assert_int_equal(p.ppo_steps, 2 * 4); /* 512 in minibatches of 128 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_cpu),
		cmocka_unit_test(test_new_gpu),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_ppo_resume),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
