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

/* LMDB turns a short write into EIO: when errno is still set, it says
 * why (a full disk, a file-size limit); else say what EIO may mean. */
int bale_lmdb_fail(struct bale_writer *w, const struct lmdb_w *st,
    const char *what, int err)
{
	int sys = errno;
	const char *why = mdb_strerror(err);

	if (err == EIO && (sys == ENOSPC || sys == EFBIG || sys == EDQUOT))
		why = strerror(sys);
	else if (err == EIO)
		why = "a write came up short (disk full, or a file-size "
		    "limit reached?)";

	return bale_writer_seterr(w, err == ENOMEM ? BALE_ENOMEM :
	    BALE_EBACKEND, "'%s': %s: %s", st->tmp, what, why);
}

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

/* Remove an LMDB output at @path (folder or single file) and its lock. */
int bale_lmdb_remove(const char *path, int nosubdir)
{
	char *data = bale_strfmt("%s/data.mdb", path);
	char *lock = bale_strfmt(nosubdir ? "%s-lock" : "%s/lock.mdb", path);
	int rc = 0;

	if (!data || !lock)
		rc = -1;
	else if (nosubdir)
		rc = unlink(path) != 0 && errno != ENOENT ? -1 : 0;
	else if ((unlink(data) != 0 && errno != ENOENT) ||
	    (unlink(lock) != 0 && errno != ENOENT) ||
	    (rmdir(path) != 0 && errno != ENOENT))
		rc = -1;
	if (rc == 0 && lock && nosubdir)
		unlink(lock);
	free(data);
	free(lock);
	return rc;
}

static int lmdb_claim_output(struct bale_writer *w, struct lmdb_w *st,
    int replace)
{
	struct stat sb;
	int exists = lstat(st->final, &sb) == 0;

	if (exists && !replace)
		return bale_writer_seterr(w, BALE_EEXIST,
		    "'%s' exists",
		    st->final);
	if (exists && bale_lmdb_remove(st->final, S_ISREG(sb.st_mode)) != 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "cannot remove the old '%s': %s", st->final,
		    strerror(errno));
	if (lstat(st->tmp, &sb) == 0 &&
	    bale_lmdb_remove(st->tmp, st->nosubdir) != 0)
		return bale_writer_seterr(w, BALE_EIO, "cannot remove "
		    "'%s', left by an earlier run: %s", st->tmp,
		    strerror(errno));
	if (!st->nosubdir && mkdir(st->tmp, 0777) != 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "cannot create '%s': %s", st->tmp, strerror(errno));
	return BALE_OK;
}

int bale_lmdb_begin(struct bale_writer *w, struct lmdb_w *st)
{
	int err = mdb_txn_begin(st->env, NULL, 0, &st->txn);

	if (err == 0)
		err = mdb_dbi_open(st->txn, NULL, 0, &st->dbi);
	st->txn_pages = LMDB_TXN_SLACK_PAGES;
	st->txn_bytes = 0;
	return err ? bale_lmdb_fail(w, st, "cannot begin a transaction", err) :
	    BALE_OK;
}

int bale_lmdb_paths(struct bale_writer *w, struct lmdb_w *st,
    const char *dir, const struct bale_dataset *ds)
{
	st->final = bale_strfmt("%s/%s.lmdb", dir, ds->name);
	st->tmp = bale_strfmt("%s/%s.lmdb%s", dir, ds->name, BALE_PARTIAL);
	bale_meta_classes(&st->classes, ds);
	/* the key and label lists wait beside the output, not in memory */
	if (!st->final || !st->tmp || st->classes.failed ||
	    bale_spill_init(&st->keys, dir) != 0 ||
	    bale_spill_init(&st->labels, dir) != 0)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	return BALE_OK;
}

/* Open the environment at st->tmp (new, or left by a run we resume:
 * LMDB then raises the map to what the file already holds). */
int bale_lmdb_env_start(struct bale_writer *w, struct lmdb_w *st,
    const struct bale_dataset *ds)
{
	unsigned flags = MDB_NOSYNC | MDB_NOMETASYNC | MDB_NORDAHEAD;
	MDB_envinfo info;
	MDB_stat stat;
	int err;

	st->mapsize = LMDB_MIN_MAP;
	if (ds->nitems > st->mapsize / LMDB_MAP_PER_SAMPLE)
		st->mapsize = (size_t)ds->nitems * LMDB_MAP_PER_SAMPLE;
	if (st->map_option)
		st->mapsize = (size_t)st->map_option;
	flags |= st->nosubdir ? MDB_NOSUBDIR : 0;
	err = mdb_env_create(&st->env);
	if (err == 0)
		err = mdb_env_set_mapsize(st->env, st->mapsize);
	if (err == 0)
		err = mdb_env_open(st->env, st->tmp, flags, 0644);
	if (err == 0)
		err = mdb_env_stat(st->env, &stat);
	if (err == 0)
		err = mdb_env_info(st->env, &info);
	if (err)
		return bale_lmdb_fail(w, st, "cannot open", err);
	st->psize = stat.ms_psize;
	st->mapsize = info.me_mapsize;
	st->used_pages = info.me_last_pgno + 1;
	return BALE_OK;
}

int bale_lmdb_start_fresh(struct bale_writer *w, struct lmdb_w *st,
    const struct bale_dataset *ds)
{
	int rc = lmdb_claim_output(w, st, ds->replace);

	if (rc == BALE_OK)
		rc = bale_lmdb_env_start(w, st, ds);
	return rc == BALE_OK ? bale_lmdb_begin(w, st) : rc;
}

static int lmdb_open(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds)
{
	struct lmdb_w *st = priv;
	int rc = bale_lmdb_paths(w, st, dir, ds);

	return rc == BALE_OK ? bale_lmdb_start_fresh(w, st, ds) : rc;
}

/* ---- writing, growing the map ahead of need ---------------------------- */

/* Commit, and start the kernel writing the pages out in the background. */
int bale_lmdb_commit(struct bale_writer *w, struct lmdb_w *st)
{
	MDB_envinfo info;
	int err = mdb_txn_commit(st->txn);
	int fd;

	st->txn = NULL;
	if (err)
		return bale_lmdb_fail(w, st, "cannot commit", err);
	/* a commit in the middle of a sample covers those before it */
	if (st->have_sample) {
		st->ckpt_next = st->last_index + 1;
		bale_writer_reached(w, st->ckpt_next, NULL);
	}
	if (mdb_env_info(st->env, &info) == 0) {
		st->used_pages = info.me_last_pgno + 1;
		bale_lmdb_let_go(st->env, st->used_pages * st->psize);
	}
	if (st->sync && mdb_env_get_fd(st->env, &fd) == 0)
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	return BALE_OK;
}

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

void bale_lmdb_note_label(struct lmdb_w *st, int64_t label)
{
	int32_t l = (int32_t)label;

	if (label < 0 || label > INT32_MAX)
		st->labels_unfit = 1;
	bale_spill_add(&st->labels, &l, sizeof(l));
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
