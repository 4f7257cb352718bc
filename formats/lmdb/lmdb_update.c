/* lmdb_update.c - bale pack --update on an LMDB output, in place: one
 * write transaction deletes the records of the samples that leave,
 * appends the delta's records (their keys follow every key before, so
 * each is an MDB_APPEND once the metadata records, which sort last, are
 * out of the way), and writes the metadata anew. Its commit is the new
 * version: LMDB's MVCC keeps the old one whole for a reader until its
 * read transaction ends. The commit is synced (the environment is
 * opened without MDB_NOSYNC): a crash must not cost the old version.
 * Default layout only. */
#include "lmdb_env.h"
#include "lmdb_write.h"

#include <lmdb.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct lmdb_updating {
	const struct bale_update *u;
	struct bale_errbuf *err;
	char *path;
	int nosubdir;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	struct bale_buf keys;	/* __keys__ after the update */
	struct bale_buf labels;	/* __labels__ after it, in step */
	int labels_lost;	/* the old output's or the delta's had none
				 * in step with its keys: none after */
	size_t delta_keys;	/* bytes of the delta's __keys__ */
	int delta_labels;	/* the delta has __labels__ */
	uint64_t count;
};

/* The old output's __labels__ (a copy), when it has one in step with
 * its @n keys; else NULL, and none is written after. */
static int32_t *lmdb_upd_old_labels(struct lmdb_updating *g, uint64_t n)
{
	int32_t *copy;
	MDB_val k = { 10, "__labels__" };
	MDB_val v;

	if (mdb_get(g->txn, g->dbi, &k, &v) != 0 || v.mv_size != n * 4 ||
	    !(copy = malloc(v.mv_size + 4))) {
		g->labels_lost = 1;
		return NULL;
	}
	memcpy(copy, v.mv_data, v.mv_size);
	return copy;
}

static int lmdb_upd_fail(struct lmdb_updating *g, const char *what, int e)
{
	return bale_errbuf_set(g->err, BALE_EIO, "lmdb: %s '%s': %s", what,
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

/* The output's environment, its map room for the delta twice over. */
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
		return bale_errbuf_set(g->err, BALE_ENOMEM, "lmdb: no memory");
	}
	g->nosubdir = stat(g->path, &sb) == 0 && S_ISREG(sb.st_mode);
	map = (size_t)lmdb_upd_file_size(g->path, g->nosubdir) + ((size_t)64
	    << 20) + 2 * (size_t)(delta ? lmdb_upd_file_size(delta,
	    g->nosubdir) : 0);
	free(delta);
	e = mdb_env_create(&g->env);
	if (!e)
		e = mdb_env_set_mapsize(g->env, map);
	if (!e)
		e = mdb_env_open(g->env, g->path, g->nosubdir ? MDB_NOSUBDIR :
		    0, 0644);
	if (!e && !bale_lmdb_env_fits(g->env, g->path, g->nosubdir))
		return bale_errbuf_set(g->err, BALE_EBACKEND, "lmdb: '%s' is "
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
		return bale_errbuf_set(g->err, BALE_EINVAL, "lmdb: '%s' has no "
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
static int lmdb_upd_del_sample(struct lmdb_updating *g, const char *key,
    size_t n)
{
	static const char *const ext[] = { "cls", "image", "json" };
	char rec[64];
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < 3; i++) {
		snprintf(rec, sizeof(rec), "%.*s.%s", (int)n, key, ext[i]);
		rc = lmdb_upd_del(g, rec);
	}
	return rc;
}

/* The old __keys__, less the keys that leave (their records deleted),
 * checked against the manifest's count and last key. They are copied
 * first: a write transaction's deletes may move what mdb_get gave. */
static int lmdb_upd_remove(struct lmdb_updating *g)
{
	const struct bale_update *u = g->u;
	struct bale_buf old = BALE_BUF_INIT;
	const char *p, *end, *nl;
	uint64_t key = UINT64_MAX, n = 0;
	int32_t *labels = NULL;
	size_t r = 0;
	MDB_val v;
	int rc = lmdb_upd_get(g, "__keys__", &v);

	if (rc == BALE_OK)
		bale_buf_add(&old, v.mv_data, v.mv_size);
	if (rc == BALE_OK && !old.failed)
		labels = lmdb_upd_old_labels(g, u->count_before);
	if (old.failed)
		rc = bale_errbuf_set(g->err, BALE_ENOMEM, "lmdb: no memory");
	p = old.data;
	end = p + (rc == BALE_OK ? old.len : 0);
	for (; rc == BALE_OK && p < end; p = nl + 1, n++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl : end;
		key = strtoull(p, NULL, 10);
		while (r < u->nremoved && u->removed[r] < key)
			r++;
		if (r < u->nremoved && u->removed[r] == key) {
			rc = lmdb_upd_del_sample(g, p, (size_t)(nl - p));
			continue;
		}
		bale_buf_printf(&g->keys, "%.*s\n", (int)(nl - p), p);
		if (labels && n < u->count_before)
			bale_buf_add(&g->labels, &labels[n], 4);
	}
	free(labels);
	bale_buf_release(&old);
	if (rc == BALE_OK && (n != u->count_before ||
	    (n && key != bale_update_key_before(u, n - 1))))
		return bale_errbuf_cut_short(g->err, "lmdb", g->path, n,
		    u->count_before);
	g->count = n - u->nremoved;
	return rc;
}

/* One record of the delta: a sample's appended, its key list joined to
 * ours, the rest (its metadata) left. */
static int lmdb_upd_record(void *ctx, MDB_val *k, MDB_val *v)
{
	struct lmdb_updating *g = ctx;
	int e = 0;

	if (k->mv_size == 8 && !memcmp(k->mv_data, "__keys__", 8)) {
		bale_buf_add(&g->keys, v->mv_data, v->mv_size);
		g->delta_keys = v->mv_size;
	} else if (k->mv_size == 10 && !memcmp(k->mv_data, "__labels__", 10)) {
		bale_buf_add(&g->labels, v->mv_data, v->mv_size);
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
	    "lmdb: no memory");

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

static int lmdb_upd_metadata(struct lmdb_updating *g)
{
	struct bale_buf bale = BALE_BUF_INIT, cls = BALE_BUF_INIT;
	const char *p;
	char count[32];
	int rc;

	for (p = g->keys.data, g->count = 0; p && *p; p = strchr(p, '\n') + 1)
		g->count++;
	bale_lmdb_bale_record(&bale, g->count);
	bale_json_str_array(&cls, g->u->classes, g->u->nclasses);
	snprintf(count, sizeof(count), "%" PRIu64, g->count);
	rc = bale.failed || cls.failed || g->keys.failed ?
	    bale_errbuf_set(g->err, BALE_ENOMEM, "lmdb: no memory") :
	    lmdb_upd_put(g, "__bale__", bale.data, bale.len);
	if (rc == BALE_OK)
		rc = lmdb_upd_put(g, "__classes__", cls.data, cls.len);
	if (rc == BALE_OK)
		rc = lmdb_upd_put(g, "__count__", count, strlen(count));
	if (rc == BALE_OK)
		rc = lmdb_upd_put(g, "__keys__", g->keys.data ? g->keys.data :
		    "", g->keys.len);
	/* in step: one label a key, else none (readers read K.cls) */
	if (rc == BALE_OK && !g->labels_lost && !g->labels.failed &&
	    g->labels.len == g->count * 4)
		rc = lmdb_upd_put(g, "__labels__", g->labels.data ?
		    g->labels.data : "", g->labels.len);
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
	bale_buf_release(&g.keys);
	bale_buf_release(&g.labels);
	return rc;
}
