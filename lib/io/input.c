/* The input layer (see input.h): paths → named documents.
 *
 * This file holds the sequence: a stack of path lists (the command line,
 * then one list per directory being walked) and at most one open archive.
 * The gzip/zstd decoder under it, and hy_decompress, are in decompress.c
 * (input_internal.h).
 *
 * Content decides what a file is:
 *   - gzip magic 1f 8b, zstd magic 28 b5 2f fd (or a zstd skippable frame)
 *     → decompressed;
 *   - after that, a tar header (valid "ustar" magic at 257 AND a valid header
 *     checksum) or a zip local/end header ("PK\3\4" / "PK\5\6") at offset 0
 *     → archive, read with libarchive, one document per regular entry named
 *     "outer:entry/path" in archive order (hard links, directories and other
 *     non-regular entries are skipped);
 *   - anything else is one plain document.
 *
 * A compressed tar is decompressed by our own decoder and fed to libarchive
 * in chunks through a read callback, so a tar.zst of many GB needs memory for
 * the compressed file plus one entry, not for the whole tar. After the tar's
 * end the decoder is drained to the end, so a truncated trailer is still an
 * error. A zip needs seeking (we read its central directory, so a zip cut
 * short is an error, not a shorter listing): it is opened from memory.
 *
 * Errors inside an archive: a bad entry payload (a truncated gzip entry)
 * skips that entry only (source = "outer:entry"); a damaged archive skips the
 * rest of the archive (source = the archive's path). */
#include "io/input.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"
#include "io/input_internal.h"

/* ------------------------------------------------------------ detection */

static unsigned long parse_octal(const unsigned char *p, size_t n, int *ok)
{
	size_t i = 0;
	unsigned long v = 0;
	while (i < n && p[i] == ' ')
		i++;
	size_t start = i;
	while (i < n && p[i] >= '0' && p[i] <= '7')
		v = v * 8 + (p[i++] - '0');
	*ok = i > start && (i == n || p[i] == ' ' || p[i] == '\0');
	return v;
}

/* A tar header: "ustar" at 257 and a matching header checksum. */
static int is_tar(const unsigned char *p, size_t len)
{
	if (len < 512 || memcmp(p + 257, "ustar", 5) != 0)
		return 0;
	int ok;
	unsigned long want = parse_octal(p + 148, 8, &ok);
	if (!ok)
		return 0;
	unsigned long su = 0;
	long ss = 0;
	for (int i = 0; i < 512; i++) {
		unsigned char c = (i >= 148 && i < 156) ? ' ' : p[i];
		su += c;
		ss += (signed char)c;
	}
	return want == su || (long)want == ss;
}

static int is_zip(const unsigned char *p, size_t len)
{
	return len >= 4 && p[0] == 'P' && p[1] == 'K' &&
	       ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6));
}

/* ------------------------------------------------------------ sequence */

typedef struct frame {
	char **names;   /* full paths */
	size_t n, i;
	int is_dir;
	dev_t dev;
	ino_t ino;
} frame;

/* Feeds libarchive decoded chunks of a compressed tar. */
typedef struct arc_src {
	hy_unz u;
	int live;
	char *buf;        /* owned; holds the already-decoded prefix first */
	size_t cap, prefix;
	int prefix_served;
	hy_diag err;      /* the decoder's own diagnostic, if it failed */
	int failed;
} arc_src;

struct hy_input {
	frame *stack;
	size_t depth, stack_cap;
	char *raw;          /* bytes of the current file */
	size_t rawlen;
	char *dec;          /* decoded file (plain .gz/.zst document) */
	char *ent;          /* current archive entry, reused */
	size_t entcap;
	char *entdec;       /* decoded archive entry */
	char *name;         /* name of the current document */
	/* the open archive */
	struct archive *ar;
	char *arc_name;     /* outer path, as given */
	const char *arc_fmt;
	int arc_kind;
	char *arc_mem;      /* decoded zip held in memory (owned) */
	arc_src src;
	char peek[64];      /* bytes already read from stdin (hy_input_peek_stdin) */
	size_t npeek, peek_pos;
};

static void free_names(frame *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	f->names = NULL;
	f->n = f->i = 0;
}

static hy_status push_frame(hy_input *in, frame f, hy_diag *d)
{
	if (HY_GROW(in->stack, in->stack_cap, in->depth + 1, 8)) {
		free_names(&f);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	in->stack[in->depth++] = f;
	return HY_OK;
}

hy_status hy_input_open(hy_input **inp, const char *const *paths, size_t npaths)
{
	if (!inp || (npaths && !paths))
		return HY_EUSAGE;
	*inp = NULL;
	hy_input *in = calloc(1, sizeof *in);
	if (!in)
		return HY_ENOMEM;
	frame f = { 0 };
	size_t n = npaths ? npaths : 1;
	f.names = calloc(n, sizeof *f.names);
	if (!f.names) {
		free(in);
		return HY_ENOMEM;
	}
	f.n = n;
	for (size_t i = 0; i < n; i++) {
		const char *p = npaths ? paths[i] : "-";
		if (!p || !(f.names[i] = strdup(p))) {
			free_names(&f);
			free(in);
			return p ? HY_ENOMEM : HY_EUSAGE;
		}
	}
	hy_status s = push_frame(in, f, NULL);
	if (s != HY_OK) {
		free(in);
		return s;
	}
	*inp = in;
	return HY_OK;
}

static void close_archive(hy_input *in)
{
	if (in->ar)
		archive_read_free(in->ar);
	in->ar = NULL;
	if (in->src.live)
		hy_unz_free(&in->src.u);
	free(in->src.buf);
	memset(&in->src, 0, sizeof in->src);
	free(in->arc_mem);
	in->arc_mem = NULL;
	free(in->arc_name);
	in->arc_name = NULL;
	free(in->raw);
	in->raw = NULL;
	in->rawlen = 0;
}

/* Releases what the previous document held (not the open archive). */
static void drop_doc(hy_input *in)
{
	free(in->name);
	in->name = NULL;
	free(in->dec);
	in->dec = NULL;
	free(in->entdec);
	in->entdec = NULL;
	if (!in->ar) {
		free(in->raw);
		in->raw = NULL;
		in->rawlen = 0;
	}
}

void hy_input_close(hy_input *in)
{
	if (!in)
		return;
	close_archive(in);
	drop_doc(in);
	free(in->ent);
	while (in->depth)
		free_names(&in->stack[--in->depth]);
	free(in->stack);
	free(in);
}

/* Fails with d->source = source. */
static hy_status fail(hy_diag *d, const char *source, hy_status s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static hy_status fail(hy_diag *d, const char *source, hy_status s, const char *fmt, ...)
{
	if (!d)
		return s;
	hy_diag_init(d, source);
	d->status = s;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	return s;
}

/* Copies a diagnostic made without a source into d, with source. */
static hy_status fail_with(hy_diag *d, const char *source, hy_status s, const hy_diag *tmp)
{
	return fail(d, source, s, "%s", tmp->msg);
}

static const char *display(const char *path)
{
	return strcmp(path, "-") == 0 ? "(stdin)" : path;
}

static char *join2(const char *a, const char *sep, const char *b)
{
	size_t na = strlen(a), ns = strlen(sep), nb = strlen(b);
	char *p = malloc(na + ns + nb + 1);
	if (p) {
		memcpy(p, a, na);
		memcpy(p + na, sep, ns);
		memcpy(p + na + ns, b, nb + 1);
	}
	return p;
}

/* Reads fd to its end into a fresh buffer (NUL-terminated), after the
 * npre bytes of pre (bytes of fd read earlier). */
static hy_status read_fd(int fd, size_t hint, const char *pre, size_t npre, char **out,
			 size_t *outlen, hy_diag *d)
{
	size_t cap = hint < SIZE_MAX - 2 ? hint + 2 : hint, len = npre;
	if (cap < 65536)
		cap = 65536;
	char *buf = malloc(cap);
	if (!buf)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu bytes)", cap);
	if (npre)
		memcpy(buf, pre, npre);
	for (;;) {
		if (len + 1 >= cap) {
			hy_status s = hy_io_grow(&buf, &cap, len + 1, d);
			if (s != HY_OK) {
				free(buf);
				return s;
			}
		}
		size_t want = cap - len - 1;
		if (want > (1u << 30))
			want = 1u << 30;
		ssize_t r = read(fd, buf + len, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			return hy_diag_set(d, HY_EIO, 0, "read error: %s", strerror(e));
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return HY_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists a directory (fd is consumed) into a new frame. */
static hy_status open_dir(hy_input *in, int fd, const char *path, const struct stat *st, hy_diag *d)
{
	for (size_t i = 0; i < in->depth; i++) {
		if (in->stack[i].is_dir && in->stack[i].dev == st->st_dev && in->stack[i].ino == st->st_ino) {
			close(fd);
			return fail(d, path, HY_EIO, "directory loop: a link back to a directory being read");
		}
	}
	DIR *dir = fdopendir(fd);
	if (!dir) {
		int e = errno;
		close(fd);
		return fail(d, path, HY_EIO, "cannot read directory: %s", strerror(e));
	}
	frame f = { .is_dir = 1, .dev = st->st_dev, .ino = st->st_ino };
	size_t cap = 0;
	hy_status s = HY_OK;
	const char *sep = (*path && path[strlen(path) - 1] == '/') ? "" : "/";
	for (;;) {
		errno = 0;
		struct dirent *e = readdir(dir);
		if (!e) {
			if (errno)
				s = fail(d, path, HY_EIO, "cannot read directory: %s", strerror(errno));
			break;
		}
		if (e->d_name[0] == '.')
			continue;
		if (HY_GROW(f.names, cap, f.n + 1, 16)) {
			s = fail(d, path, HY_ENOMEM, "out of memory");
			break;
		}
		if (!(f.names[f.n] = join2(path, sep, e->d_name))) {
			s = fail(d, path, HY_ENOMEM, "out of memory");
			break;
		}
		f.n++;
	}
	closedir(dir);
	if (s != HY_OK) {
		free_names(&f);
		return s;
	}
	/* full paths share the prefix, so this is strcmp order of the names */
	if (f.n > 1)
		qsort(f.names, f.n, sizeof *f.names, cmp_str);
	hy_status ps = push_frame(in, f, d);
	if (ps != HY_OK)
		return fail(d, path, ps, "out of memory");
	return HY_OK;
}

static la_ssize_t arc_read_cb(struct archive *a, void *ctx, const void **buf)
{
	arc_src *src = ctx;
	*buf = src->buf;
	if (!src->prefix_served) {
		src->prefix_served = 1;
		if (src->prefix)
			return (la_ssize_t)src->prefix;
	}
	size_t got;
	hy_diag_init(&src->err, NULL);
	if (hy_unz_read(&src->u, src->buf, src->cap, &got, &src->err) != HY_OK) {
		src->failed = 1;
		archive_set_error(a, EIO, "%s", src->err.msg);
		return ARCHIVE_FATAL;
	}
	return (la_ssize_t)got;
}

/* Error from libarchive (or from our decoder under it); closes the archive. */
static hy_status archive_fail(hy_input *in, hy_diag *d, const char *what)
{
	hy_status s;
	if (in->src.failed) {
		s = fail_with(d, display(in->arc_name), in->src.err.status, &in->src.err);
	} else {
		const char *m = in->ar ? archive_error_string(in->ar) : NULL;
		if (!m)
			m = "unknown error";
		s = strstr(m, "runcated") ? HY_ETRUNC : HY_EDATA;
		if (strcmp(in->arc_fmt, "zip") == 0 && strstr(m, "Unrecognized archive format"))
			m = "end of central directory not found (truncated?)";
		fail(d, display(in->arc_name), s, "corrupt %s archive: %s%s", in->arc_fmt, m, what);
	}
	close_archive(in);
	return s;
}

/* Opens an archive over in->raw (kind = outer compression, decoded prefix
 * in *prefix, taken over) and transfers raw ownership to the archive. */
static hy_status open_archive(hy_input *in, const char *path, int kind, int zip,
			      char **prefix, size_t prefixlen, size_t prefixcap, hy_diag *d)
{
	in->arc_kind = kind;
	in->arc_fmt = zip ? "zip" : "tar";
	in->arc_name = strdup(path);
	in->ar = archive_read_new();
	if (!in->arc_name || !in->ar) {
		free(*prefix);
		*prefix = NULL;
		close_archive(in);
		return fail(d, display(path), HY_ENOMEM, "out of memory");
	}
	int r = zip ? archive_read_support_format_zip_seekable(in->ar)
		    : archive_read_support_format_tar(in->ar);
	if (r != ARCHIVE_OK) {
		free(*prefix);
		*prefix = NULL;
		return archive_fail(in, d, "");
	}
	if (kind != KIND_PLAIN && !zip) {
		/* stream the decoded tar: prefix first, then chunks */
		in->src.buf = *prefix;
		in->src.cap = prefixcap;
		in->src.prefix = prefixlen;
		*prefix = NULL;
		r = archive_read_open(in->ar, &in->src, NULL, arc_read_cb, NULL);
	} else if (kind != KIND_PLAIN) {
		/* a compressed zip: decode whole, then read it from memory */
		hy_diag tmp;
		hy_diag_init(&tmp, NULL);
		size_t len = prefixlen, cap = prefixcap;
		char *buf = *prefix;
		*prefix = NULL;
		hy_status s = hy_unz_read_all(&in->src.u, &buf, &len, &cap, &tmp);
		hy_unz_free(&in->src.u);
		in->src.live = 0;
		in->arc_mem = buf;
		free(in->raw); /* the compressed bytes are no longer needed */
		in->raw = NULL;
		in->rawlen = 0;
		if (s != HY_OK) {
			close_archive(in);
			return fail_with(d, display(path), s, &tmp);
		}
		r = archive_read_open_memory(in->ar, in->arc_mem, len);
	} else {
		r = archive_read_open_memory(in->ar, in->raw, in->rawlen);
	}
	if (r != ARCHIVE_OK)
		return archive_fail(in, d, "");
	return HY_OK;
}

/* Next regular entry of the open archive: HY_OK (doc filled), HY_STOP at
 * its end (archive closed), or an error. */
static hy_status archive_next(hy_input *in, hy_doc *doc, hy_diag *d)
{
	for (;;) {
		struct archive_entry *e;
		int r = archive_read_next_header(in->ar, &e);
		if (r == ARCHIVE_EOF) {
			if (in->src.live) {
				/* the tar ended: the compressed stream must end cleanly too */
				hy_diag tmp;
				hy_diag_init(&tmp, NULL);
				size_t got;
				hy_status s;
				do
					s = hy_unz_read(&in->src.u, in->src.buf, in->src.cap, &got, &tmp);
				while (s == HY_OK && got);
				if (s != HY_OK) {
					s = fail_with(d, display(in->arc_name), s, &tmp);
					close_archive(in);
					return s;
				}
			}
			close_archive(in);
			return HY_STOP;
		}
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) /* RETRY: a damaged header */
			return archive_fail(in, d, "");
		if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e))
			continue;
		const char *ep = archive_entry_pathname(e);
		if (!ep)
			ep = archive_entry_pathname_utf8(e);
		if (!ep)
			ep = "(unnamed)";
		char *name = join2(display(in->arc_name), ":", ep);
		if (!name) {
			hy_status s = fail(d, display(in->arc_name), HY_ENOMEM, "out of memory");
			close_archive(in); /* frees arc_name: the message is made first */
			return s;
		}
		/* read the entry's data */
		size_t len = 0;
		if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0) {
			int64_t sz = archive_entry_size(e);
			size_t want = sz > (1 << 28) ? (1u << 28) : (size_t)sz;
			hy_diag tmp;
			hy_diag_init(&tmp, NULL);
			if (hy_io_grow(&in->ent, &in->entcap, want + 1, &tmp) != HY_OK) {
				hy_status s = fail_with(d, name, HY_ENOMEM, &tmp);
				close_archive(in); /* frees arc_name: the message is made first */
				free(name);
				return s;
			}
		}
		for (;;) {
			hy_diag tmp;
			hy_diag_init(&tmp, NULL);
			if (hy_io_grow(&in->ent, &in->entcap, len + 1, &tmp) != HY_OK) {
				hy_status s = fail_with(d, name, HY_ENOMEM, &tmp);
				close_archive(in);
				free(name);
				return s;
			}
			la_ssize_t n = archive_read_data(in->ar, in->ent + len, in->entcap - len - 1);
			if (n == 0)
				break;
			if (n < 0) { /* ARCHIVE_WARN included: e.g. a zip CRC mismatch */
				char what[600];
				snprintf(what, sizeof what, " (entry '%s')", ep);
				free(name);
				return archive_fail(in, d, what);
			}
			len += (size_t)n;
		}
		in->ent[len] = '\0';
		/* an entry that is itself compressed */
		char *out;
		size_t outlen;
		int kind;
		hy_diag tmp;
		hy_diag_init(&tmp, NULL);
		hy_status s = hy_decompress(in->ent, len, &out, &outlen, &kind, &tmp);
		if (s != HY_OK) {
			s = fail_with(d, name, s, &tmp);
			free(name);
			return s; /* the archive goes on with its next entry */
		}
		in->name = name;
		in->entdec = out;
		doc->name = name;
		doc->data = out ? out : in->ent;
		doc->len = out ? outlen : len;
		doc->compressed = in->arc_kind ? in->arc_kind : kind;
		return HY_OK;
	}
}

/* Handles one file's bytes (in->raw): a document, or an opened archive
 * (HY_STOP: nothing to deliver yet), or an error. */
static hy_status take_file(hy_input *in, const char *path, hy_doc *doc, hy_diag *d)
{
	const unsigned char *raw = (const unsigned char *)in->raw;
	int kind = hy_unz_kind(raw, in->rawlen);
	if (kind == KIND_PLAIN) {
		int zip = is_zip(raw, in->rawlen);
		if (zip || is_tar(raw, in->rawlen)) {
			char *none = NULL;
			hy_status s = open_archive(in, path, KIND_PLAIN, zip, &none, 0, 0, d);
			return s == HY_OK ? HY_STOP : s;
		}
		if (!(in->name = strdup(path)))
			return fail(d, display(path), HY_ENOMEM, "out of memory");
		doc->name = in->name;
		doc->data = in->raw;
		doc->len = in->rawlen;
		doc->compressed = 0;
		return HY_OK;
	}
	/* decode a prefix (≥ 512 bytes when there is that much) to decide */
	hy_diag tmp;
	hy_diag_init(&tmp, NULL);
	hy_unz *u = &in->src.u;
	hy_status s = hy_unz_init(u, kind, raw, in->rawlen, &tmp);
	if (s != HY_OK) {
		hy_unz_free(u);
		return fail_with(d, display(path), s, &tmp);
	}
	in->src.live = 1;
	size_t cap = 1u << 20, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		s = hy_diag_set(&tmp, HY_ENOMEM, 0, "out of memory (%zu bytes)", cap);
	if (s == HY_OK)
		s = hy_unz_read(u, buf, 65536, &len, &tmp);
	if (s == HY_OK) {
		int zip = is_zip((unsigned char *)buf, len);
		if (zip || is_tar((unsigned char *)buf, len)) {
			s = open_archive(in, path, kind, zip, &buf, len, cap, d);
			return s == HY_OK ? HY_STOP : s;
		}
		/* a plain document: size the buffer once from the header's hint */
		size_t h = hy_unz_size_hint(kind, raw, in->rawlen);
		if (!u->done && h > cap) {
			char *p = realloc(buf, h);
			if (p) {
				buf = p;
				cap = h;
			}
		}
		s = hy_unz_read_all(u, &buf, &len, &cap, &tmp);
	}
	hy_unz_free(u);
	in->src.live = 0;
	if (s != HY_OK) {
		free(buf);
		return fail_with(d, display(path), s, &tmp);
	}
	/* shrink a generous buffer, free the compressed bytes */
	if (cap - len > len / 4 + 4096) {
		char *p = realloc(buf, len + 1);
		if (p)
			buf = p;
	}
	free(in->raw);
	in->raw = NULL;
	in->rawlen = 0;
	in->dec = buf;
	if (!(in->name = strdup(path)))
		return fail(d, display(path), HY_ENOMEM, "out of memory");
	doc->name = in->name;
	doc->data = buf;
	doc->len = len;
	doc->compressed = kind;
	return HY_OK;
}

/* One path from the stack: a document (HY_OK), nothing yet (HY_STOP: a
 * directory was pushed, an archive opened, an entry skipped), or an error. */
static hy_status take_path(hy_input *in, const char *path, int in_dir, hy_doc *doc, hy_diag *d)
{
	int fd;
	int is_stdin = !in_dir && strcmp(path, "-") == 0;
	struct stat st;
	if (is_stdin) {
		fd = STDIN_FILENO;
	} else {
		/* in a tree, a fifo must not block us: it is skipped below */
		do
			fd = open(path, O_RDONLY | O_CLOEXEC | (in_dir ? O_NONBLOCK : 0));
		while (fd < 0 && errno == EINTR);
		if (fd < 0)
			return fail(d, path, HY_EIO, "cannot open: %s", strerror(errno));
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;
		if (!is_stdin)
			close(fd);
		return fail(d, display(path), HY_EIO, "cannot stat: %s", strerror(e));
	}
	if (S_ISDIR(st.st_mode) && !is_stdin) {
		hy_status s = open_dir(in, fd, path, &st, d);
		return s == HY_OK ? HY_STOP : s;
	}
	if (in_dir && !S_ISREG(st.st_mode)) { /* fifos, sockets, devices in a tree */
		close(fd);
		return HY_STOP;
	}
	hy_diag tmp;
	hy_diag_init(&tmp, NULL);
	size_t hint = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size : 0;
	hy_status s = read_fd(fd, hint, is_stdin ? in->peek + in->peek_pos : NULL,
			      is_stdin ? in->npeek - in->peek_pos : 0, &in->raw, &in->rawlen, &tmp);
	if (is_stdin)
		in->peek_pos = in->npeek;
	if (!is_stdin)
		close(fd);
	if (s != HY_OK)
		return fail_with(d, display(path), s, &tmp);
	s = take_file(in, path, doc, d);
	return s;
}

hy_status hy_input_next(hy_input *in, hy_doc *doc, hy_diag *d)
{
	memset(doc, 0, sizeof *doc);
	if (!in)
		return fail(d, NULL, HY_EUSAGE, "no input");
	drop_doc(in);
	for (;;) {
		hy_status s;
		if (in->ar) {
			s = archive_next(in, doc, d);
			if (s == HY_STOP)
				continue;
			if (s != HY_OK)
				memset(doc, 0, sizeof *doc);
			return s;
		}
		if (!in->depth)
			return HY_STOP;
		frame *f = &in->stack[in->depth - 1];
		if (f->i == f->n) {
			free_names(f);
			in->depth--;
			continue;
		}
		const char *path = f->names[f->i++];
		s = take_path(in, path, f->is_dir, doc, d);
		if (s == HY_STOP)
			continue;
		if (s != HY_OK) {
			memset(doc, 0, sizeof *doc);
			drop_doc(in);
		}
		return s;
	}
}

hy_status hy_input_peek_stdin(hy_input *in, size_t n, const char **bytes, size_t *got)
{
	if (n > sizeof in->peek)
		n = sizeof in->peek;
	while (in->npeek < n) {
		ssize_t r = read(STDIN_FILENO, in->peek + in->npeek, n - in->npeek);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return HY_EIO;
		if (r == 0)
			break;
		in->npeek += (size_t)r;
	}
	*bytes = in->peek;
	*got = in->npeek;
	return HY_OK;
}

/* fopencookie read function: the peeked bytes, then standard input. */
static ssize_t stdin_cookie_read(void *cookie, char *buf, size_t size)
{
	hy_input *in = cookie;
	if (in->peek_pos < in->npeek) {
		size_t n = in->npeek - in->peek_pos;
		if (n > size)
			n = size;
		memcpy(buf, in->peek + in->peek_pos, n);
		in->peek_pos += n;
		return (ssize_t)n;
	}
	ssize_t r;
	do
		r = read(STDIN_FILENO, buf, size);
	while (r < 0 && errno == EINTR);
	return r;
}

FILE *hy_input_stdin_file(hy_input *in)
{
	cookie_io_functions_t io = {.read = stdin_cookie_read};
	return fopencookie(in, "rb", io);
}
