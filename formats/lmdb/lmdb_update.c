/* lmdb_update.c - bale pack --update on an LMDB output, in place: one
 * write transaction deletes the records of the samples that leave,
 * appends the delta's records (their keys follow every key before, so
 * each is an MDB_APPEND once the metadata records, which sort last, are
 * out of the way), and writes the metadata anew. Its commit is the new
 * version: LMDB's MVCC keeps the old one whole for a reader until its
 * read transaction ends. The commit is synced (the environment is
 * opened without MDB_NOSYNC): a crash must not cost the old version.
 * Default layout only.
 *
 * The key and label lists after it wait in unlinked files beside the
 * output (bale_spill): the old lists are read once, through the map,
 * before the transaction writes anything, and what stays of them is
 * appended there, so an update holds no per-sample memory of its own
 * but the new lists LMDB keeps as written pages until the commit. */
#include "lmdb_env.h"
#include "lmdb_pages.h"
#include "lmdb_write.h"

#include <lmdb.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of map a sample before may need for the new lists: its key
 * (up to 20 digits and a newline) and label, with room for the pages. */
#define LMDB_UPD_LIST_ROOM 48

struct lmdb_updating {
	const struct bale_update *u;
	struct bale_errbuf *err;
	char *path;
	int nosubdir;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	struct bale_spill keys;	/* __keys__ after the update */
	struct bale_spill labels;	/* __labels__ after it, in step */
	struct bale_buf gone;	/* the key texts that leave, NUL-separated */
	int labels_lost;	/* the old output's or the delta's had none
				 * in step with its keys: none after */
	size_t delta_keys;	/* bytes of the delta's __keys__ */
	int delta_labels;	/* the delta has __labels__ */
	uint64_t count;		/* keys after the update */
};

/* The old output's __labels__ (in the map), when it has one in step
 * with its @n keys; else NULL, and none is written after. */
static const int32_t *lmdb_upd_old_labels(struct lmdb_updating *g,
    uint64_t n)
{
	MDB_val k = { 10, "__labels__" };
	MDB_val v;

	if (mdb_get(g->txn, g->dbi, &k, &v) != 0 || v.mv_size != n * 4) {
		g->labels_lost = 1;
		return NULL;
	}
	return v.mv_data;
}

static int lmdb_upd_fail(struct lmdb_updating *g, const char *what, int e)
{
	return bale_errbuf_set(g->err, BALE_EIO, "%s '%s': %s", what,
	    g->path, mdb_strerror(e));
}

static uint64_t lmdb_upd_file_size(const char *path, int nosubdir)
{
	char *data = nosubdir ? NULL : bale_strfmt("%s/data.mdb", path);
	struct stat sb;
	uint64_t n = stat(data ? data : path, &sb) == 0 ?
	    (uint64_t)sb.st_size : 0;

	free(data);
	return n;
}

/* The output's environment. Its map has room for the delta twice over
 * and for the new key and label lists beside the old ones, which this
 * transaction frees but cannot reuse (at 10 M samples they take
 * 150 MB). */
static int lmdb_upd_open(struct lmdb_updating *g)
{
	const struct bale_update *u = g->u;
	char *delta = u->delta ? bale_strfmt("%s/%s.lmdb", u->delta,
	    u->name) : NULL;
	struct stat sb;
	size_t map;
	int e;

	g->path = bale_strfmt("%s/%s.lmdb", u->out, u->name);
	if (!g->path || (u->delta && !delta)) {
		free(delta);
		return bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
	}
	g->nosubdir = stat(g->path, &sb) == 0 && S_ISREG(sb.st_mode);
	map = (size_t)lmdb_upd_file_size(g->path, g->nosubdir) + ((size_t)64
	    << 20) + 2 * (size_t)(delta ? lmdb_upd_file_size(delta,
	    g->nosubdir) : 0) + LMDB_UPD_LIST_ROOM * (size_t)u->count_before;
	free(delta);
	e = mdb_env_create(&g->env);
	if (!e)
		e = mdb_env_set_mapsize(g->env, map);
	if (!e)
		e = mdb_env_open(g->env, g->path, g->nosubdir ? MDB_NOSUBDIR :
		    0, 0644);
	if (!e && !bale_lmdb_env_fits(g->env, g->path, g->nosubdir))
		return bale_errbuf_set(g->err, BALE_EBACKEND, "'%s' is "
		    "cut short: its data file lacks pages it uses", g->path);
	if (!e)
		e = mdb_txn_begin(g->env, NULL, 0, &g->txn);
	if (!e)
		e = mdb_dbi_open(g->txn, NULL, 0, &g->dbi);
	return e ? lmdb_upd_fail(g, "cannot open", e) : BALE_OK;
}

static int lmdb_upd_get(struct lmdb_updating *g, const char *key,
    MDB_val *v)
{
	MDB_val k = { strlen(key), (void *)key };
	int e = mdb_get(g->txn, g->dbi, &k, v);

	if (e == MDB_NOTFOUND)
		return bale_errbuf_set(g->err, BALE_EINVAL, "'%s' has no "
		    "%s: updating needs bale's default layout", g->path, key);
	return e ? lmdb_upd_fail(g, "cannot read", e) : BALE_OK;
}

static int lmdb_upd_del(struct lmdb_updating *g, const char *key)
{
	MDB_val k = { strlen(key), (void *)key };
	int e = mdb_del(g->txn, g->dbi, &k, NULL);

	return e && e != MDB_NOTFOUND ? lmdb_upd_fail(g, "cannot delete from",
	    e) : BALE_OK;
}

/* A sample's three records. */
static int lmdb_upd_del_sample(struct lmdb_updating *g, const char *key)
{
	static const char *const ext[] = { "cls", "image", "json" };
	char rec[64];
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < 3; i++) {
		snprintf(rec, sizeof(rec), "%.40s.%s", key, ext[i]);
		rc = lmdb_upd_del(g, rec);
	}
	return rc;
}

/* One old key (and its label) that stays, into the lists after. */
static void lmdb_upd_keep(struct lmdb_updating *g, const char *key,
    size_t n, const int32_t *label)
{
	bale_spill_add(&g->keys, key, n);
	bale_spill_add(&g->keys, "\n", 1);
	if (label)
		bale_spill_add(&g->labels, label, 4);
	g->count++;
}

/* The old __keys__ (and __labels__), read in the map before anything
 * is written: the keys that stay go to the lists after, those that
 * leave to @gone. Checked against the manifest's count and last key. */
static int lmdb_upd_split(struct lmdb_updating *g)
{
	const struct bale_update *u = g->u;
	const char *p, *end, *nl;
	const int32_t *labels = NULL;
	uint64_t key = UINT64_MAX, n = 0;
	size_t r = 0;
	MDB_val v = { 0, NULL };
	int rc = lmdb_upd_get(g, "__keys__", &v);

	if (rc == BALE_OK)
		labels = lmdb_upd_old_labels(g, u->count_before);
	p = v.mv_data;
	end = p + (rc == BALE_OK ? v.mv_size : 0);
	for (; rc == BALE_OK && p < end; p = nl + 1, n++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl : end;
		key = strtoull(p, NULL, 10);
		while (r < u->nremoved && u->removed[r] < key)
			r++;
		if (r < u->nremoved && u->removed[r] == key) {
			bale_buf_add(&g->gone, p, (size_t)(nl - p));
			bale_buf_add(&g->gone, "", 1);
		} else {
			lmdb_upd_keep(g, p, (size_t)(nl - p), labels &&
			    n < u->count_before ? &labels[n] : NULL);
		}
		if ((n & 0xffff) == 0xffff)	/* what it read, let go */
			bale_lmdb_let_go(g->env, SIZE_MAX);
	}
	bale_lmdb_let_go(g->env, SIZE_MAX);
	if (rc == BALE_OK && (n != u->count_before ||
	    (n && key != bale_update_key_before(u, n - 1))))
		return bale_errbuf_cut_short(g->err, "lmdb", g->path, n,
		    u->count_before);
	return rc == BALE_OK && g->gone.failed ? bale_errbuf_set(g->err,
	    BALE_ENOMEM, "no memory") : rc;
}

/* The records of the samples that leave. */
static int lmdb_upd_remove(struct lmdb_updating *g)
{
	const char *key = g->gone.data, *end = key + g->gone.len;
	int rc = BALE_OK;

	for (; rc == BALE_OK && key && key < end; key += strlen(key) + 1)
		rc = lmdb_upd_del_sample(g, key);
	return rc;
}

/* One record of the delta: a sample's appended, its key list joined to
 * ours, the rest (its metadata) left. */
static int lmdb_upd_record(void *ctx, MDB_val *k, MDB_val *v)
{
	struct lmdb_updating *g = ctx;
	int e = 0;

	if (k->mv_size == 8 && !memcmp(k->mv_data, "__keys__", 8)) {
		bale_spill_add(&g->keys, v->mv_data, v->mv_size);
		g->count += bale_lmdb_key_lines(v->mv_data, v->mv_size);
		g->delta_keys = v->mv_size;
	} else if (k->mv_size == 10 && !memcmp(k->mv_data, "__labels__", 10)) {
		bale_spill_add(&g->labels, v->mv_data, v->mv_size);
		g->delta_labels = 1;
	} else if (k->mv_size < 2 || memcmp(k->mv_data, "__", 2) != 0)
		e = mdb_put(g->txn, g->dbi, k, v, MDB_APPEND);
	return e ? lmdb_upd_fail(g, "cannot append to", e) : BALE_OK;
}

/* The delta's sample records, appended; its keys joined to ours. */
static int lmdb_upd_append(struct lmdb_updating *g)
{
	char *path = bale_strfmt("%s/%s.lmdb", g->u->delta, g->u->name);
	int rc = path ? bale_lmdb_each_record(path, g->nosubdir,
	    lmdb_upd_record, g, g->err) : bale_errbuf_set(g->err, BALE_ENOMEM,
	    "no memory");

	free(path);
	return rc;
}

static int lmdb_upd_put(struct lmdb_updating *g, const char *key,
    const void *data, size_t n)
{
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v = { n, (void *)data };
	int e = mdb_put(g->txn, g->dbi, &k, &v, 0);

	return e ? lmdb_upd_fail(g, "cannot write to", e) : BALE_OK;
}

/* A list from its spill, into the room LMDB reserves for it. */
static int lmdb_upd_put_spilled(struct lmdb_updating *g, const char *key,
    const struct bale_spill *spill)
{
	int e = bale_lmdb_put_spill(g->txn, g->dbi, key, spill, 0);

	if (e > 0)
		return lmdb_upd_fail(g, "cannot write to", e);
	if (e < 0)
		return bale_errbuf_set(g->err, BALE_EIO, "cannot read "
		    "back the list for %s: %s", key, strerror(errno));
	return BALE_OK;
}

static int lmdb_upd_metadata(struct lmdb_updating *g)
{
	struct bale_buf bale = BALE_BUF_INIT, cls = BALE_BUF_INIT;
	char count[32];
	int rc;

	bale_lmdb_bale_record(&bale, g->count);
	bale_json_str_array(&cls, g->u->classes, g->u->nclasses);
	snprintf(count, sizeof(count), "%" PRIu64, g->count);
	rc = bale.failed || cls.failed ? bale_errbuf_set(g->err, BALE_ENOMEM,
	    "no memory") : lmdb_upd_put(g, "__bale__", bale.data,
	    bale.len);
	if (rc == BALE_OK)
		rc = lmdb_upd_put(g, "__classes__", cls.data, cls.len);
	if (rc == BALE_OK)
		rc = lmdb_upd_put(g, "__count__", count, strlen(count));
	if (rc == BALE_OK)
		rc = lmdb_upd_put_spilled(g, "__keys__", &g->keys);
	/* in step: one label a key, else none (readers read K.cls) */
	if (rc == BALE_OK && !g->labels_lost && !g->labels.failed &&
	    bale_spill_size(&g->labels) == g->count * 4)
		rc = lmdb_upd_put_spilled(g, "__labels__", &g->labels);
	bale_buf_release(&bale);
	bale_buf_release(&cls);
	return rc;
}

static int lmdb_upd_run(struct lmdb_updating *g)
{
	static const char *const meta[] = { "__bale__", "__classes__",
	    "__count__", "__keys__", "__labels__" };
	MDB_val v;
	size_t i;
	int e, rc = lmdb_upd_open(g);

	if (rc == BALE_OK)
		rc = lmdb_upd_get(g, "__bale__", &v);
	if (rc == BALE_OK)
		rc = lmdb_upd_split(g);
	if (rc == BALE_OK)
		rc = lmdb_upd_remove(g);
	for (i = 0; rc == BALE_OK && i < 5; i++)
		rc = lmdb_upd_del(g, meta[i]);
	if (rc == BALE_OK && g->u->delta)
		rc = lmdb_upd_append(g);
	if (g->u->delta && g->delta_keys && !g->delta_labels)
		g->labels_lost = 1;
	if (rc == BALE_OK)
		rc = lmdb_upd_metadata(g);
	if (rc != BALE_OK)
		return rc;
	e = mdb_txn_commit(g->txn);
	g->txn = NULL;
	return e ? lmdb_upd_fail(g, "cannot commit", e) : BALE_OK;
}

int bale_lmdb_update(const struct bale_update *u, struct bale_errbuf *err)
{
	struct lmdb_updating g;
	char *lock;
	int had_lock;
	int rc;

	memset(&g, 0, sizeof(g));
	g.u = u;
	g.err = err;
	if (bale_spill_init(&g.keys, u->out) != 0 ||
	    bale_spill_init(&g.labels, u->out) != 0) {
		bale_spill_release(&g.keys);
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	lock = bale_strfmt("%s/%s.lmdb-lock", u->out, u->name);
	had_lock = lock && access(lock, F_OK) == 0;
	rc = lmdb_upd_run(&g);
	if (g.txn)
		mdb_txn_abort(g.txn);
	if (g.env)
		mdb_env_close(g.env);
	/* a one-file environment's lock file: left as the writer leaves it */
	if (lock && g.nosubdir && !had_lock)
		unlink(lock);
	free(lock);
	free(g.path);
	bale_spill_release(&g.keys);
	bale_spill_release(&g.labels);
	bale_buf_release(&g.gone);
	return rc;
}
