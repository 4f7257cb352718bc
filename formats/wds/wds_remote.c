/* wds_remote.c - a WebDataset output written into an object store
 * (bale pack -o s3://bucket/out/), with nothing on local disk.
 *
 * Each shard streams into an upload from the writer (bale_swrite: an S3
 * multipart upload, its parts sent while the writer fills the next); the
 * object appears under its name only once whole, then its .bidx and
 * .idx go up, and the shard list last, at publish: an output in the
 * store never looks complete while it is not. S3 has no rename, so a
 * run replacing an output (--force) writes its shards under names of
 * its own ("NAME-g<time>-000000.tar"), replaces the list object (one
 * PUT, atomic for readers), and only then removes the old output's
 * objects; failing or killed before, it leaves the old output whole.
 * A shard whose upload failed is aborted (no parts linger); uploads a
 * killed run left are aborted when the next run opens the output.
 *
 * A closed shard is a checkpoint: the journal (in the bucket, beside the
 * output) records every closed shard's count and size, and a resumed run
 * keeps those the store still holds at that size (their parts' MD5s were
 * checked when they went up) and writes on from there. An open shard is
 * not a checkpoint: an upload cannot be cut back and continued.
 */
#include "wds.h"

#include "wds_list.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- opening ----------------------------------------------------------- */

/* A stem for a replacing run's shards, unlike any run's before. */
static char *wds_remote_stem(const char *name)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return bale_strfmt("%s-g%" PRIx64 "%04x", name,
	    (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000,
	    (unsigned)getpid() & 0xffff);
}

/* What unfinished uploads left of this output's objects goes (a killed
 * run's; one whose CreateMultipartUpload answer was lost). */
static int wds_remote_uploads_go(const struct wds_w *st,
    struct bale_errbuf *err)
{
	char *prefix = bale_strfmt("%s/%s-", st->dir, st->name);
	int rc = prefix ? bale_store_clean(prefix, err) :
	    bale_errbuf_set(err, BALE_ENOMEM, "no memory");

	free(prefix);
	return rc;
}

static int wds_remote_clean(struct bale_writer *w, const struct wds_w *st)
{
	struct bale_errbuf err;
	int rc = wds_remote_uploads_go(st, &err);

	return rc == BALE_OK ? rc : bale_writer_seterr(w, rc, "%s", err.msg);
}

int bale_wds_remote_claim(struct bale_writer *w, struct wds_w *st,
    int replace)
{
	char *list = bale_wds_list_path(st);
	struct bale_store_stat sb;
	struct bale_errbuf err;
	int rc;

	if (!list)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	rc = bale_store_stat(list, &sb, &err);
	if (rc == BALE_OK && !replace)
		rc = bale_writer_seterr(w, BALE_EEXIST, "'%s' exists", list);
	else if (rc == BALE_OK && !(st->stem = wds_remote_stem(st->name)))
		rc = bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	else if (rc == BALE_ENOENT)
		rc = BALE_OK;	/* nothing to replace */
	else if (rc != BALE_OK)
		rc = bale_writer_seterr(w, rc, "%s", err.msg);
	free(list);
	return rc == BALE_OK ? wds_remote_clean(w, st) : rc;
}

/* ---- shards ------------------------------------------------------------ */

int bale_wds_remote_open_shard(struct bale_writer *w, struct wds_w *st,
    const char *tar)
{
	struct bale_errbuf err;
	int rc = bale_swrite_open(&st->sw, tar, &err);

	if (rc != BALE_OK)
		return bale_writer_seterr(w, rc, "%s", err.msg);
	if (bale_wds_out_begin_upload(&st->out, st->sw) != 0)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	return BALE_OK;
}

/* The shard's .bidx (when every sample fits one) and .idx, after it. */
static int wds_remote_indexes(struct bale_writer *w, struct wds_w *st,
    const char *idx_head, size_t head_len)
{
	char *bidx = bale_wds_path(st, st->shard_no, "bidx");
	char *idx = bale_wds_path(st, st->shard_no, "idx");
	struct bale_buf b = BALE_BUF_INIT;
	struct bale_errbuf err;
	int rc = bidx && idx ? BALE_OK : BALE_ENOMEM;

	if (rc == BALE_OK && !st->bix.unfit &&
	    st->bix.count == st->shard_samples) {
		rc = bale_index_render(&st->bix, st->shard_bytes, &b) == 0 ?
		    bale_store_put(bidx, b.data, b.len, &err) : BALE_ENOMEM;
		bale_buf_reset(&b);
	}
	bale_buf_add(&b, idx_head, head_len);
	bale_buf_add(&b, st->idx.data ? st->idx.data : "", st->idx.len);
	if (rc == BALE_OK)
		rc = b.failed || st->idx.failed ? BALE_ENOMEM :
		    bale_store_put(idx, b.data, b.len, &err);
	if (rc == BALE_ENOMEM)
		bale_writer_seterr(w, rc, "no memory");
	else if (rc != BALE_OK)
		bale_writer_seterr(w, rc, "%s", err.msg);
	bale_buf_release(&b);
	free(bidx);
	free(idx);
	return rc;
}

int bale_wds_remote_close_shard(struct bale_writer *w, struct wds_w *st,
    const char *idx_head, size_t head_len)
{
	struct bale_swrite *sw = st->sw;
	uint64_t sent = bale_swrite_bytes(sw);
	struct bale_errbuf err;
	int rc;

	st->sw = NULL;
	if (sent != st->shard_bytes) {
		bale_swrite_abort(sw);
		return bale_writer_seterr(w, BALE_EIO, "'%s': a shard of %"
		    PRIu64 " bytes was written as %" PRIu64, st->tmp,
		    st->shard_bytes, sent);
	}
	rc = bale_swrite_finish(sw, &err);
	if (rc != BALE_OK)
		return bale_writer_seterr(w, rc, "%s", err.msg);
	return wds_remote_indexes(w, st, idx_head, head_len);
}

/* The state a checkpoint leaves in the journal: the closed shards,
 * each's count and size, the stem they are named by. */
void bale_wds_remote_state(const struct wds_w *st, struct bale_buf *b)
{
	bale_buf_printf(b, "{\"shards\":%u", st->shard_no);
	bale_json_kv_str(b, "stem", st->stem ? st->stem : st->name, 0);
	bale_buf_puts(b, ",\"done\":[");
	bale_buf_add(b, st->done.data ? st->done.data : "", st->done.len);
	bale_buf_puts(b, "]}");
}

/* ---- resuming ---------------------------------------------------------- */

/* A closed shard as the journal records it. */
struct wds_done {
	uint64_t count;		/* samples */
	uint64_t size;		/* bytes */
	uint64_t next;		/* the position after its last sample */
};

/* Keep closed shard st->shard_no (@d) when the store holds it at its
 * size. @return 1 kept, 0 not (said in @rs->note), or an error */
static int wds_remote_keep(struct bale_writer *w, struct wds_w *st,
    const struct wds_done *d, struct bale_resume *rs)
{
	uint64_t size = d->size;
	char *tar = bale_wds_path(st, st->shard_no, "tar");
	struct bale_store_stat sb = { 0, 0, "" };
	struct bale_errbuf err;
	int rc;

	if (!tar)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	rc = bale_store_stat(tar, &sb, &err);
	if (rc == BALE_OK && sb.size != size)
		snprintf(rs->note, sizeof(rs->note), "'%.200s' has %" PRIu64
		    " bytes, not %" PRIu64 "; writing shards again from "
		    "%06u", tar, sb.size, size, st->shard_no);
	else if (rc == BALE_ENOENT)
		snprintf(rs->note, sizeof(rs->note), "%.200s; writing shards "
		    "again from %06u", err.msg, st->shard_no);
	free(tar);
	if (rc != BALE_OK && rc != BALE_ENOENT)
		return bale_writer_seterr(w, rc, "%s", err.msg);
	if (rc != BALE_OK || sb.size != size)
		return 0;
	st->shard_samples = d->count;
	st->last_index = d->next - 1;
	bale_wds_list_entry(st, size);
	st->samples += d->count;
	st->shard_no++;
	return 1;
}

/* A [count,size,next] element of the journal's "done" array. */
static int wds_remote_done(const char *e, const char *eend, struct wds_done *d)
{
	uint64_t *field[3] = { &d->count, &d->size, &d->next };
	const char *cur = e, *v, *vend;
	int i;

	for (i = 0; i < 3; i++) {
		v = bale_jsonr_next(&cur, eend, &vend);
		if (!v || bale_jsonr_u64(v, vend, field[i]) != 0)
			return -1;
	}
	return d->next > 0 ? 0 : -1;
}

int bale_wds_remote_resume(struct bale_writer *w, struct wds_w *st,
    const char *state, struct bale_resume *rs)
{
	const char *end = state ? state + strlen(state) : NULL;
	const char *list, *lend, *cur, *e, *eend;
	struct wds_done d;
	int rc = wds_remote_clean(w, st);

	if (rc != BALE_OK)
		return rc;
	rc = 1;

	st->stem = state ? bale_jsonr_key_string(state, end, "stem") : NULL;
	list = state ? bale_jsonr_find(state, end, "done", &lend) : NULL;
	if (st->stem && strcmp(st->stem, st->name) == 0) {
		free(st->stem);
		st->stem = NULL;
	}
	for (cur = list; list && rc == 1 &&
	    (e = bale_jsonr_next(&cur, lend, &eend));) {
		if (wds_remote_done(e, eend, &d) != 0)
			break;
		rc = wds_remote_keep(w, st, &d, rs);
	}
	rs->next = st->shard_no ? st->last_index + 1 : 0;
	return rc < 0 ? rc : BALE_OK;
}

/* ---- publishing --------------------------------------------------------- */

/* After the list is up: every shard object of the output's name that the
 * new list does not name goes (the replaced output's, a killed run's,
 * those numbered past the new last one). */
struct wds_sweep {
	const struct wds_w *st;
	struct bale_buf ours;	/* "STEM-": the new shards' start */
};

static int wds_remote_sweep_one(void *arg, const char *entry, int is_dir)
{
	const struct wds_sweep *sw = arg;
	size_t len = is_dir ? 0 : bale_wds_shard_file(entry,
	    sw->st->name);
	struct bale_errbuf err;
	char *end = NULL;
	unsigned long no;
	char *p;

	if (!len)
		return 0;
	if (strncmp(entry, sw->ours.data, sw->ours.len) == 0) {
		no = strtoul(entry + sw->ours.len, &end, 10);
		if (end == entry + len && no < sw->st->shard_no)
			return 0;	/* the new output's */
	}
	p = bale_strfmt("%s/%s", sw->st->dir, entry);
	if (p)
		(void)bale_store_remove(p, &err);
	free(p);
	return 0;
}

int bale_wds_remote_publish(struct bale_writer *w, struct wds_w *st)
{
	char *list = bale_wds_list_path(st);
	struct wds_sweep sweep = { st, BALE_BUF_INIT };
	struct bale_errbuf err;
	int rc;

	if (!list)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	rc = bale_store_put(list, st->doc.data, st->doc.len, &err);
	if (rc != BALE_OK)
		bale_writer_seterr(w, rc, "%s", err.msg);
	free(list);
	if (rc != BALE_OK)
		return rc;
	st->published = 1;
	/* readers of the old list lose its shards now: S3 has no rename,
	 * and keeping them would keep the old output's bytes for ever */
	bale_buf_printf(&sweep.ours, "%s-", st->stem ? st->stem : st->name);
	if (!sweep.ours.failed)
		(void)bale_store_list(st->dir, wds_remote_sweep_one, &sweep,
		    &err);
	bale_buf_release(&sweep.ours);
	/* the output is up: a failure here fails nothing */
	(void)wds_remote_uploads_go(st, &err);
	return BALE_OK;
}

void bale_wds_remote_release(struct wds_w *st)
{
	bale_swrite_abort(st->sw);
	st->sw = NULL;
	free(st->stem);
	st->stem = NULL;
	bale_buf_release(&st->doc);
	bale_buf_release(&st->done);
}
