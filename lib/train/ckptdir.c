/* A training run's output directory (ckptdir.h): paths, checkpoint files,
 * links, pruning, and the trainer's state attributes. */
#include "train/ckptdir.h"
#include "core/grow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nn/checkpoint.h"
#include "train/loop.h"

/* ---------------------------------------------------------------- files */

int hy_ckdir_join(char *dst, size_t size, const char *dir, const char *name)
{
	size_t len = strlen(dir);
	const char *sep = len && dir[len - 1] == '/' ? "" : "/";
	int n = snprintf(dst, size, "%s%s%s", dir, sep, name);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

hy_status hy_ckdir_fsync(const char *path, hy_diag *d)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fsync(fd) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return hy_diag_set(d, HY_EIO, 0, "cannot sync '%s': %s", path, strerror(e));
	}
	close(fd);
	return HY_OK;
}

hy_status hy_ckdir_mkdir_p(const char *dir, hy_diag *d)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
		return hy_diag_set(d, HY_EUSAGE, 0, "path too long: '%s'", dir);
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST)
				return hy_diag_set(d, HY_EIO, 0, "cannot create directory '%s': %s", p,
					strerror(errno));
			*s = c;
			if (!c)
				break;
		}
	}
	struct stat sb;
	if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return hy_diag_set(d, HY_EIO, 0, "'%s' is not a directory", dir);
	return HY_OK;
}

hy_status hy_ckdir_set_link(const char *dir, const char *name, const char *target, hy_diag *d)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32];
	if (hy_ckdir_join(path, sizeof path, dir, name) < 0)
		return hy_diag_set(d, HY_EUSAGE, 0, "path too long in '%s'", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	unlink(tmp);
	if (symlink(target, tmp) < 0 || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		return hy_diag_set(d, HY_EIO, 0, "cannot link '%s' to '%s': %s", path, target,
			strerror(e));
	}
	return HY_OK;
}

static long long ckpt_step(const char *name)
{
	long long s;
	int n = 0;
	if (sscanf(name, "ckpt-%lld.h5%n", &s, &n) == 1 && name[n] == '\0' && s >= 0 &&
		strlen(name) >= 16)
		return s;
	return -1;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

hy_status hy_ckdir_list(const char *dir, long long **out, size_t *n, hy_diag *d)
{
	*out = NULL;
	*n = 0;
	DIR *dp = opendir(dir);
	if (!dp)
		return hy_diag_set(d, HY_EIO, 0, "cannot read directory '%s': %s", dir,
			strerror(errno));
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(dp))) {
		long long s = ckpt_step(e->d_name);
		if (s < 0)
			continue;
		if (HY_GROW(*out, cap, *n + 1, 16)) {
			closedir(dp);
			free(*out);
			*out = NULL;
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		}
		(*out)[(*n)++] = s;
	}
	closedir(dp);
	if (*n)
		qsort(*out, *n, sizeof **out, cmp_ll);
	return HY_OK;
}

void hy_ckdir_remove_stale(const char *out, void (*removed)(void *u, const char *path),
	void *u)
{
	DIR *dp = opendir(out);
	if (!dp)
		return;
	struct dirent *e;
	while ((e = readdir(dp))) {
		const char *n = e->d_name;
		if (!strstr(n, ".tmp-") && !strstr(n, ".tmp."))
			continue;
		if (strncmp(n, "ckpt-", 5) && strncmp(n, "latest.", 7) && strncmp(n, "best.", 5) &&
		    strncmp(n, "metrics.jsonl.", 14))
			continue;
		char path[PATH_MAX];
		if (hy_ckdir_join(path, sizeof path, out, n) == 0 && unlink(path) == 0 && removed)
			removed(u, path);
	}
	closedir(dp);
}

hy_status hy_ckdir_prune(const char *out, int keep, hy_diag *d)
{
	long long *steps;
	size_t n;
	hy_status st = hy_ckdir_list(out, &steps, &n, d);
	if (st)
		return st;
	char path[PATH_MAX], best[PATH_MAX] = "";
	if (hy_ckdir_join(path, sizeof path, out, "best") == 0) {
		ssize_t k = readlink(path, best, sizeof best - 1);
		best[k > 0 ? k : 0] = '\0';
	}
	for (size_t i = 0; i + (size_t)keep < n; i++) {
		char name[64];
		snprintf(name, sizeof name, HY_CKDIR_FMT, steps[i]);
		if (strcmp(name, best) == 0)
			continue;
		if (hy_ckdir_join(path, sizeof path, out, name) == 0 && unlink(path) < 0 &&
			errno != ENOENT)
			st = hy_diag_set(d, HY_EIO, 0, "cannot remove '%s': %s", path, strerror(errno));
	}
	free(steps);
	return st;
}

/* ---------------------------------------------------------------- state attrs */

/* (every attribute through the one reader, nn/checkpoint.h) */
#define GET(r, name, type, v) (hy_nn_ckpt_get((r), (name), (type), (v)) == 1)

/* The trainer's attributes get the ranges of the options that set them
 * (cmd/hydra-fit.c), so a damaged or crafted checkpoint is refused (status
 * 3, naming the attribute) rather than trusted with a thread count or a
 * batch size. */
static hy_status check_state(const char *path, const hy_ckdir_state *s, hy_diag *d)
{
	const uint64_t big = UINT64_C(1) << 62;
	const char *bad = s->batch < 1 || s->batch > (1 << 20) ? "train_batch"
		: s->threads < 1 || s->threads > 1024 ? "train_threads"
		: s->shuffle_buffer < 1 || s->shuffle_buffer > (1u << 26) ? "train_shuffle_buffer"
		: s->log_every < 1 || s->log_every > INT64_MAX / 2 ? "train_log_every"
		: s->save_every < 0 || s->save_every > INT64_MAX / 2 ? "train_save_every"
		: s->eval_every < 0 || s->eval_every > INT64_MAX / 2 ? "train_eval_every"
		: s->keep < 0 || s->keep > 1000000 ? "train_keep"
		: s->epoch > big || s->pos > big || s->samples > big ? "train_epoch/pos/samples"
		: isnan(s->best) ? "train_best"
		: NULL;
	if (bad)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint attribute '%s' is out of "
			"range", path, bad);
	return HY_OK;
}

hy_status hy_ckdir_read_state(hy_nn_ckpt_reader *r, hy_ckdir_state *s, hy_diag *d)
{
	const char *path = hy_nn_ckpt_path(r);
	enum { I32 = HY_NN_ATTR_I32, I64 = HY_NN_ATTR_I64, U64 = HY_NN_ATTR_U64,
	       F64 = HY_NN_ATTR_F64 };
	hy_status st;
	if (!GET(r, "train_epoch", U64, &s->epoch) || !GET(r, "train_pos", U64, &s->pos) ||
		!GET(r, "train_samples", U64, &s->samples) ||
		!GET(r, "train_batch", I64, &s->batch) ||
		!GET(r, "train_shuffle_buffer", U64, &s->shuffle_buffer) ||
		!GET(r, "train_threads", I32, &s->threads) ||
		!GET(r, "train_best", F64, &s->best) ||
		!GET(r, "train_log_every", I64, &s->log_every) ||
		!GET(r, "train_save_every", I64, &s->save_every) ||
		!GET(r, "train_eval_every", I64, &s->eval_every) ||
		!GET(r, "train_keep", I64, &s->keep))
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': no trainer state (train_* "
			"attributes): not written by hydra-fit; use --init to load its weights",
			path);
	else
		st = check_state(path, s, d);
	if (!st && !GET(r, "train_mode", I32, &s->mode))
		s->mode = -1; /* optional: older checkpoints lack it */
	if (!st && (s->mode < -1 || s->mode > 2))
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint attribute 'train_mode' "
			"is out of range", path);
	return st;
}

hy_status hy_ckdir_read_str(hy_nn_ckpt_reader *r, const char *name, char *out, size_t size,
	int *found, hy_diag *d)
{
	int rc = hy_nn_ckpt_get_str(r, name, out, size);
	*found = rc != 0;
	if (rc < 0)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint attribute '%s' is not a "
			"string of at most %zu bytes", hy_nn_ckpt_path(r), name, size - 1);
	return HY_OK;
}

hy_status hy_ckdir_read_ppo(hy_nn_ckpt_reader *r, hy_train_ppo_cfg *c, char *anchor,
	size_t size, int *is_ppo, hy_diag *d)
{
	const char *path = hy_nn_ckpt_path(r);
	enum { I32 = HY_NN_ATTR_I32, I64 = HY_NN_ATTR_I64, F64 = HY_NN_ATTR_F64 };
	hy_status st = HY_OK;
	*is_ppo = 0;
	int32_t epochs = 0, minibatch = 0;
	double clip, vf, ent, ent_end, kl, acoef, afrac, p0, p1;
	int64_t warm;
	int has = hy_nn_ckpt_get(r, "ppo_epochs", I32, &epochs);
	if (has == 0)
		return HY_OK; /* a behaviour-cloning checkpoint */
	if (has < 0 || !GET(r, "ppo_minibatch", I32, &minibatch) ||
		!GET(r, "ppo_clip", F64, &clip) || !GET(r, "ppo_vf_coef", F64, &vf) ||
		!GET(r, "ppo_ent_coef", F64, &ent) || !GET(r, "ppo_ent_end", F64, &ent_end) ||
		!GET(r, "ppo_kl_stop", F64, &kl) || !GET(r, "ppo_value_warmup", I64, &warm) ||
		!GET(r, "ppo_anchor_coef", F64, &acoef) ||
		!GET(r, "ppo_anchor_frac", F64, &afrac) ||
		!GET(r, "ppo_progress0", F64, &p0) || !GET(r, "ppo_progress1", F64, &p1) ||
		hy_nn_ckpt_get_str(r, "ppo_anchor", anchor, size) != 1)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': incomplete PPO settings (ppo_* "
			"attributes)", path);
	/* the ranges of hydra-fit's options */
	const char *bad = epochs < 1 || epochs > 1000 ? "ppo_epochs"
		: minibatch < 0 || minibatch > (1 << 20) ? "ppo_minibatch"
		: !(clip > 0 && clip < 1) ? "ppo_clip"
		: !(vf >= 0 && vf <= 100) ? "ppo_vf_coef"
		: !(ent >= 0 && ent <= 100) ? "ppo_ent_coef"
		: !((ent_end >= 0 && ent_end <= 100) || ent_end == -1) ? "ppo_ent_end"
		: !(kl >= 0 && kl <= 100) ? "ppo_kl_stop"
		: warm < 0 ? "ppo_value_warmup"
		: !(acoef >= 0 && acoef <= 100) ? "ppo_anchor_coef"
		: !(afrac >= 0 && afrac <= 1) ? "ppo_anchor_frac"
		: !(p0 >= 0 && p0 <= p1 && p1 <= 1) ? "ppo_progress0/1"
		: NULL;
	if (bad)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint attribute '%s' is out of "
			"range", path, bad);
	hy_train_ppo_defaults(c);
	c->epochs = epochs;
	c->minibatch = minibatch;
	c->loss.clip = (float)clip;
	c->loss.vf_coef = (float)vf;
	c->loss.ent_coef = (float)ent;
	c->ent_end = (float)ent_end;
	c->kl_stop = (float)kl;
	c->value_warmup = warm;
	c->anchor = anchor[0] ? anchor : NULL;
	c->anchor_coef = (float)acoef;
	c->anchor_frac = (float)afrac;
	c->progress0 = (float)p0;
	c->progress1 = (float)p1;
	/* absent before --no-adv-norm existed: normalised */
	int32_t na = 1;
	if (hy_nn_ckpt_get(r, "ppo_norm_adv", I32, &na) < 0)
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': unreadable PPO attribute "
			"'ppo_norm_adv'", path);
	c->loss.norm_adv = na != 0;
	*is_ppo = st == HY_OK;
	return st;
}

hy_status hy_train_resolve_ckpt(const char *path, char *out, size_t size, hy_diag *d)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return hy_diag_set(d, HY_EIO, 0, "cannot open '%s': %s", path, strerror(errno));
	if (!S_ISDIR(sb.st_mode)) {
		if (snprintf(out, size, "%s", path) >= (int)size)
			return hy_diag_set(d, HY_EUSAGE, 0, "path too long: '%s'", path);
		return HY_OK;
	}
	char link[PATH_MAX], target[PATH_MAX];
	if (hy_ckdir_join(link, sizeof link, path, "latest") < 0)
		return hy_diag_set(d, HY_EUSAGE, 0, "path too long: '%s'", path);
	ssize_t k = readlink(link, target, sizeof target - 1);
	if (k < 0)
		return hy_diag_set(d, HY_EIO, 0, "cannot resume from '%s': no 'latest' checkpoint "
			"link (%s)", path, strerror(errno));
	target[k] = '\0';
	int n = target[0] == '/' ? snprintf(out, size, "%s", target)
				 : snprintf(out, size, "%s/%s", path, target);
	if (n < 0 || (size_t)n >= size)
		return hy_diag_set(d, HY_EUSAGE, 0, "path too long: '%s'", path);
	return HY_OK;
}
