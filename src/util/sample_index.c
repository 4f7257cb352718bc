/* sample_index.c - a compact per-sample index beside an output's data
 * (see bale_backend_util.h): written once, whole, under a temporary name;
 * read through a shared read-only map, so every process reading the
 * output shares its pages in the page cache and holds no per-sample
 * memory of its own.
 *
 * Layout (native byte order, recorded): a 64-byte head, then the columns,
 * each starting on an 8-byte boundary:
 *   labels  int32[count]
 *   locs    struct bale_index_loc[count]   (16 bytes each)
 *   keys    uint64[count + 1]: offsets of each key in the key text
 *   text    the keys, NUL-terminated, back to back
 */
#include "bale.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define IX_MAGIC "BALEIX1\n"
#define IX_VERSION 1
#define IX_BYTE_ORDER 0x01020304u

struct ix_head {
	char magic[8];
	uint32_t version;
	uint32_t byte_order;
	uint64_t count;
	uint64_t source_size;	/* bytes of the file the locations are in */
	uint64_t labels_at;
	uint64_t locs_at;
	uint64_t keys_at;
	uint32_t reserved;
	uint32_t crc;		/* crc32 of the bytes before it */
};

_Static_assert(sizeof(struct ix_head) == 64, "the head is 64 bytes");
_Static_assert(sizeof(struct bale_index_loc) == 16, "a loc is 16 bytes");

static uint64_t ix_align(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

void bale_index_build_init(struct bale_index_build *b)
{
	memset(b, 0, sizeof(*b));
}

void bale_index_build_reset(struct bale_index_build *b)
{
	bale_buf_reset(&b->labels);
	bale_buf_reset(&b->locs);
	bale_buf_reset(&b->key_at);
	bale_buf_reset(&b->text);
	b->count = 0;
	b->unfit = 0;
}

void bale_index_build_release(struct bale_index_build *b)
{
	bale_buf_release(&b->labels);
	bale_buf_release(&b->locs);
	bale_buf_release(&b->key_at);
	bale_buf_release(&b->text);
	b->count = 0;
}

void bale_index_add(struct bale_index_build *b, int64_t label,
    const struct bale_index_loc *loc, const char *key)
{
	int32_t l = (int32_t)label;
	uint64_t at = b->text.len;

	if (label < BALE_LABEL_NONE || label > INT32_MAX) {
		b->unfit = 1;	/* no index: readers take the slow way */
		return;
	}
	bale_buf_add(&b->labels, &l, sizeof(l));
	bale_buf_add(&b->locs, loc, sizeof(*loc));
	bale_buf_add(&b->key_at, &at, sizeof(at));
	bale_buf_puts(&b->text, key);
	bale_buf_add(&b->text, "", 1);
	b->count++;
}

/* The head of an index of @count samples whose key text is @text_len
 * bytes (its crc set). */
static void ix_head_fill(struct ix_head *h, uint64_t count,
    uint64_t source_size)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, IX_MAGIC, sizeof(h->magic));
	h->version = IX_VERSION;
	h->byte_order = IX_BYTE_ORDER;
	h->count = count;
	h->source_size = source_size;
	h->labels_at = sizeof(*h);
	h->locs_at = h->labels_at + ix_align(count * 4);
	h->keys_at = h->locs_at + count * sizeof(struct bale_index_loc);
	h->crc = bale_crc32(h, offsetof(struct ix_head, crc));
}

/* Column @col and the zeros that align what follows, as two pieces. */
static int ix_column_pieces(struct iovec *pieces, const struct bale_buf *col)
{
	static char zeros[8];

	pieces[0].iov_base = col->data;
	pieces[0].iov_len = col->len;
	pieces[1].iov_base = zeros;
	pieces[1].iov_len = (size_t)(ix_align(col->len) - col->len);
	return 2;
}

/* The file's pieces, @h and @end filled: 9 of them. @return 9, or -1
 * with errno */
static int ix_pieces(const struct bale_index_build *b, uint64_t source_size,
    struct ix_head *h, uint64_t *end, struct iovec *pieces)
{
	int n = 0;

	if (b->unfit || b->labels.failed || b->locs.failed ||
	    b->key_at.failed || b->text.failed) {
		errno = b->unfit ? EINVAL : ENOMEM;
		return -1;
	}
	ix_head_fill(h, b->count, source_size);
	*end = b->text.len;
	pieces[n].iov_base = h;	/* written from the columns as they
				 * are, not copied into one buffer */
	pieces[n++].iov_len = sizeof(*h);
	n += ix_column_pieces(&pieces[n], &b->labels);
	n += ix_column_pieces(&pieces[n], &b->locs);
	n += ix_column_pieces(&pieces[n], &b->key_at);
	pieces[n].iov_base = end;
	pieces[n++].iov_len = sizeof(*end);
	pieces[n].iov_base = b->text.data;
	pieces[n++].iov_len = b->text.len;
	return n;
}

int bale_index_write(struct bale_index_build *b, const char *path,
    uint64_t source_size, int sync)
{
	struct iovec pieces[9];
	struct ix_head h;
	uint64_t end;
	int n = ix_pieces(b, source_size, &h, &end, pieces);

	return n < 0 ? -1 : bale_file_write_atomicv(path, pieces, n, sync);
}

int bale_index_render(const struct bale_index_build *b, uint64_t source_size,
    struct bale_buf *out)
{
	struct iovec pieces[9];
	struct ix_head h;
	uint64_t end;
	int n = ix_pieces(b, source_size, &h, &end, pieces);
	int i;

	for (i = 0; i < n; i++)
		bale_buf_add(out, pieces[i].iov_base, pieces[i].iov_len);
	if (n >= 0 && out->failed)
		errno = ENOMEM;
	return n < 0 || out->failed ? -1 : 0;
}

/* ---- written as it goes, for a count known first ------------------- */

int bale_index_stream_open(struct bale_index_stream *s, const char *path,
    uint64_t count, size_t key_width)
{
	struct ix_head h;

	memset(s, 0, sizeof(*s));
	ix_head_fill(&h, count, 0);
	s->count = count;
	s->width = key_width;
	s->labels_at = h.labels_at;
	s->locs_at = h.locs_at;
	s->keys_at = h.keys_at;
	s->text_at = h.keys_at + (count + 1) * 8;
	s->path = bale_strfmt("%s%s", path, BALE_PARTIAL);
	if (!s->path) {
		errno = ENOMEM;
		return -1;
	}
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return s->fd < 0 ? -1 : 0;
}

/* @n bytes at @p to the stream's file at @off. */
static int ix_stream_write(struct bale_index_stream *s, const void *p,
    size_t n, uint64_t off)
{
	const char *c = p;
	ssize_t put;

	while (n > 0) {
		put = pwrite(s->fd, c, n, (off_t)off);
		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0)
			return -1;
		c += put;
		n -= (size_t)put;
		off += (uint64_t)put;
	}
	return 0;
}

int bale_index_stream_put(struct bale_index_stream *s, uint64_t first,
    uint64_t n, const int32_t *labels, const struct bale_index_loc *locs,
    const char *keys)
{
	uint64_t at[256];
	uint64_t i, j, k;

	if (ix_stream_write(s, labels, n * 4, s->labels_at + first * 4) ||
	    ix_stream_write(s, locs, n * sizeof(*locs),
	    s->locs_at + first * sizeof(*locs)) ||
	    ix_stream_write(s, keys, n * s->width,
	    s->text_at + first * s->width))
		return -1;
	for (i = 0; i < n; i += k) {
		k = n - i < 256 ? n - i : 256;
		for (j = 0; j < k; j++)
			at[j] = (first + i + j) * s->width;
		if (ix_stream_write(s, at, k * 8, s->keys_at +
		    (first + i) * 8))
			return -1;
	}
	return 0;
}

int bale_index_stream_close(struct bale_index_stream *s,
    uint64_t source_size, int sync)
{
	uint64_t end = s->count * s->width;
	struct ix_head h;
	char *final = strndup(s->path, strlen(s->path) - strlen(BALE_PARTIAL));
	int rc;

	ix_head_fill(&h, s->count, source_size);
	rc = !final || ix_stream_write(s, &end, 8, s->keys_at +
	    s->count * 8) || ix_stream_write(s, &h, sizeof(h), 0) ||
	    (sync && fsync(s->fd) != 0) ? -1 : 0;
	if (close(s->fd) != 0)
		rc = -1;
	s->fd = -1;
	if (rc == 0)
		rc = bale_file_publish(final, sync);
	free(final);
	if (rc != 0)
		bale_index_stream_abort(s);
	free(s->path);
	s->path = NULL;
	return rc;
}

void bale_index_stream_abort(struct bale_index_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->path)
		unlink(s->path);
	free(s->path);
	s->path = NULL;
}

/* 1 when the head describes columns that fit in @len bytes. */
static int ix_head_fits(const struct ix_head *h, uint64_t len)
{
	uint64_t n = h->count;

	if (n > len / 16 || h->labels_at != sizeof(*h) ||
	    h->locs_at != h->labels_at + ix_align(n * 4) ||
	    h->keys_at != h->locs_at + n * 16)
		return 0;
	return h->keys_at + (n + 1) * 8 <= len;
}

static int ix_check(struct bale_index *ix, uint64_t len, uint64_t count,
    uint64_t source_size)
{
	const struct ix_head *h = ix->map;
	uint64_t text_at;

	if (len < sizeof(*h) || memcmp(h->magic, IX_MAGIC, 8) != 0 ||
	    h->version != IX_VERSION || h->byte_order != IX_BYTE_ORDER ||
	    h->crc != bale_crc32(h, offsetof(struct ix_head, crc)) ||
	    !ix_head_fits(h, len))
		return BALE_EINVAL;
	if (h->count != count || h->source_size != source_size)
		return BALE_EINVAL;	/* stale: written for other data */
	ix->count = h->count;
	ix->labels = (const int32_t *)((const char *)ix->map + h->labels_at);
	ix->locs = (const struct bale_index_loc *)((const char *)ix->map +
	    h->locs_at);
	ix->key_at = (const uint64_t *)((const char *)ix->map + h->keys_at);
	text_at = h->keys_at + (h->count + 1) * 8;
	ix->key_text = (const char *)ix->map + text_at;
	ix->text_len = len - text_at;
	return BALE_OK;
}

const char *bale_index_key(const struct bale_index *ix, uint64_t i)
{
	uint64_t at = ix->key_at[i];
	uint64_t end = ix->key_at[i + 1];

	/* checked here, not at open, so opening stays O(1): the key must
	 * lie inside the text and end in its own NUL */
	if (at >= end || end > ix->text_len || ix->key_text[end - 1] != '\0')
		return NULL;
	return ix->key_text + at;
}

int bale_index_open(struct bale_index *ix, const char *path, uint64_t count,
    uint64_t source_size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	memset(ix, 0, sizeof(*ix));
	if (fd < 0)
		return errno == ENOENT ? BALE_ENOENT : BALE_EIO;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(struct ix_head)) {
		close(fd);
		return BALE_EINVAL;
	}
	ix->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (ix->map == MAP_FAILED) {
		close(fd);
		ix->map = NULL;
		return BALE_EIO;
	}
	ix->fd = fd;
	ix->maplen = (size_t)st.st_size;
	/* a get touches one entry: no read-around of megabytes of columns
	 * it does not need; labels in bulk are read apart, with pread */
	madvise(ix->map, ix->maplen, MADV_RANDOM);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	rc = ix_check(ix, (uint64_t)st.st_size, count, source_size);
	if (rc != BALE_OK)
		bale_index_close(ix);
	return rc;
}

int bale_index_adopt(struct bale_index *ix, void *data, size_t len,
    uint64_t count, uint64_t source_size,
    void (*release)(void *data, void *arg), void *arg)
{
	int rc;

	memset(ix, 0, sizeof(*ix));
	ix->map = data;
	ix->maplen = len;
	ix->fd = -1;
	ix->release = release;
	ix->release_arg = arg;
	rc = ix_check(ix, (uint64_t)len, count, source_size);
	if (rc != BALE_OK)
		bale_index_close(ix);
	return rc;
}

int bale_index_labels(const struct bale_index *ix, uint64_t first,
    uint64_t n, int64_t *out)
{
	const struct ix_head *h = ix->map;
	uint64_t i;

	if (ix->fd < 0) {	/* in memory: nothing to read */
		for (i = 0; i < n; i++)
			out[i] = ix->labels[first + i];
		return BALE_OK;
	}
	return bale_file_pread_int32s(ix->fd, h->labels_at + first * 4, n,
	    out) == 0 ? BALE_OK : BALE_EIO;
}

void bale_index_let_go(const struct bale_index *ix)
{
	/* shared and read-only: nothing is lost (memory of its own is
	 * all there is of an index read from a remote store) */
	if (ix->map && ix->fd >= 0)
		madvise(ix->map, ix->maplen, MADV_DONTNEED);
}

void bale_index_close(struct bale_index *ix)
{
	if (ix->map && ix->fd >= 0) {
		munmap(ix->map, ix->maplen);
		close(ix->fd);
	} else if (ix->release) {
		ix->release(ix->map, ix->release_arg);
	} else {
		free(ix->map);
	}
	memset(ix, 0, sizeof(*ix));
}
