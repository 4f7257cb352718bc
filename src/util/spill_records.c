/* spill_records.c - records in a spill, each its length as a varint and
 * its bytes, read back a MiB at a time rather than a record a call. */
#include "spill_records.h"

#include "varint.h"

#include <errno.h>
#include <string.h>

#define REPLAY_CHUNK ((size_t)1 << 20)

void bale_spill_record(struct bale_spill *s, const void *rec, size_t n)
{
	unsigned char head[BALE_VARINT_MAX];

	bale_spill_add(s, head, bale_varint_encode(head, n));
	bale_spill_add(s, rec, n);
}

/* Make at least @n bytes from *@pos on sit in @buf (fewer only at the
 * spill's end), reading on from *@next. @return 0, or -1 (errno) */
static int replay_fill(const struct bale_spill *sp, struct bale_buf *buf,
    size_t *pos, uint64_t *next, size_t n)
{
	uint64_t total = bale_spill_size(sp);
	size_t left = buf->len - *pos;
	size_t more;

	if (left >= n || *next >= total)
		return 0;
	if (left)	/* an empty buffer may have no memory yet */
		memmove(buf->data, buf->data + *pos, left);
	buf->len = left;
	*pos = 0;
	more = n - left > REPLAY_CHUNK ? n - left : REPLAY_CHUNK;
	if (more > total - *next)
		more = (size_t)(total - *next);
	bale_buf_zeros(buf, more);
	if (buf->failed) {
		errno = ENOMEM;
		return -1;
	}
	if (bale_spill_pread(sp, buf->data + left, more, *next) != 0)
		return -1;
	*next += more;
	return 0;
}

int bale_spill_replay(const struct bale_spill *s, struct bale_buf *buf,
    int (*fn)(void *ctx, const unsigned char *rec, size_t n), void *ctx)
{
	uint64_t total = bale_spill_size(s);
	uint64_t next = 0;
	size_t pos = 0;
	const unsigned char *p;
	uint64_t len;
	size_t head;
	int rc = 0;

	bale_buf_reset(buf);
	while (rc == 0 && (pos < buf->len || next < total)) {
		if (replay_fill(s, buf, &pos, &next, BALE_VARINT_MAX) != 0)
			return 1;
		p = (const unsigned char *)buf->data + pos;
		len = bale_varint_get(&p);
		head = (size_t)(p - ((const unsigned char *)buf->data + pos));
		if (replay_fill(s, buf, &pos, &next, head + len) != 0)
			return 1;
		if (buf->len - pos < head + len) {
			errno = EIO;	/* a record cut short */
			return 1;
		}
		p = (const unsigned char *)buf->data + pos + head;
		pos += head + len;
		rc = fn(ctx, p, (size_t)len);
	}
	return rc;
}
