/* wds_partial.c - a shard still being written is a checkpoint too.
 *
 * Every WDS_CKPT_EVERY bytes of an open shard, at the end of a sample,
 * the bytes so far are handed to the file and the writer reports a
 * checkpoint: the shards closed before, and the open one's length and
 * sample count. A run killed then keeps "NAME-NNNNNN.tar.partial"; the
 * resumed run cuts it back to that length, reads its members back (each
 * sample checked against the crc32 its .json holds) to rebuild the
 * shard's .idx lines and compact index, and carries on appending, so
 * the shard ends byte for byte as an uninterrupted run's would. Without
 * this a run whose only shard never closed redid all its work.
 *
 * Written past the page cache (wds_dio.h), the bytes reach the file a
 * whole buffer at a time: the checkpoint waits until they cover the end
 * of the sample it names. A resumed shard is written through the cache
 * (an O_DIRECT write must start on a block).
 */
#include "wds.h"

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WDS_KEY_DIGITS 10

static void wds_partial_reached(struct bale_writer *w, struct wds_w *st,
    uint64_t bytes, uint64_t samples, uint64_t index)
{
	char state[96];

	snprintf(state, sizeof(state), "{\"shards\":%u,\"partial_bytes\":%"
	    PRIu64 ",\"partial_samples\":%" PRIu64 "}", st->shard_no, bytes,
	    samples);
	st->ckpt_bytes = bytes;
	bale_writer_reached(w, index + 1, state);
}

int bale_wds_partial_checkpoint(struct bale_writer *w, struct wds_w *st)
{
	if (st->pend_bytes && bale_wds_out_on_disk(&st->out) >=
	    st->pend_bytes) {
		wds_partial_reached(w, st, st->pend_bytes, st->pend_samples,
		    st->pend_index);
		st->pend_bytes = 0;
	}
	if (st->pend_bytes || st->shard_bytes - st->ckpt_bytes <
	    WDS_CKPT_EVERY)
		return BALE_OK;
	if (st->out.direct) {	/* taken once the file holds it */
		st->pend_bytes = st->shard_bytes;
		st->pend_samples = st->shard_samples;
		st->pend_index = st->last_index;
		return BALE_OK;
	}
	if (bale_wds_out_push(&st->out) != 0 ||
	    (st->sync && fdatasync(st->fd) != 0))
		return bale_writer_seterr(w, BALE_EIO, "cannot write "
		    "'%s': %s", st->tmp, strerror(errno));
	wds_partial_reached(w, st, st->shard_bytes, st->shard_samples,
	    st->last_index);
	return BALE_OK;
}

/* ---- reading a partial shard back ---------------------------------- */

/* What the member being read back belongs to. */
struct partial_sample {
	char key[WDS_KEY_DIGITS + 1];
	uint64_t image_at;	/* its image's data offset */
	uint64_t image_size;
	uint32_t image_crc;
	int64_t label;
	int have;		/* members met: 1 image, 2 cls (the .json
				 * closes it) */
};

struct partial_scan {
	int fd;
	uint64_t end;		/* the checkpoint's length */
	struct bale_buf data;	/* the member's bytes */
	struct partial_sample s;
	uint64_t samples;
	uint64_t last_index;
};

/* The header at @at: the member's name and size. @return 0, or -1 when
 * it is not one of ours, or runs past the checkpoint's length */
static int partial_header(struct partial_scan *p, uint64_t at, char *name,
    uint64_t *size)
{
	unsigned char h[WDS_BLOCK];
	char digits[12];
	char *end;

	if (pread(p->fd, h, sizeof(h), (off_t)at) != (ssize_t)sizeof(h) ||
	    memcmp(h + 257, "ustar", 5) != 0 || !memchr(h, '\0', 100))
		return -1;
	memcpy(name, h, 100);
	memcpy(digits, h + 124, 11);
	digits[11] = '\0';
	*size = strtoull(digits, &end, 8);
	if (end != digits + 11)
		return -1;
	return at + WDS_BLOCK + *size <= p->end ? 0 : -1;
}

/* The sample whose last member (.json, @json) was just read: checked,
 * then into the shard's .idx line ends and compact index. */
static int partial_close(struct wds_w *st, struct partial_scan *p,
    const char *json, size_t n, uint64_t json_end)
{
	uint32_t crc = 0;
	char *path = NULL;
	int has = 0;

	bale_meta_parse(json, n, &path, &crc, &has);
	free(path);
	if (p->s.have != 3 || !has || crc != p->s.image_crc)
		return -1;
	st->member_end = json_end;
	bale_wds_index_sample(st, p->s.label, p->s.key, p->s.image_size,
	    p->s.image_at);
	bale_buf_add(&st->idx, "\n", 1);
	p->samples++;
	p->last_index = strtoull(p->s.key, NULL, 10);
	memset(&p->s, 0, sizeof(p->s));
	return 0;
}

/* Member @name of @size bytes, its header at @at: read, and folded into
 * the sample it belongs to. @return 0, or -1 when it is not as written */
static int partial_member(struct wds_w *st, struct partial_scan *p,
    const char *name, uint64_t at, uint64_t size)
{
	const char *dot = strchr(name, '.');
	uint64_t data_at = at + WDS_BLOCK;

	if (!dot || dot - name != WDS_KEY_DIGITS || size > SIZE_MAX)
		return -1;
	if (!p->s.have)
		memcpy(p->s.key, name, WDS_KEY_DIGITS);
	else if (memcmp(p->s.key, name, WDS_KEY_DIGITS) != 0)
		return -1;
	bale_buf_reset(&p->data);
	bale_buf_zeros(&p->data, (size_t)size);
	if (p->data.failed || (size && pread(p->fd, p->data.data, (size_t)size,
	    (off_t)data_at) != (ssize_t)size))
		return -1;
	bale_wds_idx_add(&st->idx, dot + 1, data_at, size, name);
	if (strcmp(dot + 1, "json") == 0)
		return partial_close(st, p, p->data.data, (size_t)size,
		    data_at + size);
	if (strcmp(dot + 1, "cls") == 0) {
		p->s.have |= 2;
		return bale_meta_label(p->data.data, (size_t)size,
		    &p->s.label);
	}
	p->s.have |= 1;
	p->s.image_at = data_at;
	p->s.image_size = size;
	p->s.image_crc = bale_crc32(p->data.data, (size_t)size);
	return 0;
}

/* Every member in [0, p->end), which must end on a sample. */
static int partial_scan_all(struct wds_w *st, struct partial_scan *p)
{
	char name[101];
	uint64_t at = 0;
	uint64_t size;

	while (at < p->end) {
		if (partial_header(p, at, name, &size) != 0 ||
		    partial_member(st, p, name, at, size) != 0)
			return -1;
		at += WDS_BLOCK + (size + WDS_BLOCK - 1) / WDS_BLOCK *
		    WDS_BLOCK;
	}
	return at == p->end && !p->s.have ? 0 : -1;
}

/* The partial shard @path, cut back to @bytes holding @samples: read
 * back into the open shard's state, and open for the rest. */
static int partial_reopen(struct wds_w *st, char *path, uint64_t bytes,
    uint64_t samples)
{
	struct partial_scan p;
	int ok;

	memset(&p, 0, sizeof(p));
	p.end = bytes;
	p.data = (struct bale_buf)BALE_BUF_INIT;
	p.fd = open(path, O_RDWR | O_CLOEXEC);
	ok = p.fd >= 0 && ftruncate(p.fd, (off_t)bytes) == 0 &&
	    partial_scan_all(st, &p) == 0 && p.samples == samples &&
	    lseek(p.fd, (off_t)bytes, SEEK_SET) == (off_t)bytes &&
	    bale_wds_out_begin(&st->out, p.fd, 0) == 0;
	st->out.written = bytes;	/* appended after what is there */
	bale_buf_release(&p.data);
	if (!ok) {
		if (p.fd >= 0)
			close(p.fd);
		bale_buf_reset(&st->idx);
		bale_index_build_reset(&st->bix);
		return -1;
	}
	st->fd = p.fd;
	st->tmp = path;
	st->shard_open = 1;
	st->shard_bytes = bytes;
	st->shard_samples = samples;
	st->samples += samples;
	st->last_index = p.last_index;
	st->ckpt_bytes = bytes;
	return 0;
}

int bale_wds_partial_resume(struct bale_writer *w, struct wds_w *st,
    const char *state, struct bale_resume *rs)
{
	const char *end = state ? state + strlen(state) : NULL;
	uint64_t bytes = 0;
	uint64_t samples = 0;
	char *tar;
	char *path;

	if (!state || bale_jsonr_key_u64(state, end, "partial_bytes",
	    &bytes) != 0 || bale_jsonr_key_u64(state, end,
	    "partial_samples", &samples) != 0 || !bytes || !samples)
		return BALE_OK;	/* none: the shard starts afresh */
	tar = bale_wds_path(st, st->shard_no, "tar");
	path = tar ? bale_strfmt("%s%s", tar, BALE_PARTIAL) : NULL;
	free(tar);
	if (!path)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	if (partial_reopen(st, path, bytes, samples) == 0)
		return BALE_OK;	/* the path is the open shard's now */
	snprintf(rs->note, sizeof(rs->note), "'%.150s' does not hold "
	    "the %" PRIu64 " samples its checkpoint names; writing it again",
	    path, samples);
	free(path);
	return BALE_OK;
}
