/* tar_stream.c - read a compressed tar front to back with libarchive. */
#include "tar_stream.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "bale_store.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Compressed bytes per read of the archive file, and per read of an
 * inner tar out of the outer stream. */
#define STREAM_FILE_BLOCK ((size_t)1 << 20)
#define STREAM_INNER_BLOCK ((size_t)256 << 10)

struct stream_file {
	int fd;
	uint64_t off;
	unsigned char *buf;
};

struct stream_inner {
	struct archive *outer;
	unsigned char *buf;
};

struct bale_tar_stream {
	struct archive *outer;
	struct archive *cur;	/* the archive whose member is visited */
	bale_stream_member_fn fn;
	void *ctx;
	uint64_t ordinal;
	struct bale_errbuf *err;
};

static const char *stream_errmsg(struct archive *a)
{
	const char *msg = archive_error_string(a);

	return msg ? msg : "unknown libarchive error";
}

static la_ssize_t stream_file_read(struct archive *a, void *cd,
    const void **out)
{
	struct stream_file *f = cd;
	struct bale_errbuf why;
	size_t n;

	if (bale_store_fd_scan(f->fd, f->buf, STREAM_FILE_BLOCK, f->off, &n,
	    &why) != BALE_OK) {
		archive_set_error(a, EIO, "cannot read the archive: %s",
		    why.msg);
		return -1;
	}
	f->off += n;
	*out = f->buf;
	return (la_ssize_t)n;
}

/* An inner tar's bytes are the outer member's data. */
static la_ssize_t stream_inner_read(struct archive *a, void *cd,
    const void **out)
{
	struct stream_inner *in = cd;
	la_ssize_t n = archive_read_data(in->outer, in->buf,
	    STREAM_INNER_BLOCK);

	if (n < 0) {
		archive_set_error(a, EIO, "%s",
		    stream_errmsg(in->outer));
		return -1;
	}
	*out = in->buf;
	return n;
}

static enum bale_tar_kind stream_kind(struct archive_entry *e)
{
	if (archive_entry_hardlink(e))
		return BALE_TAR_HARDLINK;
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		/* holes are not part of an image file bale would pack */
		return archive_entry_sparse_count(e) > 0 ? BALE_TAR_OTHER :
		    BALE_TAR_FILE;
	case AE_IFDIR: return BALE_TAR_DIR;
	case AE_IFLNK: return BALE_TAR_SYMLINK;
	case AE_IFCHR:
	case AE_IFBLK:
	case AE_IFIFO:
	case AE_IFSOCK: return BALE_TAR_SPECIAL;
	default: return BALE_TAR_OTHER;
	}
}

/* The name as stored: the locale's form, else UTF-8 (pax), else none. */
static const char *stream_name(struct archive_entry *e)
{
	const char *name = archive_entry_pathname(e);

	if (!name)
		name = archive_entry_pathname_utf8(e);
	return name ? name : "";
}

static int stream_members(struct bale_tar_stream *s, struct archive *a,
    const char *outer);

/* Enter the inner tar the outer stream is at. Its damage is told to the
 * callback (the outer stream goes on); only the callback stops it. */
static int stream_inner_tar(struct bale_tar_stream *s, const char *name)
{
	struct stream_inner in = { s->outer, NULL };
	struct archive *a = archive_read_new();
	struct bale_stream_member m;
	char *outer = strdup(name);	/* outlives the outer entry */
	int rc = BALE_ENOMEM;

	in.buf = malloc(STREAM_INNER_BLOCK);
	if (!a || !outer || !in.buf)
		goto out;
	archive_read_support_format_tar(a);
	if (archive_read_open(a, &in, NULL, stream_inner_read, NULL) ==
	    ARCHIVE_OK)
		rc = stream_members(s, a, outer);
	else
		rc = bale_errbuf_set(s->err, BALE_EINPUT, "%s",
		    stream_errmsg(a));
	if (rc == BALE_EINPUT) {
		memset(&m, 0, sizeof(m));
		m.name = outer;
		m.outer = outer;
		m.ordinal = s->ordinal;
		m.damage = s->err->msg;
		rc = s->fn(s->ctx, s, &m);
	}
out:
	archive_read_free(a);
	free(in.buf);
	free(outer);
	return rc;
}

static int stream_members(struct bale_tar_stream *s, struct archive *a,
    const char *outer)
{
	struct archive_entry *e;
	struct bale_stream_member m;
	int r;
	int rc;

	for (;;) {
		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			return BALE_OK;
		if (r < ARCHIVE_WARN)
			return bale_errbuf_set(s->err, BALE_EINPUT,
			    "damaged after %" PRIu64 " members: %s",
			    s->ordinal, stream_errmsg(a));
		memset(&m, 0, sizeof(m));
		m.name = stream_name(e);
		m.kind = stream_kind(e);
		m.size = (uint64_t)archive_entry_size(e);
		m.ordinal = s->ordinal++;
		m.outer = outer;
		s->cur = a;
		rc = s->fn(s->ctx, s, &m);
		if (rc != BALE_OK)
			return rc;
		if (!outer && m.kind == BALE_TAR_FILE &&
		    bale_tar_is_tar_name(m.name)) {
			rc = stream_inner_tar(s, m.name);
			if (rc != BALE_OK)
				return rc;
		}
	}
}

static struct archive *stream_open(struct stream_file *f,
    struct bale_errbuf *err)
{
	struct archive *a = archive_read_new();

	if (!a)
		return NULL;
	/* the compressions libarchive undoes itself (no helper program) */
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_lzma(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_lz4(a);
	archive_read_support_filter_lzip(a);
	archive_read_support_filter_compress(a);
	archive_read_support_format_tar(a);
	if (archive_read_open(a, f, NULL, stream_file_read, NULL) !=
	    ARCHIVE_OK) {
		bale_errbuf_set(err, BALE_EINPUT, "%s",
		    stream_errmsg(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

int bale_tar_stream_scan(int fd, bale_stream_member_fn fn, void *ctx,
    uint64_t *met, struct bale_errbuf *err)
{
	struct stream_file f = { fd, 0, malloc(STREAM_FILE_BLOCK) };
	struct bale_tar_stream s;
	int rc;

	*met = 0;
	if (!f.buf)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	memset(&s, 0, sizeof(s));
	s.fn = fn;
	s.ctx = ctx;
	s.err = err;
	bale_errbuf_clear(err);
	s.outer = stream_open(&f, err);
	if (!s.outer) {
		free(f.buf);
		return err->rc ? err->rc : bale_errbuf_set(err, BALE_ENOMEM,
		    "no memory");
	}
	rc = stream_members(&s, s.outer, NULL);
	*met = s.ordinal;
	archive_read_free(s.outer);
	free(f.buf);
	return rc;
}

int bale_tar_stream_read(struct bale_tar_stream *s, unsigned char *buf,
    size_t size, struct bale_errbuf *err)
{
	size_t got = 0;
	la_ssize_t n;

	while (got < size) {
		n = archive_read_data(s->cur, buf + got, size - got);
		if (n < 0)
			return bale_errbuf_set(err, BALE_EINPUT, "%s",
			    stream_errmsg(s->cur));
		if (n == 0)
			return bale_errbuf_set(err, BALE_EINPUT,
			    "the archive ends inside this member");
		got += (size_t)n;
	}
	return BALE_OK;
}
