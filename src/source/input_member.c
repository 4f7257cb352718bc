/* input_member.c - read one archive member in place: pread at its offset,
 * inflated when the zip deflated it, checked against the zip's CRC-32. */
#include "input.h"

#include "bale.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MEMBER_CHUNK ((size_t)256 << 10)	/* compressed bytes per read */

/* Read @n bytes at @off; the archive changing under us is a skip. */
static int member_pread(struct bale_input *in, unsigned char *buf, size_t n,
    uint64_t off)
{
	size_t got;

	if (bale_file_pread_full(in->member.fd, buf, n, off, &got) != 0)
		return bale_input_skip(in, "read error in the archive", errno);
	if (got < n)
		return bale_input_skip(in, "the archive shrank while being read",
		    0);
	return BALE_OK;
}

static int member_inflate_chunks(struct bale_input *in, z_stream *z,
    unsigned char *chunk)
{
	uint64_t off = in->member.offset;
	uint64_t left = in->member.csize;
	size_t n;
	int zrc = Z_OK;

	while (zrc == Z_OK) {
		if (z->avail_in == 0 && left > 0) {
			n = left < MEMBER_CHUNK ? (size_t)left : MEMBER_CHUNK;
			if (member_pread(in, chunk, n, off) != BALE_OK)
				return BALE_EINPUT;
			z->next_in = chunk;
			z->avail_in = (uInt)n;
			off += n;
			left -= n;
		}
		zrc = inflate(z, Z_NO_FLUSH);
		if (zrc == Z_BUF_ERROR && z->avail_out == 0)
			return bale_input_skip(in, "inflates to more than the size "
			    "the archive declares", 0);
		if (zrc == Z_BUF_ERROR)
			return bale_input_skip(in, "compressed data cut short", 0);
	}
	if (zrc != Z_STREAM_END)
		return bale_input_skip(in, z->msg ? z->msg : "bad deflate data", 0);
	if (z->avail_out != 0)
		return bale_input_skip(in, "inflates to less than the size the "
		    "archive declares", 0);
	return BALE_OK;
}

static int member_inflate(struct bale_input *in, unsigned char *buf)
{
	unsigned char *chunk = malloc(MEMBER_CHUNK);
	z_stream z;
	int rc;

	if (!chunk)
		return bale_input_skip(in, "no memory to inflate", 0);
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {	/* raw deflate */
		free(chunk);
		return bale_input_skip(in, "no memory to inflate", 0);
	}
	z.next_out = buf;
	z.avail_out = (uInt)in->size;
	rc = in->size > UINT_MAX ? bale_input_skip(in, "a deflated member over "
	    "4 GiB is not supported", 0) : member_inflate_chunks(in, &z, chunk);
	inflateEnd(&z);
	free(chunk);
	return rc;
}

int bale_input_read_member(struct bale_input *in, unsigned char *buf)
{
	int rc;

	if (in->member.method == BALE_WALK_DEFLATED)
		rc = member_inflate(in, buf);
	else if (in->member.csize != in->member.size)
		rc = bale_input_skip(in, "stored member whose sizes disagree", 0);
	else
		rc = member_pread(in, buf, in->size, in->member.offset);
	if (rc == BALE_OK && in->member.has_crc &&
	    bale_crc32(buf, in->size) != in->member.crc)
		rc = bale_input_skip(in, "CRC-32 differs from the archive's "
		    "(damaged member)", 0);
	return rc;
}
