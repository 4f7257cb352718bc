/* source_zip.c - a zip archive as the source: listed from its central
 * directory, its members left in place, read with pread (inflated when
 * deflated) and checked against the zip's CRC-32. */
#include "kind.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "bale_store.h"
#include "input.h"
#include "walk_arc.h"
#include "zip_scan.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ZIP_CHUNK ((size_t)256 << 10)	/* compressed bytes per read */

static int zip_sniff(int fd, uint64_t size, const unsigned char *head,
    size_t n)
{
	return (n >= 4 && memcmp(head, "PK\3\4", 4) == 0) ||
	    bale_zip_probe(fd, size);
}

static enum walk_member_kind zip_member_kind(enum bale_zip_kind k)
{
	switch (k) {
	case BALE_ZIP_FILE: return WALK_FILE;
	case BALE_ZIP_DIR: return WALK_DIR;
	case BALE_ZIP_SYMLINK: return WALK_SYMLINK;
	default: return WALK_SPECIAL;
	}
}

/* bale_zip_scan callback. */
static int zip_take(void *ctx, const struct bale_zip_member *z,
    const char *why)
{
	struct arc_scan *s = ctx;
	struct walk_member m;

	memset(&m, 0, sizeof(m));
	m.name = z->name;
	m.kind = zip_member_kind(z->kind);
	m.why = why;
	m.encrypted = z->encrypted;
	m.loc.kind = s->kind;
	m.loc.fd = s->fd;
	m.loc.method = (int)z->method | (z->at_header ?
	    BALE_WALK_AT_HEADER : 0);
	m.loc.has_crc = 1;
	m.loc.crc = z->crc;
	m.loc.offset = z->offset;
	m.loc.size = z->size;
	m.loc.csize = z->csize;
	return bale_walk_take_member(s->w, &m);
}

static int zip_list(struct arc_scan *s, uint64_t size, const char *path)
{
	struct bale_errbuf err;
	int rc;

	rc = bale_zip_scan(s->fd, size, zip_take, s, &err);
	if (rc == BALE_OK || s->w->err.rc)	/* a callback failed */
		return rc;
	return bale_errbuf_set(&s->w->err, rc, "'%s': %s", path, err.msg);
}

/* Inflate the member into @buf: from @held (its compressed bytes,
 * read already) or read in chunks. */
static int zip_inflate_chunks(struct bale_input *in, z_stream *z,
    unsigned char *chunk, const unsigned char *held)
{
	uint64_t off = in->member.offset;
	uint64_t left = held ? 0 : in->member.csize;
	size_t n;
	int zrc = Z_OK;

	if (held) {
		z->next_in = (unsigned char *)held;
		z->avail_in = (uInt)in->member.csize;
	}
	while (zrc == Z_OK) {
		if (z->avail_in == 0 && left > 0) {
			n = left < ZIP_CHUNK ? (size_t)left : ZIP_CHUNK;
			if (bale_input_pread_member(in, chunk, n, off) !=
			    BALE_OK)
				return BALE_EINPUT;
			z->next_in = chunk;
			z->avail_in = (uInt)n;
			off += n;
			left -= n;
		}
		zrc = inflate(z, Z_NO_FLUSH);
		if (zrc == Z_BUF_ERROR && z->avail_out == 0)
			return bale_input_skip(in, "inflates to more than the "
			    "size the archive declares", 0);
		if (zrc == Z_BUF_ERROR)
			return bale_input_skip(in, "compressed data cut short",
			    0);
	}
	if (zrc != Z_STREAM_END)
		return bale_input_skip(in, z->msg ? z->msg : "bad deflate data",
		    0);
	if (z->avail_out != 0)
		return bale_input_skip(in, "inflates to less than the size the "
		    "archive declares", 0);
	return BALE_OK;
}

static int zip_inflate(struct bale_input *in, unsigned char *buf,
    const unsigned char *held)
{
	unsigned char *chunk = held ? NULL : malloc(ZIP_CHUNK);
	z_stream z;
	int rc;

	if (!held && !chunk)
		return bale_input_skip(in, "no memory to inflate", 0);
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {	/* raw deflate */
		free(chunk);
		return bale_input_skip(in, "no memory to inflate", 0);
	}
	z.next_out = buf;
	z.avail_out = (uInt)in->size;
	rc = in->size > UINT_MAX || in->member.csize > UINT_MAX ?
	    bale_input_skip(in, "a deflated member over 4 GiB is not "
	    "supported", 0) : zip_inflate_chunks(in, &z, chunk, held);
	inflateEnd(&z);
	free(chunk);
	return rc;
}

/* A member of a zip kept as an object: its local header, which says
 * where its data starts (the listing read the directory alone), read
 * with the data in one request. *@whole: what was read (the caller's
 * to free); *@held: the data inside it, or NULL (a header longer than
 * the room: the data is read on its own). */
static int zip_find_data(struct bale_input *in, unsigned char **whole,
    const unsigned char **held)
{
	struct bale_walk_member *m = &in->member;
	uint64_t data, size = bale_store_fd_size(m->fd);
	uint64_t n = size - m->offset;
	const char *why;
	int rc;

	if (m->offset > size || n < BALE_ZIP_LOCAL_LEN)
		return bale_input_skip(in, "the local header lies past the "
		    "end of the archive", 0);
	if (n > m->csize + BALE_WALK_HEADER_ROOM)
		n = m->csize + BALE_WALK_HEADER_ROOM;
	if (n > SIZE_MAX || !(*whole = malloc((size_t)n)))
		return bale_input_skip(in, "no memory for the member", 0);
	rc = bale_input_pread_member(in, *whole, (size_t)n, m->offset);
	if (rc != BALE_OK)
		return rc;
	why = bale_zip_local_data(*whole, m->offset, m->csize, size, &data);
	if (why)
		return bale_input_skip(in, why, 0);
	if (data - m->offset <= n && m->csize <= n - (data - m->offset))
		*held = *whole + (data - m->offset);
	m->offset = data;
	m->method &= ~BALE_WALK_AT_HEADER;
	return BALE_OK;
}

static int zip_read(struct bale_input *in, unsigned char *buf)
{
	const unsigned char *held = NULL;
	unsigned char *whole = NULL;
	int rc = in->member.method & BALE_WALK_AT_HEADER ?
	    zip_find_data(in, &whole, &held) : BALE_OK;

	if (rc != BALE_OK) {
		free(whole);
		return rc;
	}
	if (in->member.method == BALE_WALK_DEFLATED)
		rc = zip_inflate(in, buf, held);
	else if (in->member.csize != in->member.size)
		rc = bale_input_skip(in, "stored member whose sizes disagree",
		    0);
	else if (held)
		memcpy(buf, held, in->size);
	else
		rc = bale_input_read_stored(in, buf);
	free(whole);
	if (rc == BALE_OK && bale_crc32(buf, in->size) != in->member.crc)
		rc = bale_input_skip(in, "CRC-32 differs from the archive's "
		    "(damaged member)", 0);
	return rc;
}

const struct bale_source_kind bale_source_zip = {
	.name = "zip",
	.what = "a zip archive",
	.caps = BALE_SOURCE_LISTABLE | BALE_SOURCE_RANDOM |
	    BALE_SOURCE_COMPRESSED,
	.probe = bale_source_archive_probe,
	.scan = bale_source_archives_scan,
	.sniff = zip_sniff,
	.list = zip_list,
	.read = zip_read,
};
