/* lmdb_write.c - the LMDB writer: options, the environment, samples put
 * in key order with the map grown ahead of need, the metadata records,
 * publishing (the on-disk layout: format.scd; the map and commit policy:
 * lmdb_write.h).
 */
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "lmdb_caffe.h"
#include "lmdb_pages.h"
#include "lmdb_write.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- options and open ---------------------------------------------------- */

static int lmdb_bool(const char *v)
{
	return strcmp(v, "0") != 0 && strcmp(v, "no") != 0;
}

static int lmdb_option(struct bale_writer *w, void *priv, const char *key,
    const char *value)
{
	struct lmdb_w *st = priv;

	if (strcmp(key, "layout") == 0) {
		if (strcmp(value, "default") != 0 && strcmp(value, "caffe"))
			return bale_writer_seterr(w, BALE_EINVAL,
			    "layout '%s': expected default or caffe",
			    value);
		st->caffe = strcmp(value, "caffe") == 0;
		return BALE_OK;
	}
	if (strcmp(key, "map_size") == 0) {
		if (bale_parse_size(value, &st->map_option) != BALE_OK)
			return bale_writer_seterr(w, BALE_EINVAL,
			    "map_size '%s' is not a size", value);
		return BALE_OK;
	}
	if (strcmp(key, "nosubdir") == 0) {
		st->nosubdir = lmdb_bool(value);
		return BALE_OK;
	}
	/* one sync at the end, or none */
	if (strcmp(key, "fsync") == 0) {
		st->sync = lmdb_bool(value);
		return BALE_OK;
	}
	return BALE_ENOOPT;
}

static int lmdb_open(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds)
{
	struct lmdb_w *st = priv;
	int rc = bale_lmdb_paths(w, st, dir, ds);

	return rc == BALE_OK ? bale_lmdb_start_fresh(w, st, ds) : rc;
}

/* ---- writing, growing the map ahead of need ---------------------------- */

/* Make room for a record needing at most @pages pages: commit the open
 * transaction and double the map until it fits. */
static int lmdb_make_room(struct bale_writer *w, struct lmdb_w *st,
    size_t pages)
{
	size_t map_pages = st->mapsize / st->psize;
	int err;
	int rc;

	if (st->used_pages + st->txn_pages + pages <= map_pages)
		return BALE_OK;
	rc = bale_lmdb_commit(w, st);
	if (rc != BALE_OK)
		return rc;
	while (st->used_pages + LMDB_TXN_SLACK_PAGES + pages > map_pages) {
		st->mapsize *= 2;
		map_pages = st->mapsize / st->psize;
	}
	err = mdb_env_set_mapsize(st->env, st->mapsize);
	if (err)
		return bale_lmdb_fail(w, st, "cannot grow the map", err);
	return bale_lmdb_begin(w, st);
}

/* Put one record, after making sure the map can hold it; with
 * MDB_RESERVE in @flags, *@room is where its @n bytes go. */
static int lmdb_put_as(struct bale_writer *w, struct lmdb_w *st,
    const char *key, const void *value, size_t n, unsigned flags,
    void **room)
{
	/* worst case: the value's overflow pages and a new leaf page */
	size_t pages = (n + 16 + st->psize - 1) / st->psize + 1;
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v = { n, (void *)value };
	int err;
	int rc;

	rc = lmdb_make_room(w, st, pages);
	if (rc != BALE_OK)
		return rc;
	err = mdb_put(st->txn, st->dbi, &k, &v, MDB_APPEND | flags);
	if (room)
		*room = v.mv_data;
	if (err == MDB_MAP_FULL)
		return bale_writer_seterr(w, BALE_EBACKEND, "map full "
		    "at %zu MiB although bale grows it (please report; a "
		    "larger map_size option works around it)",
		    st->mapsize >> 20);
	if (err)
		return bale_lmdb_fail(w, st, key, err);
	st->txn_pages += pages;
	st->txn_bytes += n;
	return BALE_OK;
}

static int lmdb_put(struct bale_writer *w, struct lmdb_w *st,
    const char *key, const void *value, size_t n)
{
	return lmdb_put_as(w, st, key, value, n, 0, NULL);
}

/* A list kept in @spill as one record, in a transaction of its own: one
 * list at a time is in memory (LMDB holds a written value there until
 * the commit). */
static int lmdb_put_spilled(struct bale_writer *w, struct lmdb_w *st,
    const char *key, const struct bale_spill *spill)
{
	void *room = NULL;
	int rc;

	rc = lmdb_put_as(w, st, key, NULL, (size_t)bale_spill_size(spill),
	    MDB_RESERVE, &room);
	if (rc == BALE_OK && bale_spill_read(spill, room) != 0)
		rc = bale_writer_seterr(w, BALE_EIO, "cannot read back "
		    "the list for %s: %s", key, strerror(errno));
	if (rc == BALE_OK)
		rc = bale_lmdb_commit(w, st);
	return rc == BALE_OK ? bale_lmdb_begin(w, st) : rc;
}

/* ---- samples ---------------------------------------------------------- */

/* A Caffe Datum (lmdb_caffe.c) under the key "INDEX_PATH", INDEX the
 * sample's key as a number: its place in the whole run (a part of a
 * run, bale pack --part, starts where the parts before it end). */
static int lmdb_put_caffe(struct bale_writer *w, struct lmdb_w *st,
    const struct bale_sample *s)
{
	struct bale_lmdb_caffe_frame f;
	char *key;
	int rc;

	bale_lmdb_caffe_frame(&f, s->size, s->label);
	key = bale_strfmt("%08" PRIu64 "_%s", (uint64_t)strtoull(s->key, NULL,
	    10), s->relpath);
	if (!key)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	if (strlen(key) > (size_t)mdb_env_get_maxkeysize(st->env)) {
		free(key);
		return bale_writer_seterr(w, BALE_EINVAL,
		    "caffe key for a %zu-byte path is over LMDB's "
		    "%d-byte key limit (the default layout has no such "
		    "limit)",
		    strlen(s->relpath), mdb_env_get_maxkeysize(st->env));
	}
	bale_buf_reset(&st->meta);
	bale_buf_add(&st->meta, f.head, f.nhead);
	bale_buf_add(&st->meta, s->data, s->size);
	bale_buf_add(&st->meta, f.tail, f.ntail);
	rc = st->meta.failed ? bale_writer_seterr(w, BALE_ENOMEM,
	    "no memory") : lmdb_put(w, st, key, st->meta.data,
	    st->meta.len);
	free(key);
	return rc;
}

static int lmdb_put_default(struct bale_writer *w, struct lmdb_w *st,
    const struct bale_sample *s)
{
	char key[64];
	char cls[32];
	int n;
	int rc;

	n = snprintf(cls, sizeof(cls), "%" PRId64, s->label);
	snprintf(key, sizeof(key), "%s.cls", s->key);
	rc = lmdb_put(w, st, key, cls, (size_t)n);
	snprintf(key, sizeof(key), "%s.image", s->key);
	if (rc == BALE_OK)
		rc = lmdb_put(w, st, key, s->data, s->size);
	bale_meta_json(&st->meta, s);
	snprintf(key, sizeof(key), "%s.json", s->key);
	if (rc == BALE_OK)
		rc = st->meta.failed ? bale_writer_seterr(w, BALE_ENOMEM,
		    "no memory") : lmdb_put(w, st, key, st->meta.data,
		    st->meta.len);
	return rc;
}

static int lmdb_put_sample(struct bale_writer *w, void *priv,
    const struct bale_sample *s)
{
	struct lmdb_w *st = priv;
	int rc;

	rc = st->caffe ? lmdb_put_caffe(w, st, s) : lmdb_put_default(w, st, s);
	if (rc != BALE_OK)
		return rc;
	st->have_sample = 1;
	st->last_index = s->index;
	bale_spill_add(&st->keys, s->key, strlen(s->key));
	bale_spill_add(&st->keys, "\n", 1);
	bale_lmdb_note_label(st, s->label);
	if (st->keys.failed || st->labels.failed)
		return bale_writer_seterr(w, BALE_EIO, "cannot keep the "
		    "key list: %s", strerror(st->keys.failed ? st->keys.err :
		    st->labels.err));
	st->count++;
	if (st->txn_bytes < LMDB_TXN_BYTES)
		return BALE_OK;
	rc = bale_lmdb_commit(w, st);
	return rc == BALE_OK ? bale_lmdb_begin(w, st) : rc;
}

/* ---- finish ------------------------------------------------------------ */

void bale_lmdb_bale_record(struct bale_buf *b, uint64_t count)
{
	bale_buf_puts(b, "{");
	bale_json_kv_str(b, "version", bale_version(), 1);
	bale_json_kv_str(b, "layout", "default", 0);
	bale_json_kv_u64(b, "layout_version", 1, 0);
	bale_json_kv_u64(b, "count", count, 0);
	bale_buf_puts(b, "}");
}

uint64_t bale_lmdb_key_lines(const char *p, size_t n)
{
	uint64_t lines = 0;
	const char *nl;

	while ((nl = memchr(p, '\n', n))) {
		lines++;
		n -= (size_t)(nl + 1 - p);
		p = nl + 1;
	}
	return lines;
}

int bale_lmdb_put_spill(MDB_txn *txn, MDB_dbi dbi, const char *key,
    const struct bale_spill *spill, unsigned flags)
{
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v = { (size_t)bale_spill_size(spill), NULL };
	int e = mdb_put(txn, dbi, &k, &v, flags | MDB_RESERVE);

	if (e)
		return e;
	return v.mv_size && bale_spill_read(spill, v.mv_data) != 0 ? -1 : 0;
}

static int lmdb_put_metadata(struct bale_writer *w, struct lmdb_w *st)
{
	struct bale_buf b = BALE_BUF_INIT;
	char count[32];
	int rc;

	bale_lmdb_bale_record(&b, st->count);
	snprintf(count, sizeof(count), "%" PRIu64, st->count);
	rc = b.failed ? bale_writer_seterr(w, BALE_ENOMEM, "no memory")
	    : lmdb_put(w, st, "__bale__", b.data, b.len);
	if (rc == BALE_OK)
		rc = lmdb_put(w, st, "__classes__", st->classes.data,
		    st->classes.len);
	if (rc == BALE_OK)
		rc = lmdb_put(w, st, "__count__", count, strlen(count));
	if (rc == BALE_OK)
		rc = lmdb_put_spilled(w, st, "__keys__", &st->keys);
	if (rc == BALE_OK && !st->labels_unfit)
		rc = lmdb_put_spilled(w, st, "__labels__", &st->labels);
	bale_buf_release(&b);
	return rc;
}

static int lmdb_finish(struct bale_writer *w, void *priv)
{
	struct lmdb_w *st = priv;
	int err;
	int rc = BALE_OK;

	if (!st->caffe)
		rc = lmdb_put_metadata(w, st);
	if (rc == BALE_OK)
		rc = bale_lmdb_commit(w, st);
	if (rc != BALE_OK)
		return rc;
	if (st->sync) {
		err = mdb_env_sync(st->env, 1);
		if (err)
			return bale_lmdb_fail(w, st, "cannot sync", err);
	}
	mdb_env_close(st->env);
	st->env = NULL;
	if (st->nosubdir) {
		/* the lock file is named after the temporary name */
		char *lock = bale_strfmt("%s-lock", st->tmp);

		if (lock)
			unlink(lock);
		free(lock);
	}
	return BALE_OK;
}

static int lmdb_publish(struct bale_writer *w, void *priv)
{
	struct lmdb_w *st = priv;

	int rc = bale_writer_publish_file(w, st->final, st->sync);

	st->published = rc == BALE_OK;
	return rc;
}

static void lmdb_release(void *priv)
{
	struct lmdb_w *st = priv;

	if (st->txn)
		mdb_txn_abort(st->txn);
	if (st->env)
		mdb_env_close(st->env);
	/* what a checkpoint covers stays, for a resumed run */
	if (!st->published && st->tmp && st->ckpt_next == 0)
		bale_lmdb_remove(st->tmp, st->nosubdir);
	free(st->final);
	free(st->tmp);
	bale_spill_release(&st->keys);
	bale_spill_release(&st->labels);
	bale_buf_release(&st->classes);
	bale_buf_release(&st->meta);
}

const struct bale_writer_ops bale_lmdb_writer = {
	.option = lmdb_option,
	.open = lmdb_open,
	.put = lmdb_put_sample,
	.finish = lmdb_finish,
	.publish = lmdb_publish,
	.release = lmdb_release,
	.resume = bale_lmdb_resume,
};
