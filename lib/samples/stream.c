/* The sample stream (formats/samples.md is the normative spec). */
#include "samples/stream.h"

#include "core/le.h"
#include "core/tile.h"
#include "io/frames.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ layout */

enum {
	REC_SAMPLE = 1,
	REC_TRAILER = HY_FRAME_REC_TRAILER,

	/* SAMPLE record offsets */
	SR_ACTION = 1,
	SR_SEAT = 2,
	SR_GRAND_KYOKU = 3,
	SR_HONBA = 4,
	SR_RANK = 5,
	SR_GRP = 6,
	SR_OPP_TENPAI = 7,
	SR_FLAGS = 8,
	SR_STEP = 10,
	SR_SCORE = 12,
	SR_KYOKU_DELTA = 16,
	SR_LOGP = 20,
	SR_VALUE = 24,
	SR_REWARD = 28,
	SR_ADV = 32,
	SR_RET = 36,
	SR_MASK = 40,
	SR_GAME = 48,
	SR_OPP_WAITS = 56,
	SR_OBS = 96,
	SR_OBS_END = SR_OBS + 2 * HY_OBS_SIZE, /* 5876 */
	SR_HIDDEN = HY_SMS_RECORD_SIZE, /* the extension's 128 bytes */

	/* header offsets (version, sizes: io/frames.h) */
	H_DTYPE = 16,
	H_OBS_VERSION = 17,
	H_CHANNELS = 18,
	H_TILES = 20,
	H_ACTIONS = 22,
	H_HIDDEN = 24, /* hidden-state version: 0 none, 1 (sample.h HY_HIDDEN_VERSION) */
};

#define TRAILER_MAGIC "HYSMEND" /* with its NUL: 8 bytes */

_Static_assert(sizeof HY_SMS_MAGIC - 1 == 8, "frame magic is 8 bytes");
_Static_assert(sizeof TRAILER_MAGIC == 8, "trailer magic is 8 bytes with its NUL");
_Static_assert(SR_OPP_WAITS + 24 <= SR_OBS, "fields fit before obs");
_Static_assert(SR_OBS_END == 5876 && SR_OBS_END <= HY_SMS_RECORD_SIZE, "obs fits a record");
_Static_assert(HY_SMS_RECORD_SIZE % 128 == 0, "records are a multiple of 128 bytes");
_Static_assert(sizeof(float) == 4, "IEEE binary32 floats");
_Static_assert(HY_SMS_RECORD_SIZE_HIDDEN == SR_HIDDEN + sizeof(hy_hidden) &&
		       HY_SMS_RECORD_SIZE_HIDDEN % 128 == 0,
	       "the hidden state extends a record by 128 bytes");

int hy_sms_is_stream(const void *data, size_t len)
{
	/* a non-empty prefix of the magic counts: a stream cut inside its first
	 * header is a truncated stream (status 1), not another format */
	return data && len > 0 && memcmp(data, HY_SMS_MAGIC, len < 8 ? len : 8) == 0;
}

uint64_t hy_sms_fd_bound(int fd)
{
	struct stat sb;
	uint8_t h[16]; /* magic, version, header size, record size */
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < HY_SMS_HEADER_SIZE ||
		pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h ||
		memcmp(h, HY_SMS_MAGIC, 8) != 0)
		return 0;
	/* the first frame's record size (the hidden-state extension's is
	 * larger); anything else: the smaller, still a bound */
	uint32_t rs = hy_get_u32le(h + 12);
	if (rs != HY_SMS_RECORD_SIZE_HIDDEN)
		rs = HY_SMS_RECORD_SIZE;
	return (uint64_t)sb.st_size / rs;
}

const char *hy_sample_check(const hy_sample *s)
{
	if (s->action >= HY_ACTIONS)
		return "action is over 45";
	if (s->mask >> HY_ACTIONS)
		return "mask has bits above 45";
	if (!(s->mask >> s->action & 1))
		return "action is not legal in the mask";
	if (s->seat > 3)
		return "seat is over 3";
	if (s->rank > 3)
		return "rank is over 3";
	if (s->grp >= HY_GRP_CLASSES)
		return "grp is over 23";
	if (s->opp_tenpai > 7)
		return "opp_tenpai has bits above 2";
	for (int o = 0; o < 3; o++)
		if (s->opp_waits[o] >> HY_OBS_TILES)
			return "opp_waits has bits above 33";
	if (s->flags & HY_SAMPLE_F_HIDDEN) {
		const uint8_t *t = (const uint8_t *)&s->hidden;
		for (size_t i = 0; i < sizeof s->hidden; i++) {
			int shanten = i >= sizeof s->hidden.hand && i < sizeof s->hidden.hand + 3;
			if (shanten ? t[i] > 8 : t[i] > HY_TILE_5SR && t[i] != HY_TILE_NONE)
				return shanten ? "hidden shanten is over 8"
					       : "hidden state has a tile code over 36";
		}
	}
	return NULL;
}

void hy_sms_encode(const hy_sample *s, uint8_t *p)
{
	memset(p, 0, HY_SMS_RECORD_SIZE);
	p[0] = REC_SAMPLE;
	p[SR_ACTION] = s->action;
	p[SR_SEAT] = s->seat;
	p[SR_GRAND_KYOKU] = s->grand_kyoku;
	p[SR_HONBA] = s->honba;
	p[SR_RANK] = s->rank;
	p[SR_GRP] = s->grp;
	p[SR_OPP_TENPAI] = s->opp_tenpai;
	p[SR_FLAGS] = s->flags & (uint8_t)~HY_SAMPLE_F_HIDDEN;
	hy_put_u16le(p + SR_STEP, s->step);
	hy_put_u32le(p + SR_SCORE, (uint32_t)s->score);
	hy_put_u32le(p + SR_KYOKU_DELTA, (uint32_t)s->kyoku_delta);
	hy_put_f32le(p + SR_LOGP, s->logp);
	hy_put_f32le(p + SR_VALUE, s->value);
	hy_put_f32le(p + SR_REWARD, s->reward);
	hy_put_f32le(p + SR_ADV, s->adv);
	hy_put_f32le(p + SR_RET, s->ret);
	hy_put_u64le(p + SR_MASK, s->mask);
	hy_put_u64le(p + SR_GAME, s->game);
	for (int o = 0; o < 3; o++)
		hy_put_u64le(p + SR_OPP_WAITS + 8 * o, s->opp_waits[o]);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p + SR_OBS, s->obs, 2 * HY_OBS_SIZE);
#else
	uint8_t *q = p + SR_OBS;
	for (int i = 0; i < HY_OBS_SIZE; i++, q += 2)
		hy_put_u16le(q, s->obs[i]);
#endif
}

void hy_sms_decode(const uint8_t *p, hy_sample *s)
{
	memset(s, 0, sizeof *s);
	s->action = p[SR_ACTION];
	s->seat = p[SR_SEAT];
	s->grand_kyoku = p[SR_GRAND_KYOKU];
	s->honba = p[SR_HONBA];
	s->rank = p[SR_RANK];
	s->grp = p[SR_GRP];
	s->opp_tenpai = p[SR_OPP_TENPAI];
	s->flags = p[SR_FLAGS] & (uint8_t)~HY_SAMPLE_F_HIDDEN;
	s->step = hy_get_u16le(p + SR_STEP);
	s->score = hy_get_i32le(p + SR_SCORE);
	s->kyoku_delta = hy_get_i32le(p + SR_KYOKU_DELTA);
	s->logp = hy_get_f32le(p + SR_LOGP);
	s->value = hy_get_f32le(p + SR_VALUE);
	s->reward = hy_get_f32le(p + SR_REWARD);
	s->adv = hy_get_f32le(p + SR_ADV);
	s->ret = hy_get_f32le(p + SR_RET);
	s->mask = hy_get_u64le(p + SR_MASK);
	s->game = hy_get_u64le(p + SR_GAME);
	for (int o = 0; o < 3; o++)
		s->opp_waits[o] = hy_get_u64le(p + SR_OPP_WAITS + 8 * o);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(s->obs, p + SR_OBS, 2 * HY_OBS_SIZE);
#else
	const uint8_t *q = p + SR_OBS;
	for (int i = 0; i < HY_OBS_SIZE; i++, q += 2)
		s->obs[i] = hy_get_u16le(q);
#endif
}

/* A record of the hidden-state extension: the plain record, its flag, and
 * the 128 bytes of hy_hidden (byte arrays: stored as they are). */
static void encode_hidden(const hy_sample *s, uint8_t *p)
{
	hy_sms_encode(s, p);
	p[SR_FLAGS] |= HY_SAMPLE_F_HIDDEN;
	memcpy(p + SR_HIDDEN, &s->hidden, sizeof s->hidden);
}

static void decode_hidden(const uint8_t *p, hy_sample *s)
{
	hy_sms_decode(p, s);
	s->flags |= HY_SAMPLE_F_HIDDEN;
	memcpy(&s->hidden, p + SR_HIDDEN, sizeof s->hidden);
}

/* The header fields after the common ones (formats/samples.md). */
static void put_header(uint8_t *p)
{
	p[H_DTYPE] = HY_SMS_DTYPE_F16;
	hy_put_u16le(p + H_CHANNELS, HY_OBS_CHANNELS);
	hy_put_u16le(p + H_TILES, HY_OBS_TILES);
	hy_put_u16le(p + H_ACTIONS, HY_ACTIONS);
}

static hy_status check_obs_version(hy_frame_reader *r, unsigned v, const char *where,
				   hy_diag *d);

static hy_status check_header(hy_frame_reader *r, const uint8_t *p, const char *where,
				hy_diag *d)
{
	uint64_t rec = r->records;
	if (p[H_DTYPE] != HY_SMS_DTYPE_F16)
		return hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX,
				      "sample stream obs dtype %u is not %d (IEEE half)%s", p[H_DTYPE],
				      HY_SMS_DTYPE_F16, where);
	unsigned ch = hy_get_u16le(p + H_CHANNELS), ti = hy_get_u16le(p + H_TILES),
		 ac = hy_get_u16le(p + H_ACTIONS);
	if (ch != HY_OBS_CHANNELS || ti != HY_OBS_TILES || ac != HY_ACTIONS)
		return hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX,
				      "sample stream shape is obs %ux%u, %u actions; this program "
				      "reads obs %dx%d, %d actions%s",
				      ch, ti, ac, HY_OBS_CHANNELS, HY_OBS_TILES, HY_ACTIONS, where);
	unsigned hv = p[H_HIDDEN];
	if (hv > HY_HIDDEN_VERSION)
		return hy_frame_rfail(r, d, HY_EVERSION, rec, UINT32_MAX,
				      "sample stream hidden-state version %u is newer than this "
				      "program supports (%d)%s", hv, HY_HIDDEN_VERSION, where);
	size_t want = hv ? HY_SMS_RECORD_SIZE_HIDDEN : HY_SMS_RECORD_SIZE;
	if (r->rs != want)
		return hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX,
				      "sample stream record size %zu does not hold hidden-state "
				      "version %u (%zu bytes)%s", r->rs, hv, want, where);
	return check_obs_version(r, p[H_OBS_VERSION], where, d);
}

static const hy_frame_format sms_format = {
	.name = "sample stream",
	.a_name = "a sample stream",
	.count_noun = "sample",
	.magic = HY_SMS_MAGIC,
	.trailer_magic = TRAILER_MAGIC,
	.version = HY_SMS_VERSION,
	.header_size = HY_SMS_HEADER_SIZE,
	.record_size = HY_SMS_RECORD_SIZE,
	.alt_record_size = HY_SMS_RECORD_SIZE_HIDDEN,
	.wbuf_size = HY_SMS_HEADER_SIZE + 64 * HY_SMS_RECORD_SIZE_HIDDEN,
	.rbuf_size = 64 * HY_SMS_RECORD_SIZE_HIDDEN,
	.put_header = put_header,
	.check_header = check_header,
};

/* ------------------------------------------------------------ writer */

struct hy_sms_writer {
	hy_frame_writer fw;
	int hidden; /* 1: records of the hidden-state extension */
};

hy_status hy_sms_writer_set_hidden(hy_sms_writer *w, int on)
{
	if (!w || w->fw.nrec)
		return HY_EUSAGE;
	hy_status st = hy_frame_writer_set_record_size(
		&w->fw, on ? HY_SMS_RECORD_SIZE_HIDDEN : HY_SMS_RECORD_SIZE);
	if (st)
		return st;
	w->hidden = !!on;
	w->fw.buf[H_HIDDEN] = on ? HY_HIDDEN_VERSION : 0;
	return HY_OK;
}

int hy_sms_writer_hidden(const hy_sms_writer *w)
{
	return w && w->hidden;
}

hy_status hy_sms_writer_set_obs_version(hy_sms_writer *w, unsigned v)
{
	/* the header is the start of the buffer until the first flush, and
	 * the first sample may flush it */
	if (!w || v > 255 || w->fw.nrec)
		return HY_EUSAGE;
	w->fw.buf[H_OBS_VERSION] = (uint8_t)v;
	return HY_OK;
}

hy_status hy_sms_writer_open(hy_sms_writer **wp, FILE *f)
{
	if (!wp)
		return HY_EUSAGE;
	*wp = NULL;
	if (!f)
		return HY_EUSAGE;
	hy_sms_writer *w = calloc(1, sizeof *w);
	if (!w)
		return HY_ENOMEM;
	if (hy_frame_writer_init(&w->fw, &sms_format, f) != HY_OK) {
		free(w);
		return HY_ENOMEM;
	}
	w->fw.buf[H_OBS_VERSION] = HY_OBS_VERSION;
	*wp = w;
	return HY_OK;
}

uint64_t hy_sms_writer_count(const hy_sms_writer *w)
{
	return w ? w->fw.nrec : 0;
}

hy_status hy_sms_write(hy_sms_writer *w, const hy_sample *s, hy_diag *d)
{
	if (!w || !s)
		return HY_EUSAGE;
	hy_status st = hy_frame_writer_check(&w->fw, d);
	if (st)
		return st;
	const char *why = hy_sample_check(s);
	if (why)
		return hy_frame_wfail(&w->fw, d, HY_EUSAGE, "sample %llu cannot be written: %s",
				      (unsigned long long)w->fw.nrec + 1, why);
	if (w->hidden && !(s->flags & HY_SAMPLE_F_HIDDEN))
		return hy_frame_wfail(&w->fw, d, HY_EUSAGE,
				      "sample %llu cannot be written: it has no hidden state, and "
				      "the stream holds it for every sample",
				      (unsigned long long)w->fw.nrec + 1);
	uint8_t *p = hy_frame_record(&w->fw, d);
	if (!p)
		return w->fw.err;
	if (w->hidden)
		encode_hidden(s, p);
	else
		hy_sms_encode(s, p);
	return HY_OK;
}

hy_status hy_sms_writer_close(hy_sms_writer *w, hy_diag *d)
{
	if (!w)
		return HY_EUSAGE;
	hy_status s = hy_frame_writer_close(&w->fw, d);
	free(w);
	return s;
}

void hy_sms_writer_abort(hy_sms_writer *w, const char *why)
{
	if (!w)
		return;
	hy_frame_writer_abort(&w->fw, why);
	free(w);
}

/* ------------------------------------------------------------ reader */

struct hy_sms_reader {
	hy_frame_reader fr; /* first: check_header gets &fr and finds the rest */
	int obs_version;    /* of the first frame; -1 before its header */
};

/* Every frame of one stream holds one encoding of the observation: `cat
 * old.bin new.bin` across a change of the encoder is refused, not mixed. */
static hy_status check_obs_version(hy_frame_reader *fr, unsigned v, const char *where,
				   hy_diag *d)
{
	hy_sms_reader *r = (hy_sms_reader *)fr;
	if (r->obs_version < 0) {
		r->obs_version = (int)v;
		return HY_OK;
	}
	if ((unsigned)r->obs_version == v)
		return HY_OK;
	return hy_frame_rfail(fr, d, HY_EVERSION, fr->records, UINT32_MAX,
			      "sample stream mixes observation versions: %u%s, %d before it "
			      "(samples of two encoders; remake the older ones)",
			      v, where, r->obs_version);
}

int hy_sms_reader_obs_version(const hy_sms_reader *r)
{
	return r ? r->obs_version : -1;
}

int hy_sms_reader_hidden(const hy_sms_reader *r)
{
	return r && r->fr.rs == HY_SMS_RECORD_SIZE_HIDDEN;
}

hy_status hy_sms_reader_open_mem(hy_sms_reader **rp, const char *source, const void *data,
				 size_t len)
{
	if (!rp || (!data && len))
		return HY_EUSAGE;
	*rp = NULL;
	hy_sms_reader *r = calloc(1, sizeof *r);
	if (!r)
		return HY_ENOMEM;
	r->obs_version = -1;
	hy_status s = hy_frame_reader_init_mem(&r->fr, &sms_format, source, data, len);
	if (s) {
		hy_sms_reader_close(r);
		return s;
	}
	*rp = r;
	return HY_OK;
}

hy_status hy_sms_reader_open_file_prefix(hy_sms_reader **rp, const char *source, FILE *f,
					 const void *prefix, size_t nprefix)
{
	if (!rp || !f || nprefix > 8 || (nprefix && !prefix))
		return HY_EUSAGE;
	*rp = NULL;
	hy_sms_reader *r = calloc(1, sizeof *r);
	if (!r)
		return HY_ENOMEM;
	r->obs_version = -1;
	hy_status s = hy_frame_reader_init_file(&r->fr, &sms_format, source, f, prefix, nprefix);
	if (s) {
		hy_sms_reader_close(r);
		return s;
	}
	*rp = r;
	return HY_OK;
}

hy_status hy_sms_reader_open_file(hy_sms_reader **rp, const char *source, FILE *f)
{
	return hy_sms_reader_open_file_prefix(rp, source, f, NULL, 0);
}

void hy_sms_reader_close(hy_sms_reader *r)
{
	if (!r)
		return;
	hy_frame_reader_fini(&r->fr);
	free(r);
}

uint64_t hy_sms_reader_records(const hy_sms_reader *r)
{
	return r ? r->fr.records : 0;
}

hy_status hy_sms_read(hy_sms_reader *r, hy_sample *s, hy_diag *d)
{
	if (!r || !s)
		return HY_EUSAGE;
	if (r->fr.err) {
		hy_frame_rdiag(&r->fr, d);
		return r->fr.err;
	}
	for (;;) {
		const uint8_t *p;
		hy_status st = hy_frame_next(&r->fr, UINT32_MAX, &p, d);
		if (st)
			return st;
		uint64_t rec = r->fr.records + 1;
		if (p[0] == REC_TRAILER) {
			st = hy_frame_trailer(&r->fr, p, d);
			if (st)
				return st;
			continue;
		}
		if (p[0] == HY_FRAME_REC_ABORT)
			return hy_frame_aborted(&r->fr, p, UINT32_MAX, d);
		if (p[0] != REC_SAMPLE)
			return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, UINT32_MAX,
					      "unknown record type %u", p[0]);
		if (r->fr.rs == HY_SMS_RECORD_SIZE_HIDDEN)
			decode_hidden(p, s);
		else
			hy_sms_decode(p, s);
		const char *why = hy_sample_check(s);
		if (why)
			return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, UINT32_MAX,
					      "bad sample record: %s", why);
		hy_frame_consume(&r->fr);
		return HY_OK;
	}
}
