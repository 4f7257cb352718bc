/* wds_write.c - the WebDataset writer: plain ustar shards (wds_out.c),
 * each sample's members back to back, the .idx lines and the shard list
 * built as it goes (see wds.c for the layout). */
#include "wds.h"

#include "wds_idx.h"
#include "wds_list.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static uint64_t wds_padded(uint64_t n)
{
	return (n + WDS_BLOCK - 1) / WDS_BLOCK * WDS_BLOCK;
}

static uint64_t wds_member_bytes(uint64_t n)
{
	return WDS_BLOCK + wds_padded(n);
}

/* ---- options and open ---------------------------------------------------- */

static int wds_direct_option(struct bale_writer *w, struct wds_w *st,
    const char *value)
{
	if (strcmp(value, "auto") == 0)
		st->direct_io = WDS_DIRECT_AUTO;
	else if (strcmp(value, "1") == 0)
		st->direct_io = WDS_DIRECT_ON;
	else if (strcmp(value, "0") == 0)
		st->direct_io = WDS_DIRECT_OFF;
	else
		return bale_writer_seterr(w, BALE_EINVAL, "direct_io "
		    "'%s' is not auto, 1 or 0", value);
	return BALE_OK;
}

static int wds_option(struct bale_writer *w, void *priv, const char *key,
    const char *value)
{
	struct wds_w *st = priv;
	char *end;

	if (strcmp(key, "shard_size") == 0) {
		if (bale_parse_size(value, &st->max_bytes) != BALE_OK)
			return bale_writer_seterr(w, BALE_EINVAL,
			    "shard_size '%s' is not a size", value);
		if (st->max_bytes == 0)	/* it would mean no limit */
			return bale_writer_seterr(w, BALE_EINVAL,
			    "shard_size must be more than 0");
		return BALE_OK;
	}
	if (strcmp(key, "shard_count") == 0) {
		errno = 0;
		st->max_count = strtoull(value, &end, 10);
		if (errno || end == value || *end || value[0] == '-')
			return bale_writer_seterr(w, BALE_EINVAL,
			    "shard_count '%s' is not a count", value);
		if (st->max_count == 0)
			return bale_writer_seterr(w, BALE_EINVAL,
			    "shard_count must be more than 0");
		return BALE_OK;
	}
	if (strcmp(key, "fsync") == 0) {
		st->sync = strcmp(value, "0") != 0;
		return BALE_OK;
	}
	if (strcmp(key, "direct_io") == 0)
		return wds_direct_option(w, st, value);
	return BALE_ENOOPT;
}

/* An existing shard list means a complete output: replace it only when
 * asked, and remove it first so a failed rewrite never looks complete. */
static int wds_claim_output(struct bale_writer *w, struct wds_w *st,
    int replace)
{
	char *list = bale_wds_list_path(st);
	struct stat sb;
	int rc = BALE_OK;

	if (!list)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	if (stat(list, &sb) != 0)
		rc = BALE_OK;	/* nothing to claim */
	else if (!replace)
		rc = bale_writer_seterr(w, BALE_EEXIST,
		    "'%s' exists", list);
	else if (unlink(list) != 0)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "cannot remove '%s': %s", list, strerror(errno));
	free(list);
	return rc;
}

static int wds_open(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds)
{
	struct wds_w *st = priv;
	int rc = bale_wds_init(w, st, dir, ds);

	if (rc != BALE_OK)
		return rc;
	return st->remote ? bale_wds_remote_claim(w, st, ds->replace) :
	    wds_claim_output(w, st, ds->replace);
}

/* ---- shards -------------------------------------------------------------- */

/* The shard's file, "*.partial" until published. */
static int wds_create_shard(struct bale_writer *w, struct wds_w *st)
{
	st->fd = open(st->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (st->fd < 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "cannot create '%s': %s", st->tmp, strerror(errno));
	if (bale_wds_out_begin(&st->out, st->fd, st->direct_io ==
	    WDS_DIRECT_ON || (st->direct_io == WDS_DIRECT_AUTO &&
	    st->run_bytes >= WDS_DIRECT_AFTER)) != 0)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	return BALE_OK;
}

static int wds_open_shard(struct bale_writer *w, struct wds_w *st)
{
	char *final = bale_wds_path(st, st->shard_no, "tar");
	int rc;

	/* in an object store, the upload is named so from the start: the
	 * object appears there when it is whole */
	st->tmp = final && !st->remote ? bale_strfmt("%s%s", final,
	    BALE_PARTIAL) : final;
	if (st->tmp != final)
		free(final);
	if (!st->tmp)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	rc = st->remote ? bale_wds_remote_open_shard(w, st, st->tmp) :
	    wds_create_shard(w, st);
	if (rc != BALE_OK)
		return rc;
	st->shard_open = 1;
	st->shard_samples = 0;
	st->shard_bytes = 0;
	st->ckpt_bytes = 0;
	st->pend_bytes = 0;
	bale_buf_reset(&st->idx);
	bale_index_build_reset(&st->bix);
	return BALE_OK;
}

/* The first line of the shard's .idx, into @head. @return its length */
static size_t wds_idx_head(const struct wds_w *st, char head[64])
{
	return (size_t)snprintf(head, 64, "v1.2 %" PRIu64 "\n",
	    st->shard_samples);
}

/* Write the shard's .idx, then move the tar to its final name. */
static int wds_publish_shard(struct bale_writer *w, struct wds_w *st)
{
	char *idx = bale_wds_path(st, st->shard_no, "idx");
	char *tar = bale_wds_path(st, st->shard_no, "tar");
	char head[64];
	struct iovec pieces[2];
	int rc = BALE_OK;

	pieces[0].iov_base = head;
	pieces[0].iov_len = wds_idx_head(st, head);
	pieces[1].iov_base = st->idx.data;
	pieces[1].iov_len = st->idx.len;
	if (!idx || !tar || st->idx.failed)
		rc = bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	else if (bale_wds_bidx_publish(st, st->shard_bytes) != 0)
		rc = bale_writer_seterr(w, BALE_EIO, "cannot write the "
		    "index of '%s': %s", tar, strerror(errno));
	else if (bale_file_write_atomicv(idx, pieces, 2, st->sync) != 0)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "cannot write '%s': %s", idx, strerror(errno));
	else if (rename(st->tmp, tar) != 0)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "cannot rename '%s': %s", st->tmp, strerror(errno));
	free(idx);
	free(tar);
	return rc;
}

/* Close the file, check its size against our offsets, publish it. */
static int wds_close_file(struct bale_writer *w, struct wds_w *st)
{
	struct stat sb;

	if (fstat(st->fd, &sb) != 0 || (uint64_t)sb.st_size != st->shard_bytes)
		return bale_writer_seterr(w, BALE_EIO,
		    "'%s' has %lld bytes, expected %" PRIu64, st->tmp,
		    (long long)sb.st_size, st->shard_bytes);
	if ((st->sync && fsync(st->fd) != 0) || close(st->fd) != 0) {
		st->fd = -1;
		return bale_writer_seterr(w, BALE_EIO,
		    "cannot write '%s': %s", st->tmp, strerror(errno));
	}
	st->fd = -1;
	return wds_publish_shard(w, st);
}

/* The checkpoint a closed shard is, for the journal. */
static void wds_shard_reached(struct bale_writer *w, struct wds_w *st)
{
	struct bale_buf b = BALE_BUF_INIT;
	char state[32];

	snprintf(state, sizeof(state), "{\"shards\":%u}", st->shard_no);
	if (st->remote)
		bale_wds_remote_state(st, &b);
	bale_writer_reached(w, st->last_index + 1, !st->remote ? state :
	    b.failed ? NULL : b.data);
	bale_buf_release(&b);
}

/* Close the tar, check its size against our offsets, publish it. */
static int wds_close_shard(struct bale_writer *w, struct wds_w *st)
{
	char head[64];
	int rc;

	st->shard_open = 0;
	if (bale_wds_out_end(&st->out) != 0)
		return bale_writer_seterr(w, BALE_EIO, "cannot finish '%s': "
		    "%s", st->tmp, bale_wds_out_why(&st->out));
	st->shard_bytes += WDS_END_BYTES;
	rc = st->remote ? bale_wds_remote_close_shard(w, st, head,
	    wds_idx_head(st, head)) : wds_close_file(w, st);
	if (rc != BALE_OK)
		return rc;
	bale_wds_list_entry(st, st->shard_bytes);
	st->run_bytes += st->shard_bytes;
	free(st->tmp);
	st->tmp = NULL;
	st->ckpt_bytes = 0;
	st->pend_bytes = 0;
	st->shard_no++;
	wds_shard_reached(w, st);
	return BALE_OK;
}

/* ---- samples ------------------------------------------------------------- */

static int wds_member(struct bale_writer *w, struct wds_w *st,
    const struct bale_sample *s, const char *ext, const void *data, size_t n)
{
	size_t k = strlen(s->key), e = strlen(ext);
	char name[BALE_WDS_OUT_NAME_MAX + 1];

	if (k + 1 + e > BALE_WDS_OUT_NAME_MAX)
		return bale_writer_seterr(w, BALE_EINVAL, "the member "
		    "name '%s.%s' is too long for a ustar header", s->key, ext);
	if ((uint64_t)n > BALE_WDS_OUT_SIZE_MAX)
		return bale_writer_seterr(w, BALE_EINVAL, "'%s.%s' is "
		    "over 8 GiB, more than a ustar header holds", s->key, ext);
	memcpy(name, s->key, k);
	name[k] = '.';
	memcpy(name + k + 1, ext, e + 1);
	if (bale_wds_out_member(&st->out, name, data, n) != 0)
		return bale_writer_seterr(w, BALE_EIO, "'%s' in '%s': %s",
		    name, st->tmp, bale_wds_out_why(&st->out));
	bale_wds_idx_add(&st->idx, ext, st->shard_bytes + WDS_BLOCK,
	    (uint64_t)n, name);
	st->member_end = st->shard_bytes + WDS_BLOCK + (uint64_t)n;
	st->shard_bytes += wds_member_bytes((uint64_t)n);
	return BALE_OK;
}

/* Start a new shard if this sample would overflow the open one. */
static int wds_make_room(struct bale_writer *w, struct wds_w *st,
    uint64_t need)
{
	int rc;

	if (st->shard_open && ((st->max_count &&
	    st->shard_samples >= st->max_count) ||
	    (st->max_bytes &&
	     st->shard_bytes + need + WDS_END_BYTES > st->max_bytes))) {
		rc = wds_close_shard(w, st);
		if (rc != BALE_OK)
			return rc;
	}
	return st->shard_open ? BALE_OK : wds_open_shard(w, st);
}

static int wds_put(struct bale_writer *w, void *priv,
    const struct bale_sample *s)
{
	struct wds_w *st = priv;
	uint64_t image_at = 0;
	char cls[BALE_FMT_MAX];
	size_t n;
	int rc;

	n = bale_fmt_i64(cls, s->label);
	bale_meta_json(&st->meta, s);
	if (st->meta.failed)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	rc = wds_make_room(w, st, wds_member_bytes(s->size) +
	    wds_member_bytes((uint64_t)n) + wds_member_bytes(st->meta.len));
	image_at = st->shard_bytes + WDS_BLOCK;	/* the image's data */
	bale_wds_out_hold(&st->out, bale_writer_holding(w));
	if (rc == BALE_OK)
		rc = wds_member(w, st, s, s->ext, s->data, s->size);
	if (rc == BALE_OK)
		rc = wds_member(w, st, s, "cls", cls, (size_t)n);
	if (rc == BALE_OK)
		rc = wds_member(w, st, s, "json", st->meta.data,
		    st->meta.len);
	if (rc != BALE_OK)
		return rc;
	bale_wds_index_sample(st, s->label, s->key, s->size, image_at);
	bale_buf_add(&st->idx, "\n", 1);
	st->shard_samples++;
	st->samples++;
	st->last_index = s->index;
	/* an upload cannot be cut back: only closed shards are kept */
	return st->remote ? BALE_OK : bale_wds_partial_checkpoint(w, st);
}

/* ---- finish and release -------------------------------------------------- */

/* Remove shard @no's tar and idx; returns how many existed. */
static int wds_unlink_shard(const struct wds_w *st, unsigned no)
{
	static const char *const exts[] = { "tar", "idx", "bidx" };
	int gone = 0;
	size_t i;
	char *p;

	for (i = 0; i < 3; i++) {
		p = bale_wds_path(st, no, exts[i]);
		if (p && unlink(p) == 0)
			gone++;
		free(p);
	}
	return gone;
}

/* Remove shards numbered from @first up, as left by an earlier run. */
static void wds_remove_shards(const struct wds_w *st, unsigned first)
{
	unsigned no;

	for (no = first; wds_unlink_shard(st, no) > 0; no++)
		;
}

/* Finished shards stay: each is a checkpoint a resumed run keeps. */
static void wds_remove_partial_list(const struct wds_w *st)
{
	char *p;

	p = bale_strfmt("%s/%s" WDS_LIST_SUFFIX "%s", st->dir, st->name,
	    BALE_PARTIAL);
	if (p)
		unlink(p);
	free(p);
}

static int wds_write_list(struct bale_writer *w, struct wds_w *st)
{
	struct bale_buf b = BALE_BUF_INIT;
	char *path = bale_wds_list_path(st);
	int rc = BALE_OK;

	bale_wds_list_render(&b, st->name, &st->list, st->samples,
	    st->classes.data, st->classes.len);
	if (st->remote && !b.failed && !st->list.failed) {
		st->doc = b;	/* put up at publish */
		free(path);
		return BALE_OK;
	}
	if (!path || b.failed || st->list.failed)
		rc = bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	else if (bale_file_write_partial(path, b.data, b.len, st->sync) != 0)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "cannot write '%s': %s", path, strerror(errno));
	bale_buf_release(&b);
	free(path);
	return rc;
}

/* The shard list takes its final name: the output is complete. */
static int wds_publish(struct bale_writer *w, void *priv)
{
	struct wds_w *st = priv;
	char *path;
	int rc = BALE_OK;

	if (st->remote)
		return bale_wds_remote_publish(w, st);
	path = bale_wds_list_path(st);
	if (!path)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	if (bale_file_publish(path, st->sync) != 0)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "cannot publish '%s': %s", path, strerror(errno));
	else
		st->published = 1;
	free(path);
	return rc;
}

static int wds_finish(struct bale_writer *w, void *priv)
{
	struct wds_w *st = priv;
	int rc;

	if (st->shard_open) {
		rc = wds_close_shard(w, st);
		if (rc != BALE_OK)
			return rc;
	}
	if (!st->remote)	/* in a store: once the list is up */
		wds_remove_shards(st, st->shard_no);
	return wds_write_list(w, st);
}

static void wds_release(void *priv)
{
	struct wds_w *st = priv;

	bale_wds_out_release(&st->out);	/* its thread may write to fd */
	bale_wds_remote_release(st);	/* an upload not finished goes */
	if (st->tmp && !st->remote) {
		if (st->fd >= 0)
			close(st->fd);
		if (!st->ckpt_bytes)	/* else a checkpoint: kept, for a
					 * resumed run to cut back to */
			unlink(st->tmp);
	}
	/* a run that did not publish leaves no half-written shard list */
	if (!st->published && st->dir && st->name && !st->remote)
		wds_remove_partial_list(st);
	free(st->tmp);
	free(st->dir);
	free(st->name);
	bale_buf_release(&st->idx);
	bale_index_build_release(&st->bix);
	bale_buf_release(&st->list);
	bale_buf_release(&st->classes);
	bale_buf_release(&st->meta);
	bale_buf_release(&st->scratch);
}

/* The images put since the last settle, gathered by reference, are
 * written: the caller frees them next. */
static int wds_settle(struct bale_writer *w, void *priv)
{
	struct wds_w *st = priv;

	if (st->shard_open && bale_wds_out_settle(&st->out) != 0)
		return bale_writer_seterr(w, BALE_EIO, "cannot write '%s': %s",
		    st->tmp, bale_wds_out_why(&st->out));
	return BALE_OK;
}

const struct bale_writer_ops bale_wds_writer = {
	.option = wds_option,
	.open = wds_open,
	.put = wds_put,
	.finish = wds_finish,
	.publish = wds_publish,
	.release = wds_release,
	.resume = bale_wds_resume,
	.settle = wds_settle,
};
