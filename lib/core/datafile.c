// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt.data writer and validating reader.
 *
 * Layout, all integers in host byte order (little-endian on every
 * platform cdt runs on):
 *
 *   offset  0  char magic[8]    "CDTDATA\n"
 *           8  u16  major       DF_MAJOR; checked before anything after it:
 *                               a reader refuses another major version
 *          10  u16  minor       DF_MINOR; a newer minor only adds: types (an
 *                               older reader skips them) and fields at the
 *                               end of records (it ignores them), see
 *                               struct rec_desc.  1.0 files wrote a u32 1.
 *          12  u32  hdr_size    bytes before the zlib stream: >= 24, <= 4096,
 *                               a multiple of 8; readers skip fields they
 *                               do not know, so fields can be added
 *          16  u32  flags       none defined; readers refuse bits they do
 *                               not know (-EPROTO)
 *          20  u32  compression 1 = zlib
 *   hdr_size   one zlib stream (deflate with the zlib wrapper, so adler32
 *              covers the records) of records back to back, rec_hdr.flags
 *              as the producer left them; the last is REC_END, counting
 *              the records and bytes before it.  Nothing may follow.
 *
 * The reader inflates into a 128 KB buffer that grows only to the largest
 * record (DF_MAX_RECORD at most), so memory stays bounded whatever the file
 * size.  Records are handed to the callback as they are decoded: an error
 * later in the file (truncation, corruption) is reported after the valid
 * records before it have been delivered.  Messages do not name the file.
 *
 * Thread names (rec_thread, rec_thread_end, rec_task) must hold a NUL within
 * their 16 bytes; the kernel's comm always does, and it lets every reader
 * use them as C strings.
 *
 * The file is created by mkstemp and so has mode 0600, as perf.data does:
 * a profile holds command lines, paths and addresses.
 */
#include "lib/core/datafile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define DF_COMP_ZLIB 1u
#define DF_HDR_MAX 4096u       /* a larger header is corrupt */
#define DF_LEVEL 1             /* see df_create */
#define DF_WBUF (64u * 1024)   /* writer: deflate input and output chunks */
#define DF_RBUF (256u * 1024)  /* reader: file read chunk */
#define DF_OBUF (128u * 1024)  /* reader: initial inflate buffer */

struct df_file_hdr {
	char magic[8];
	uint16_t major, minor;
	uint32_t hdr_size;
	uint32_t flags;
	uint32_t compression;
};

_Static_assert(sizeof(struct df_file_hdr) == 24, "file header layout");
_Static_assert(offsetof(struct df_file_hdr, major) == 8 &&
	       offsetof(struct df_file_hdr, minor) == 10, "the version where 1.0 had a u32 1");
_Static_assert(sizeof(DF_MAGIC) - 1 == 8, "magic is 8 bytes");

struct df_writer {
	z_stream zs;
	int fd;
	int in_place; /* path is not a regular file: written, not renamed over */
	int err; /* first failure; every later call returns it */
	uint64_t records, bytes;
	char *path, *tmp;
	size_t in_len;
	unsigned char in[DF_WBUF];
	unsigned char out[DF_WBUF];
};

static void msg(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void msg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- records */

/* A record of the file: framing, then its type if this cdt knows it.  A
 * type unknown below REC_TOOL_BASE is corrupt unless the file is of a
 * newer minor version (it may add types): *skip then says to pass over it. */
static int rec_check(const struct rec_hdr *h, uint16_t minor, int *skip, char *why,
		     size_t whylen)
{
	unsigned char buf[REC_FIXED_MAX] __attribute__((aligned(8)));
	const struct rec_desc *t;
	int err = rec_check_frame(h, DF_MAX_RECORD, why, whylen);

	*skip = 0;
	if (err)
		return err;
	t = rec_core(h->type);
	if (t)
		return rec_accept(t, h, buf, why, whylen, NULL) ? 0 : -EBADMSG;
	if (h->type >= REC_TOOL_BASE)
		return 0; /* a tool's record: profile_add checks it against the tool */
	if (minor > DF_MINOR) {
		*skip = 1;
		return 0;
	}
	msg(why, whylen, "unknown type %u", h->type);
	return -EBADMSG;
}

/* ----------------------------------------------------------------- writer */

static int write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t k;

	while (n) {
		k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Feed [p, p+n) to deflate and write what comes out. */
static int wr_deflate(struct df_writer *w, const unsigned char *p, size_t n,
		      int flush)
{
	int zr, ret;

	w->zs.next_in = (unsigned char *)p;
	w->zs.avail_in = (uInt)n;
	do {
		w->zs.next_out = w->out;
		w->zs.avail_out = sizeof(w->out);
		zr = deflate(&w->zs, flush);
		if (zr == Z_STREAM_ERROR)
			return -EIO;
		ret = write_all(w->fd, w->out, sizeof(w->out) - w->zs.avail_out);
		if (ret)
			return ret;
	} while (w->zs.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return 0;
}

static int wr_append(struct df_writer *w, const void *rec, size_t size)
{
	int ret = 0;

	if (size > sizeof(w->in) - w->in_len) {
		ret = wr_deflate(w, w->in, w->in_len, Z_NO_FLUSH);
		w->in_len = 0;
	}
	if (!ret && size > sizeof(w->in))
		ret = wr_deflate(w, rec, size, Z_NO_FLUSH); /* too big to buffer */
	else if (!ret) {
		memcpy(w->in + w->in_len, rec, size);
		w->in_len += size;
	}
	if (ret) {
		w->err = ret;
		return ret;
	}
	w->records++;
	w->bytes += size;
	return 0;
}

static void wr_free(struct df_writer *w)
{
	deflateEnd(&w->zs);
	free(w->path);
	free(w->tmp);
	free(w);
}

/*
 * A path that names one of cdt's own descriptors: "-" and /dev/stdout are
 * 1, /dev/stderr 2, /dev/fd/N and /proc/self/fd/N are N.  Such a path
 * means "this open file", shared with the program (its stdout is cdt's):
 * the profile is written to that descriptor, after what the program
 * wrote, never by opening the path again, which would truncate the
 * program's output or, through the magic link, rename over it.  Returns
 * N, or -1 for any other path.
 */
static int df_fd_path(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/",
					    "/proc/thread-self/fd/", NULL };
	char own[32];
	const char *s = NULL;
	long n = 0;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	for (int i = 0; dirs[i] && !s; i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			s = path + strlen(dirs[i]);
	snprintf(own, sizeof(own), "/proc/%d/fd/", (int)getpid());
	if (!s && !strncmp(path, own, strlen(own)))
		s = path + strlen(own);
	if (!s || !*s)
		return -1;
	for (; *s >= '0' && *s <= '9' && n <= INT_MAX / 10; s++)
		n = n * 10 + (*s - '0');
	return *s ? -1 : (int)n;
}

/*
 * The file a path names: a symlink's target, however many links deep
 * (also when it does not exist yet), else the path itself.  *special: it
 * exists and is not a regular file.  *fd: the path names a descriptor of
 * cdt's (df_fd_path), or -1.  Returns a malloc'ed path or NULL with errno
 * set.
 */
static char *df_target(const char *path, int *special, int *fd)
{
	char *cur = strdup(path), *next;
	struct stat st;

	*special = 0;
	*fd = -1;
	for (int depth = 0; cur; depth++) {
		char link[PATH_MAX];
		const char *slash;
		ssize_t n;

		if (depth == 40) {
			errno = ELOOP;
			goto fail;
		}
		*fd = df_fd_path(cur);
		if (*fd >= 0) {
			*special = 1;
			return cur;
		}
		if (lstat(cur, &st))
			return errno == ENOENT ? cur : (free(cur), NULL);
		if (!S_ISLNK(st.st_mode)) {
			*special = !S_ISREG(st.st_mode);
			return cur;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			goto fail;
		link[n] = 0;
		slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash)
			next = strdup(link);
		else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, link) < 0)
			next = NULL;
		free(cur);
		cur = next;
	}
	return NULL; /* errno: ENOMEM */
fail:
	free(cur);
	return NULL;
}

/* A descriptor the profile can go to: open for writing, not a terminal. */
static int df_check_fd(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	return isatty(fd) ? -ENOTTY : 0;
}

/*
 * rename() over an existing file in a sticky directory (/tmp) needs the
 * file or the directory to be ours (or CAP_FOWNER, taken as root here):
 * known now, where the rename would fail only after the run.
 */
static int df_check_sticky(const char *target)
{
	struct stat f, d;
	char *dir = strdup(target), *slash;
	uid_t me = geteuid();
	int ret = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	if (!lstat(target, &f) && !stat(slash ? dir : ".", &d) && (d.st_mode & S_ISVTX) &&
	    me && f.st_uid != me && d.st_uid != me)
		ret = -EPERM;
	free(dir);
	return ret;
}

int df_check(const char *path)
{
	struct df_writer *w;
	struct stat st;
	char *target;
	int special, fd, ret;

	if (!path || !*path)
		return -EINVAL;
	target = df_target(path, &special, &fd);
	if (!target)
		return -errno;
	if (fd >= 0)
		ret = df_check_fd(fd);
	else if (special && !stat(target, &st) && S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (special) /* opening a FIFO would wait for its reader */
		ret = access(target, W_OK) ? -errno : 0;
	else if (!(ret = df_check_sticky(target)) && !(ret = df_create(&w, target)))
		df_abort(w);
	free(target);
	return ret;
}

int df_create(struct df_writer **wp, const char *path)
{
	struct df_writer *w;
	struct df_file_hdr fh = {
		.magic = DF_MAGIC,
		.major = DF_MAJOR,
		.minor = DF_MINOR,
		.hdr_size = sizeof(fh),
		.compression = DF_COMP_ZLIB,
	};
	struct stat st;
	int ret, fd;

	*wp = NULL;
	if (!path || !*path)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	/*
	 * Level 1: on sample records it deflates about 4x faster than level 6
	 * (210 vs 50 MB/s here) for a file about 17% larger, and a run may
	 * end with millions of records to write while the user waits.
	 */
	if (deflateInit(&w->zs, DF_LEVEL) != Z_OK) {
		free(w);
		return -ENOMEM;
	}
	w->path = df_target(path, &w->in_place, &fd);
	if (!w->path) {
		ret = -errno;
		goto out;
	}
	if (fd >= 0) {
		/* A copy: closing it leaves the program's (and cdt's) stdout
		 * open.  A regular file is written at its end, after the
		 * program's output, whatever offset the program left. */
		w->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (w->fd >= 0 && !fstat(w->fd, &st) && S_ISREG(st.st_mode) &&
		    lseek(w->fd, 0, SEEK_END) < 0) {
			ret = -errno;
			goto out;
		}
	} else if (w->in_place)
		w->fd = open(w->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	else if (asprintf(&w->tmp, "%s.tmp.XXXXXX", w->path) < 0) {
		w->tmp = NULL;
		ret = -ENOMEM;
		goto out;
	} else
		w->fd = mkostemp(w->tmp, O_CLOEXEC);
	if (w->fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = write_all(w->fd, (const unsigned char *)&fh, sizeof(fh));
out:
	if (ret) {
		df_abort(w);
		return ret;
	}
	*wp = w;
	return 0;
}

int df_write(struct df_writer *w, const struct rec_hdr *rec)
{
	if (!w || !rec)
		return -EINVAL;
	if (w->err)
		return w->err;
	/* Refuse what the reader would refuse; REC_END is df_commit's. */
	if (rec->type == REC_END || record_validate(rec))
		return -EINVAL;
	return wr_append(w, rec, rec->size);
}

int df_write_meta(struct df_writer *w, const char *key, const char *value)
{
	struct rec_meta *m;
	size_t klen, vlen, size;
	int ret;

	if (!w || !key || !value)
		return -EINVAL;
	klen = strlen(key) + 1;
	vlen = strlen(value) + 1;
	if (klen + vlen > DF_MAX_RECORD - sizeof(*m))
		return -E2BIG;
	size = REC_SIZE(sizeof(*m) + klen + vlen);
	m = calloc(1, size); /* zeroed: the padding must be NUL */
	if (!m)
		return -ENOMEM;
	m->h.size = (uint32_t)size;
	m->h.type = REC_META;
	memcpy(m->kv, key, klen);
	memcpy(m->kv + klen, value, vlen);
	ret = df_write(w, &m->h);
	free(m);
	return ret;
}

int df_commit(struct df_writer *w)
{
	struct rec_end end = { .h = { .size = sizeof(end), .type = REC_END } };
	int ret;

	if (!w)
		return -EINVAL;
	end.records = w->records;
	end.bytes = w->bytes;
	ret = w->err;
	if (!ret)
		ret = wr_append(w, &end, sizeof(end));
	if (!ret)
		ret = wr_deflate(w, w->in, w->in_len, Z_FINISH);
	/* A pipe or a device has nothing to sync (EINVAL). */
	if (!ret && fsync(w->fd) && !(w->in_place && errno == EINVAL))
		ret = -errno;
	if (close(w->fd) && !ret)
		ret = -errno;
	w->fd = -1;
	if (!ret && !w->in_place && rename(w->tmp, w->path))
		ret = -errno;
	if (ret && !w->in_place)
		unlink(w->tmp);
	wr_free(w);
	return ret;
}

void df_abort(struct df_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		close(w->fd);
		if (!w->in_place)
			unlink(w->tmp);
	}
	wr_free(w);
}

/* ----------------------------------------------------------------- reader */

struct df_reader {
	z_stream zs;
	bool zinit;
	/* input: the whole buffer (df_read_mem) or chunks read from fd */
	int fd;
	const unsigned char *mem;
	size_t mem_len;
	unsigned char *ibuf;
	uint64_t in_off;  /* file offset of the current chunk */
	const unsigned char *chunk;
	bool eof;
	/* output: decoded bytes [start, end) of obuf, records 8-aligned */
	unsigned char *obuf;
	size_t ocap, start, end;
	uint64_t nrec, bytes;
	uint16_t minor; /* the file's */
	char *err;
	size_t errlen;
};

/* Next chunk of the input into r->chunk / zs.next_in; 0 bytes at EOF. */
static int rd_fill(struct df_reader *r)
{
	ssize_t k;
	size_t n = 0;

	if (r->chunk)
		r->in_off += (uint64_t)(r->zs.next_in - r->chunk);
	if (r->fd < 0) {
		/* memory: the whole buffer is the one and only chunk */
		r->eof = true;
		r->chunk = r->mem;
		r->zs.next_in = (unsigned char *)r->mem;
		r->zs.avail_in = (uInt)r->mem_len;
		return 0;
	}
	/* Fill the whole chunk: the first one must hold the header. */
	while (n < DF_RBUF) {
		k = read(r->fd, r->ibuf + n, DF_RBUF - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = -errno;

			msg(r->err, r->errlen, "read error at offset %llu: %s",
			    (unsigned long long)(r->in_off + n), strerror(-e));
			return e;
		}
		if (k == 0) {
			r->eof = true;
			break;
		}
		n += (size_t)k;
	}
	r->chunk = r->ibuf;
	r->zs.next_in = r->ibuf;
	r->zs.avail_in = (uInt)n;
	return 0;
}

static bool rd_more_input(struct df_reader *r)
{
	return r->zs.avail_in || !r->eof;
}

static int rd_header(struct df_reader *r)
{
	struct df_file_hdr fh;
	size_t have = r->zs.avail_in;
	const unsigned char *p = r->zs.next_in;

	if (have < 8 && !memcmp(p, DF_MAGIC, have)) {
		if (!have)
			msg(r->err, r->errlen, "truncated: the file is empty");
		else
			msg(r->err, r->errlen,
			    "truncated: %zu bytes, shorter than the header", have);
		return -EBADMSG;
	}
	if (have < 8 || memcmp(p, DF_MAGIC, 8)) {
		msg(r->err, r->errlen, "not a cdt.data file (bad magic)");
		return -EBADMSG;
	}
	/* The version first: a later major may change everything after it. */
	if (have < offsetof(struct df_file_hdr, hdr_size)) {
		msg(r->err, r->errlen,
		    "truncated: %zu bytes, shorter than the header", have);
		return -EBADMSG;
	}
	memcpy(&fh.major, p + offsetof(struct df_file_hdr, major), sizeof(fh.major));
	memcpy(&fh.minor, p + offsetof(struct df_file_hdr, minor), sizeof(fh.minor));
	if (fh.major != DF_MAJOR) {
		if (__builtin_bswap16(fh.major) == DF_MAJOR ||
		    __builtin_bswap16(fh.minor) == DF_MAJOR)
			msg(r->err, r->errlen,
			    "cdt.data written on a machine of the other byte order; this cdt cannot read it");
		else
			msg(r->err, r->errlen,
			    "cdt.data version %u.%u: this cdt reads version %u files only (it "
			    "writes %u.%u)", fh.major, fh.minor, DF_MAJOR, DF_MAJOR, DF_MINOR);
		return -EPROTO;
	}
	r->minor = fh.minor;
	if (have < sizeof(fh)) {
		msg(r->err, r->errlen,
		    "truncated: %zu bytes, shorter than the header", have);
		return -EBADMSG;
	}
	memcpy(&fh, p, sizeof(fh));
	if (fh.hdr_size < sizeof(fh) || fh.hdr_size > DF_HDR_MAX ||
	    fh.hdr_size % 8) {
		msg(r->err, r->errlen, "corrupt: header size %u", fh.hdr_size);
		return -EBADMSG;
	}
	if (fh.flags || fh.compression != DF_COMP_ZLIB) {
		msg(r->err, r->errlen,
		    "cdt.data uses features this cdt does not know (flags 0x%x, compression %u)",
		    fh.flags, fh.compression);
		return -EPROTO;
	}
	if (have < fh.hdr_size) {
		msg(r->err, r->errlen,
		    "truncated: %zu bytes, shorter than the %u-byte header",
		    have, fh.hdr_size);
		return -EBADMSG;
	}
	r->zs.next_in += fh.hdr_size;
	r->zs.avail_in -= fh.hdr_size;
	return 0;
}

static int rd_corrupt(struct df_reader *r, const struct rec_hdr *h,
		      const char *why)
{
	msg(r->err, r->errlen,
	    "corrupt: record %llu (type %u) at data offset %llu: %s",
	    (unsigned long long)r->nrec, h->type,
	    (unsigned long long)r->bytes, why);
	return -EBADMSG;
}

/*
 * Hand complete records in the buffer to fn.  Returns 1 after REC_END,
 * 0 when more bytes are needed, or an error.
 */
static int rd_records(struct df_reader *r, df_fn fn, void *arg)
{
	char why[160];
	const struct rec_hdr *h;
	const struct rec_end *e;
	size_t need;
	int ret, skip;

	while (r->end - r->start >= sizeof(*h)) {
		h = (const struct rec_hdr *)(r->obuf + r->start);
		if (rec_check_frame(h, DF_MAX_RECORD, why, sizeof(why)))
			return rd_corrupt(r, h, why);
		if (h->size > r->end - r->start) {
			need = h->size;
			if (need > r->ocap) {
				unsigned char *n;

				memmove(r->obuf, r->obuf + r->start,
					r->end - r->start);
				r->end -= r->start;
				r->start = 0;
				n = realloc(r->obuf, need);
				if (!n) {
					msg(r->err, r->errlen, "out of memory");
					return -ENOMEM;
				}
				r->obuf = n;
				r->ocap = need;
			}
			return 0;
		}
		if (rec_check(h, r->minor, &skip, why, sizeof(why)))
			return rd_corrupt(r, h, why);
		r->start += h->size;
		if (h->type == REC_END) {
			e = (const struct rec_end *)h;
			if (e->records != r->nrec || e->bytes != r->bytes) {
				msg(r->err, r->errlen,
				    "corrupt: the end record counts %llu records, %llu bytes; the file has %llu records, %llu bytes",
				    (unsigned long long)e->records,
				    (unsigned long long)e->bytes,
				    (unsigned long long)r->nrec,
				    (unsigned long long)r->bytes);
				return -EBADMSG;
			}
			return 1;
		}
		ret = skip ? 0 : fn(h, arg);
		if (ret)
			return ret;
		r->nrec++;
		r->bytes += h->size;
	}
	return 0;
}

/* After REC_END: the stream must end, with nothing after it. */
static int rd_finish(struct df_reader *r)
{
	unsigned char scratch[64];
	int zr;

	for (;;) {
		if (r->end > r->start) {
			msg(r->err, r->errlen,
			    "corrupt: data after the end record (record %llu)",
			    (unsigned long long)r->nrec);
			return -EBADMSG;
		}
		r->start = r->end = 0;
		if (!r->zs.avail_in && !r->eof) {
			int ret = rd_fill(r);

			if (ret)
				return ret;
		}
		r->zs.next_out = scratch;
		r->zs.avail_out = sizeof(scratch);
		zr = inflate(&r->zs, Z_NO_FLUSH);
		r->end = sizeof(scratch) - r->zs.avail_out;
		if (zr == Z_STREAM_END && !r->end)
			break;
		if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT) {
			msg(r->err, r->errlen,
			    "corrupt: compressed data near offset %llu: %s",
			    (unsigned long long)(r->in_off +
						 (uint64_t)(r->zs.next_in - r->chunk)),
			    r->zs.msg ? r->zs.msg : "invalid");
			return -EBADMSG;
		}
		if (zr == Z_MEM_ERROR) {
			msg(r->err, r->errlen, "out of memory");
			return -ENOMEM;
		}
		if (zr != Z_STREAM_END && !r->end && !rd_more_input(r)) {
			msg(r->err, r->errlen,
			    "truncated: the compressed stream ends early after the end record");
			return -EBADMSG;
		}
	}
	if (rd_more_input(r) && !r->zs.avail_in) {
		int ret = rd_fill(r);

		if (ret)
			return ret;
	}
	if (r->zs.avail_in) {
		msg(r->err, r->errlen,
		    "corrupt: data after the compressed stream at offset %llu",
		    (unsigned long long)(r->in_off +
					 (uint64_t)(r->zs.next_in - r->chunk)));
		return -EBADMSG;
	}
	return 0;
}

static int rd_run(struct df_reader *r, df_fn fn, void *arg)
{
	int ret, zr;

	if (!fn) {
		msg(r->err, r->errlen, "no record callback");
		return -EINVAL;
	}
	ret = rd_fill(r);
	if (ret)
		return ret;
	ret = rd_header(r);
	if (ret)
		return ret;
	r->ocap = DF_OBUF;
	r->obuf = malloc(r->ocap);
	if (!r->obuf || inflateInit(&r->zs) != Z_OK) {
		msg(r->err, r->errlen, "out of memory");
		return -ENOMEM;
	}
	r->zinit = true;

	for (;;) {
		ret = rd_records(r, fn, arg);
		if (ret == 1)
			return rd_finish(r);
		if (ret)
			return ret;
		/* rd_records left an incomplete record: make room after it */
		memmove(r->obuf, r->obuf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
		if (!r->zs.avail_in && !r->eof) {
			ret = rd_fill(r);
			if (ret)
				return ret;
		}
		r->zs.next_out = r->obuf + r->end;
		r->zs.avail_out = (uInt)(r->ocap - r->end);
		zr = inflate(&r->zs, Z_NO_FLUSH);
		r->end = r->ocap - r->zs.avail_out;
		if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT) {
			msg(r->err, r->errlen,
			    "corrupt: compressed data near offset %llu after %llu records: %s",
			    (unsigned long long)(r->in_off +
						 (uint64_t)(r->zs.next_in - r->chunk)),
			    (unsigned long long)r->nrec,
			    r->zs.msg ? r->zs.msg : "invalid");
			return -EBADMSG;
		}
		if (zr == Z_MEM_ERROR) {
			msg(r->err, r->errlen, "out of memory");
			return -ENOMEM;
		}
		if (zr == Z_STREAM_END) {
			ret = rd_records(r, fn, arg);
			if (ret == 1)
				return rd_finish(r);
			if (ret)
				return ret;
			break;
		}
		if (!rd_more_input(r) && zr != Z_OK)
			break; /* Z_BUF_ERROR: no input left, no progress */
	}
	/* The input or the stream ended before REC_END. */
	if (r->end > r->start) {
		const struct rec_hdr *h =
			(const struct rec_hdr *)(r->obuf + r->start);

		if (r->end - r->start >= sizeof(*h))
			msg(r->err, r->errlen,
			    "truncated: record %llu (type %u) has %zu of its %u bytes; no end record",
			    (unsigned long long)r->nrec, h->type,
			    r->end - r->start, h->size);
		else
			msg(r->err, r->errlen,
			    "truncated: record %llu is cut inside its header; no end record",
			    (unsigned long long)r->nrec);
	} else {
		msg(r->err, r->errlen, "truncated: no end record after %llu records",
		    (unsigned long long)r->nrec);
	}
	return -EBADMSG;
}

static void rd_free(struct df_reader *r)
{
	if (r->zinit)
		inflateEnd(&r->zs);
	free(r->obuf);
	free(r->ibuf);
}

int df_read_mem(const void *buf, size_t len, df_fn fn, void *arg, char *err,
		size_t errlen)
{
	struct df_reader r = {
		.fd = -1,
		.mem = buf ? buf : (const void *)"",
		.mem_len = len,
		.err = err,
		.errlen = errlen,
	};
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!buf && len)
		return -EINVAL;
	if (len > UINT_MAX) {
		/* zlib counts input in uInt; no cdt.data is this large in memory */
		msg(err, errlen, "buffer of %zu bytes is too large", len);
		return -E2BIG;
	}
	ret = rd_run(&r, fn, arg);
	rd_free(&r);
	return ret;
}

int df_read(const char *path, df_fn fn, void *arg, char *err, size_t errlen)
{
	struct df_reader r = {
		.fd = -1,
		.err = err,
		.errlen = errlen,
	};
	struct stat st;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!path)
		return -EINVAL;
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0) {
		ret = -errno;
		msg(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	if (fstat(r.fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		msg(err, errlen, "%s", strerror(-ret));
		goto out;
	}
	r.ibuf = malloc(DF_RBUF);
	if (!r.ibuf) {
		ret = -ENOMEM;
		msg(err, errlen, "out of memory");
		goto out;
	}
	ret = rd_run(&r, fn, arg);
out:
	close(r.fd);
	rd_free(&r);
	return ret;
}
