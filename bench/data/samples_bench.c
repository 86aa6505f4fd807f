/* Sample stream and HDF5 shard throughput, and compressed shard size, on
 * synthetic samples with realistic sparse observations (ARCHITECTURE.md §5: mostly
 * 0/1 halves, fill planes, river recencies; kyoku that progress so that
 * neighbouring samples look alike, as hydra-encode's output does). One line
 * per measurement on stdout:
 *
 *   samples_bench [samples [dir]]     (default 100000 samples, $TMPDIR)      */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "samples/reader.h"
#include "samples/shard.h"
#include "samples/stream.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int die(const char *what, hy_status s, const hy_diag *d)
{
	char line[1200] = "";
	if (d && d->msg[0])
		hy_diag_format(d, line, sizeof line);
	fprintf(stderr, "samples_bench: %s: %s%s%s\n", what, hy_status_str(s),
		line[0] ? ": " : "", line);
	return 1;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717u) >> 33) % n;
}

/* float (0 ≤ f < 65504) → IEEE half bits, round to nearest even */
static uint16_t f2h(float f)
{
	if (f == 0.0f)
		return 0;
	int e;
	float m = frexpf(f, &e); /* f = m·2^e, 0.5 ≤ m < 1 */
	int he = e - 1 + 15;
	if (he <= 0) /* subnormal */
		return (uint16_t)lrintf(f * 16777216.0f);
	uint32_t mant = (uint32_t)lrintf((m * 2.0f - 1.0f) * 1024.0f);
	if (mant == 1024) {
		mant = 0;
		he++;
	}
	return (uint16_t)(he << 10 | mant);
}

typedef struct kyoku {
	int river[4][24], nriver[4], tedashi[4][24];
	int hand[4][14];
	int score[4], riichi[4], melds[4];
	int dora, wall, gk, honba;
	uint64_t game;
} kyoku;

static void new_kyoku(kyoku *k, uint64_t game, int gk)
{
	memset(k, 0, sizeof *k);
	k->game = game;
	k->gk = gk;
	k->honba = (int)rnd(3);
	k->dora = (int)rnd(34);
	k->wall = 70;
	for (int p = 0; p < 4; p++) {
		k->score[p] = 15000 + (int)rnd(200) * 100;
		for (int i = 0; i < 14; i++)
			k->hand[p][i] = (int)rnd(34);
	}
}

static void set(hy_sample *s, int c, int t, float v)
{
	s->obs[c * 34 + t] = f2h(v);
}

static void fill(hy_sample *s, int c, float v)
{
	uint16_t h = f2h(v);
	for (int t = 0; t < 34; t++)
		s->obs[c * 34 + t] = h;
}

/* The next decision of kyoku k, observed by seat `me`. */
static void observe(kyoku *k, int me, int step, hy_sample *s)
{
	memset(s, 0, sizeof *s);
	int cnt[34] = {0};
	for (int i = 0; i < 14; i++)
		cnt[k->hand[me][i]]++;
	for (int t = 0; t < 34; t++)
		for (int c = 0; c < 4; c++)
			if (cnt[t] > c)
				set(s, c, t, 1);
	set(s, 8, k->hand[me][13], 1);
	for (int i = 0; i < 4; i++) {
		set(s, 9, k->hand[me][rnd(14)], 1);
		set(s, 10, (int)rnd(34), 1);
	}
	for (int q = 0; q < 4; q++) {
		int p = (me + q) % 4, n = k->nriver[p];
		for (int i = 0; i < n; i++) {
			int t = k->river[p][i];
			set(s, 11 + 3 * q, t, 1);
			if (k->tedashi[p][i])
				set(s, 12 + 3 * q, t, 1);
			set(s, 13 + 3 * q, t, expf(-0.2f * (float)(n - 1 - i)));
			if (q) {
				if (!s->obs[(62 + q - 1) * 34 + t]) /* first discard: earliness */
					set(s, 62 + q - 1, t, (float)(24 - (i < 23 ? i : 23)) / 24.0f);
				if (k->tedashi[p][i]) {
					set(s, 65 + q - 1, t, expf(-0.2f * (float)(n - 1 - i)));
					if (t < 27 && t % 9 > 0)
						set(s, 77 + q - 1, t - 1, 1);
					if (t < 27 && t % 9 < 8)
						set(s, 77 + q - 1, t + 1, 1);
				}
				if (t < 27) {
					int n9 = t % 9;
					if (n9 + 3 < 9)
						set(s, 71 + q - 1, t + 3, n9 + 3 >= 3 && n9 + 3 <= 5 ? 0.5f : 1);
					if (n9 - 3 >= 0)
						set(s, 71 + q - 1, t - 3, n9 - 3 >= 3 && n9 - 3 <= 5 ? 0.5f : 1);
				}
			}
		}
		if (k->melds[p])
			set(s, 24 + 3 * q, (p * 7 + 3) % 34, 1);
		if (k->riichi[p])
			fill(s, 43 + q, 1);
		fill(s, 47 + q, (float)k->score[p] / 100000.0f);
		if (q)
			fill(s, 82 + q - 1, (float)k->melds[p] / 4.0f);
	}
	set(s, 35, (k->dora + 1) % 34, 1);
	set(s, 39, k->dora, 1);
	if (cnt[4])
		fill(s, 40, 1);
	fill(s, 51 + (int)rnd(4), 1);
	fill(s, 55, (float)k->wall / 70.0f);
	fill(s, 56, (float)k->gk / 8.0f);
	fill(s, 57, (float)k->honba / 10.0f);
	set(s, 59, 27 + k->gk / 4, 1);
	set(s, 60, 27 + me, 1);
	for (int i = 0; i < 2; i++)
		set(s, 80 + i, (int)rnd(34), 1);
	s->action = (uint8_t)k->hand[me][rnd(14)];
	s->mask = 0;
	for (int i = 0; i < 14; i++)
		s->mask |= UINT64_C(1) << k->hand[me][i];
	s->game = k->game;
	s->seat = (uint8_t)me;
	s->grand_kyoku = (uint8_t)k->gk;
	s->honba = (uint8_t)k->honba;
	s->step = (uint16_t)step;
	s->score = k->score[me];
	s->kyoku_delta = -1000;
	s->rank = (uint8_t)(me % 4);
	s->grp = (uint8_t)(k->game % 24);
}

/* Advances the kyoku: seat p draws and discards. */
static void advance(kyoku *k, int p)
{
	int i = (int)rnd(14);
	if (k->nriver[p] < 24) {
		k->river[p][k->nriver[p]] = k->hand[p][i];
		k->tedashi[p][k->nriver[p]++] = i != 13;
	}
	k->hand[p][i] = k->hand[p][13];
	k->hand[p][13] = (int)rnd(34);
	k->wall--;
	if (!k->riichi[p] && k->nriver[p] > 8 && rnd(20) == 0)
		k->riichi[p] = 1;
	if (k->melds[p] < 4 && rnd(40) == 0)
		k->melds[p]++;
}

static void make_samples(hy_sample *s, size_t n)
{
	kyoku k;
	uint64_t game = 1;
	int gk = 0, step = 0;
	new_kyoku(&k, game, gk);
	for (size_t i = 0; i < n; i++) {
		int p = step % 4;
		observe(&k, p, step, &s[i]);
		advance(&k, p);
		step++;
		if (k.wall <= 0) {
			step = 0;
			if (++gk == 8) {
				gk = 0;
				game = game * 6364136223846793005u + 1442695040888963407u;
			}
			new_kyoku(&k, game, gk);
		}
	}
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static double density(const hy_sample *s, size_t n)
{
	size_t nz = 0;
	for (size_t i = 0; i < n; i++)
		for (int j = 0; j < HY_OBS_SIZE; j++)
			nz += s[i].obs[j] != 0;
	return (double)nz / ((double)n * HY_OBS_SIZE);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	const char *dir = argc > 2 ? argv[2] : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	hy_sample *s = malloc(n * sizeof *s), *got = malloc(4096 * sizeof *got);
	if (!s || !got || n == 0)
		return 1;
	make_samples(s, n);
	printf("samples: %zu synthetic, %.1f%% of obs cells non-zero\n", n, 100 * density(s, n));
	char path[4096];
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st;

	/* stream write to a file, read back through the FILE reader */
	snprintf(path, sizeof path, "%s/samples_bench.%d.bin", dir, (int)getpid());
	FILE *f = fopen(path, "wb");
	hy_sms_writer *w;
	double t0 = now();
	if (!f || hy_sms_writer_open(&w, f) != HY_OK)
		return die("open stream", HY_EIO, NULL);
	for (size_t i = 0; i < n; i++)
		if ((st = hy_sms_write(w, &s[i], &d)))
			return die("write stream", st, &d);
	if ((st = hy_sms_writer_close(w, &d)) || fclose(f))
		return die("close stream", st, &d);
	double t1 = now();
	printf("stream write: %.0f samples/s (%.0f MB/s), %ld bytes/sample\n", (double)n / (t1 - t0),
	       (double)file_size(path) / (t1 - t0) / 1e6, file_size(path) / (long)n);
	hy_sample_reader *r;
	t0 = now();
	if ((st = hy_sample_reader_open(&r, path, &d)))
		return die("open stream", st, &d);
	size_t k, tot = 0;
	while ((st = hy_sample_read_batch(r, got, 256, &k, &d)) == HY_OK)
		tot += k;
	if (st != HY_STOP || tot != n)
		return die("read stream", st, &d);
	hy_sample_reader_close(r);
	t1 = now();
	printf("stream read: %.0f samples/s\n", (double)n / (t1 - t0));
	unlink(path);

	/* shards: deflate levels; sequential and random reads */
	static const int levels[] = {1, 4, 6, 1};
	static const uint32_t chunks[] = {128, 128, 128, 1024};
	for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
		snprintf(path, sizeof path, "%s/samples_bench.%d.h5", dir, (int)getpid());
		hy_shard_meta m = {.command_line = "samples_bench", .chunk = chunks[li],
					  .deflate = levels[li]};
		hy_shard_writer *hw;
		t0 = now();
		if ((st = hy_shard_writer_open(&hw, path, &m, &d)))
			return die("open shard", st, &d);
		for (size_t i = 0; i < n; i++)
			if ((st = hy_shard_write(hw, &s[i], &d)))
				return die("write shard", st, &d);
		if ((st = hy_shard_writer_close(hw, &d)))
			return die("close shard", st, &d);
		t1 = now();
		long sz = file_size(path);
		printf("shard deflate %d (chunk %u): write %.0f samples/s, %.0f bytes/sample\n",
		       levels[li], (unsigned)chunks[li], (double)n / (t1 - t0), (double)sz / (double)n);
		t0 = now();
		if ((st = hy_sample_reader_open(&r, path, &d)))
			return die("open shard", st, &d);
		tot = 0;
		while ((st = hy_sample_read_batch(r, got, 1024, &k, &d)) == HY_OK)
			tot += k;
		if (st != HY_STOP || tot != n)
			return die("read shard", st, &d);
		t1 = now();
		printf("shard deflate %d/%u: sequential read %.0f samples/s\n", levels[li],
		       (unsigned)chunks[li], (double)n / (t1 - t0));
		/* random single samples: one chunk decompression each (cache misses) */
		size_t nr = n < 300 ? n : 300;
		t0 = now();
		for (size_t i = 0; i < nr; i++)
			if ((st = hy_sample_read_at(r, rnd((uint32_t)n), 1, got, &d)))
				return die("random read", st, &d);
		t1 = now();
		printf("shard deflate %d/%u: random single-sample read %.0f samples/s\n",
		       levels[li], (unsigned)chunks[li], (double)nr / (t1 - t0));
		/* random 64-sample blocks (a shuffle buffer fed by random blocks) */
		t0 = now();
		for (size_t i = 0; i < nr / 64 + 1; i++) {
			uint64_t at = rnd((uint32_t)(n > 64 ? n - 64 : 1));
			if ((st = hy_sample_read_at(r, at, n < 64 ? n : 64, got, &d)))
				return die("block read", st, &d);
		}
		t1 = now();
		printf("shard deflate %d/%u: random 64-sample blocks %.0f samples/s\n", levels[li],
		       (unsigned)chunks[li], (double)((nr / 64 + 1) * 64) / (t1 - t0));
		hy_sample_reader_close(r);
		unlink(path);
	}
	free(s);
	free(got);
	return 0;
}
