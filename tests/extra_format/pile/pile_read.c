/* pile_read.c - a pile read at random: its tail says where the index is,
 * the index where each record is, a record its sample. Every length is
 * checked against the file before it is used. */
#include "pile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int pile_bad(struct bale_reader *r, const struct pile_r *st,
    const char *why)
{
	return bale_reader_seterr(r, BALE_EINPUT, "'%s': %s", st->path,
	    why);
}

static int pile_pread(struct bale_reader *r, struct pile_r *st, void *buf,
    uint64_t n, uint64_t at)
{
	size_t got = 0;

	if (at > st->size || n > st->size - at)
		return pile_bad(r, st, "a length points past the end");
	if (bale_file_pread_full(st->fd, buf, (size_t)n, at, &got) != 0)
		return bale_reader_seterr(r, BALE_EIO, "cannot read "
		    "'%s': %s", st->path, strerror(errno));
	return got == n ? BALE_OK : pile_bad(r, st, "cut short");
}

static uint32_t pile_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/* The head's JSON, kept for info(). */
static int pile_read_head(struct bale_reader *r, struct pile_r *st)
{
	unsigned char head[PILE_MAGIC_LEN + 4];
	uint32_t n;
	int rc = pile_pread(r, st, head, sizeof(head), 0);

	if (rc != BALE_OK)
		return rc;
	if (memcmp(head, PILE_MAGIC, PILE_MAGIC_LEN) != 0)
		return pile_bad(r, st, "not a pile");
	n = pile_get32(head + PILE_MAGIC_LEN);
	st->info = calloc(1, (size_t)n + 1);
	if (!st->info)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	return pile_pread(r, st, st->info, n, sizeof(head));
}

/* The tail: the count, and the index it points to. */
static int pile_read_index(struct bale_reader *r, struct pile_r *st)
{
	unsigned char tail[PILE_TAIL];
	uint64_t at;
	int rc;

	if (st->size < PILE_TAIL)
		return pile_bad(r, st, "cut short");
	rc = pile_pread(r, st, tail, PILE_TAIL, st->size - PILE_TAIL);
	if (rc != BALE_OK)
		return rc;
	if (memcmp(tail + 16, PILE_MAGIC, PILE_MAGIC_LEN) != 0)
		return pile_bad(r, st, "cut short (no tail)");
	st->count = pile_get64(tail);
	at = pile_get64(tail + 8);
	if (st->count > (st->size - PILE_TAIL) / 8 ||
	    at != st->size - PILE_TAIL - st->count * 8)
		return pile_bad(r, st, "its index does not fit the file");
	st->index = malloc(st->count * 8 + 1);
	if (!st->index)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	return pile_pread(r, st, st->index, st->count * 8, at);
}

static int pile_open(struct bale_reader *r, void *priv, const char *path)
{
	struct pile_r *st = priv;
	struct stat sb;
	int rc;

	st->fd = -1;
	st->path = strdup(path);
	if (!st->path)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	st->files[0] = st->path;
	st->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (st->fd < 0 || fstat(st->fd, &sb) != 0)
		return bale_reader_seterr(r, errno == ENOENT ? BALE_ENOENT :
		    BALE_EIO, "cannot open '%s': %s", path,
		    strerror(errno));
	st->size = (uint64_t)sb.st_size;
	rc = pile_read_head(r, st);
	if (rc == BALE_OK)
		rc = pile_read_index(r, st);
	bale_reader_describe(r, st->files, st->info);
	return rc;
}

static int pile_count(struct bale_reader *r, void *priv, uint64_t *n)
{
	(void)r;
	*n = ((struct pile_r *)priv)->count;
	return BALE_OK;
}

/* A u32-long string of the record at *@at into *@s. */
static int pile_string(struct bale_reader *r, struct pile_r *st,
    uint64_t *at, char **s)
{
	unsigned char len[4];
	uint32_t n;
	int rc = pile_pread(r, st, len, 4, *at);

	if (rc != BALE_OK)
		return rc;
	n = pile_get32(len);
	free(*s);
	*s = calloc(1, (size_t)n + 1);
	if (!*s)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	*at += 4 + (uint64_t)n;
	return pile_pread(r, st, *s, n, *at - n);
}

static int pile_get(struct bale_reader *r, void *priv, uint64_t i,
    struct bale_blob *out)
{
	struct pile_r *st = priv;
	uint64_t at = pile_get64(st->index + 8 * i);
	unsigned char fixed[20];
	uint64_t size;
	int rc = pile_string(r, st, &at, &st->key);

	if (rc == BALE_OK)
		rc = pile_pread(r, st, fixed, 8, at);
	if (rc == BALE_OK) {
		out->label = (int64_t)pile_get64(fixed);
		at += 8;
		rc = pile_string(r, st, &at, &st->spath);
	}
	if (rc == BALE_OK)
		rc = pile_pread(r, st, fixed, 12, at);
	if (rc != BALE_OK)
		return rc;
	out->crc32 = pile_get32(fixed);
	out->has_crc32 = 1;
	size = pile_get64(fixed + 4);
	at += 12;
	if (size > st->size - at)
		return pile_bad(r, st, "a sample's size points past the end");
	if (bale_grow(&st->buf, &st->cap, size ? (size_t)size : 1) != 0 ||
	    !(out->data = bale_reader_data_buffer(r, st->buf, (size_t)size)))
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	out->size = (size_t)size;
	out->key = st->key;
	out->path = st->spath[0] ? st->spath : NULL;
	return pile_pread(r, st, (void *)out->data, size, at);
}

static void pile_release(void *priv)
{
	struct pile_r *st = priv;

	if (st->fd >= 0)
		close(st->fd);
	free(st->index);
	free(st->path);
	free(st->info);
	free(st->key);
	free(st->spath);
	free(st->buf);
}

const struct bale_reader_ops bale_pile_reader = {
	.open = pile_open,
	.count = pile_count,
	.get = pile_get,
	.release = pile_release,
};
