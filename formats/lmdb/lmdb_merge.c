/* lmdb_merge.c - the parts of a run as one LMDB: every part's sample
 * records copied as they are, part after part, each an MDB_APPEND (a
 * part's keys follow the part before it: they number the whole run), in
 * transactions of LMDB_MERGE_TXN bytes; then, for the default layout,
 * __bale__, __classes__ (part 0's), __count__ (the sum) and __keys__
 * (the parts' joined). Written as NAME.lmdb.partial and renamed when
 * complete, as the writer does. */
#include "lmdb_pages.h"
#include "lmdb_write.h"

#include <lmdb.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LMDB_MERGE_TXN ((size_t)4 << 20)

struct lmdb_merging {
	const struct bale_merge *m;
	char *final;
	char *tmp;
	int nosubdir;		/* part 0's is a file: so is the merged one */
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	size_t txn_bytes;
	struct bale_spill keys;	/* the parts' __keys__, joined */
	struct bale_spill labels;	/* their __labels__, joined */
	uint64_t part_keys;	/* keys in the part's __keys__ */
	int part_labels;	/* the part's __labels__ matched them */
	int labels_lost;	/* a part had none that did: no __labels__ */
	struct bale_buf classes;	/* part 0's __classes__ */
	uint64_t count;
	int layout_default;	/* the parts have __bale__ */
	size_t part;		/* the part being copied */
	struct bale_errbuf *err;
};

static int lmdb_merge_fail(struct lmdb_merging *g, const char *what,
    const char *where, int mdb_err)
{
	return bale_errbuf_set(g->err, BALE_EIO, "%s '%s': %s", what,
	    where, mdb_strerror(mdb_err));
}

/* The map: every part's file, doubled for the tree around the records
 * (a map is address space, not disk). */
static size_t lmdb_merge_map(struct lmdb_merging *g)
{
	const struct bale_merge *m = g->m;
	size_t total = (size_t)64 << 20;
	struct stat sb;
	char *path;
	size_t i;

	for (i = 0; i < m->nparts; i++) {
		path = bale_strfmt(g->nosubdir ? "%s/%s.lmdb" :
		    "%s/%s.lmdb/data.mdb", m->parts[i], m->name);
		if (path && stat(path, &sb) == 0)
			total += 2 * (size_t)sb.st_size;
		free(path);
	}
	return total;
}

static int lmdb_merge_open(struct lmdb_merging *g)
{
	const struct bale_merge *m = g->m;
	char *part0 = bale_strfmt("%s/%s.lmdb", m->parts[0], m->name);
	struct stat sb;
	int err;

	g->final = bale_strfmt("%s/%s.lmdb", m->out, m->name);
	g->tmp = bale_strfmt("%s/%s.lmdb" BALE_PARTIAL, m->out, m->name);
	if (!part0 || !g->final || !g->tmp ||
	    bale_spill_init(&g->keys, m->out) != 0 ||
	    bale_spill_init(&g->labels, m->out) != 0) {
		free(part0);
		return bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
	}
	g->nosubdir = stat(part0, &sb) == 0 && S_ISREG(sb.st_mode);
	free(part0);
	if (lstat(g->final, &sb) == 0 && !m->replace)
		return bale_errbuf_exists(g->err, "lmdb", g->final);
	if (bale_lmdb_remove(g->tmp, g->nosubdir) != 0 ||
	    (!g->nosubdir && mkdir(g->tmp, 0777) != 0))
		return bale_errbuf_set(g->err, BALE_EIO, "cannot create "
		    "'%s': %s", g->tmp, strerror(errno));
	err = mdb_env_create(&g->env);
	if (!err)
		err = mdb_env_set_mapsize(g->env, lmdb_merge_map(g));
	if (!err)
		err = mdb_env_open(g->env, g->tmp, MDB_NOSYNC | MDB_NOMETASYNC |
		    (g->nosubdir ? MDB_NOSUBDIR : 0), 0644);
	if (!err)
		err = mdb_txn_begin(g->env, NULL, 0, &g->txn);
	if (!err)
		err = mdb_dbi_open(g->txn, NULL, 0, &g->dbi);
	return err ? lmdb_merge_fail(g, "cannot open", g->tmp, err) : BALE_OK;
}

/* Commit and go on in a new transaction, letting go of the pages read
 * through the map (they stay in the page cache). */
static int lmdb_merge_commit(struct lmdb_merging *g)
{
	int err = mdb_txn_commit(g->txn);

	g->txn = NULL;
	g->txn_bytes = 0;
	if (!err)
		bale_lmdb_let_go(g->env, SIZE_MAX);
	if (!err)
		err = mdb_txn_begin(g->env, NULL, 0, &g->txn);
	return err ? lmdb_merge_fail(g, "cannot commit", g->tmp, err) :
	    BALE_OK;
}

static int lmdb_merge_put(struct lmdb_merging *g, MDB_val *k, MDB_val *v)
{
	int err = mdb_put(g->txn, g->dbi, k, v, MDB_APPEND);

	if (err == MDB_KEYEXIST)
		return bale_errbuf_set(g->err, BALE_EINVAL, "the key "
		    "'%.*s' does not follow the part before it",
		    (int)k->mv_size, (const char *)k->mv_data);
	if (err)
		return lmdb_merge_fail(g, "cannot write to", g->tmp, err);
	g->txn_bytes += k->mv_size + v->mv_size;
	return g->txn_bytes < LMDB_MERGE_TXN ? BALE_OK : lmdb_merge_commit(g);
}

/* A part's own record: kept for the merged metadata, not copied. */
static void lmdb_merge_note(struct lmdb_merging *g, size_t part,
    const MDB_val *k, const MDB_val *v)
{
	char num[32];

	if (k->mv_size == 8 && memcmp(k->mv_data, "__keys__", 8) == 0) {
		bale_spill_add(&g->keys, v->mv_data, v->mv_size);
		g->part_keys = bale_lmdb_key_lines(v->mv_data, v->mv_size);
	} else if (k->mv_size == 10 &&
	    memcmp(k->mv_data, "__labels__", 10) == 0 &&
	    v->mv_size == g->part_keys * 4) {
		bale_spill_add(&g->labels, v->mv_data, v->mv_size);
		g->part_labels = 1;
	}
	else if (k->mv_size == 8 && memcmp(k->mv_data, "__bale__", 8) == 0)
		g->layout_default = 1;
	else if (part == 0 && k->mv_size == 11 &&
	    memcmp(k->mv_data, "__classes__", 11) == 0)
		bale_buf_add(&g->classes, v->mv_data, v->mv_size);
	else if (k->mv_size == 9 && memcmp(k->mv_data, "__count__", 9) == 0 &&
	    v->mv_size < sizeof(num)) {
		memcpy(num, v->mv_data, v->mv_size);
		num[v->mv_size] = '\0';
		g->count += strtoull(num, NULL, 10);
	}
}

/* One record of part g->part: sample records copied, its own metadata
 * kept for the merged one. */
static int lmdb_merge_record(void *ctx, MDB_val *k, MDB_val *v)
{
	struct lmdb_merging *g = ctx;

	if (k->mv_size > 1 && memcmp(k->mv_data, "__", 2) == 0) {
		lmdb_merge_note(g, g->part, k, v);
		return BALE_OK;
	}
	return lmdb_merge_put(g, k, v);
}

/* Copy every record of part @i. */
static int lmdb_merge_part(struct lmdb_merging *g, size_t i)
{
	char *path = bale_strfmt("%s/%s.lmdb", g->m->parts[i], g->m->name);
	int rc;

	if (!path)
		return bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
	g->part = i;
	g->part_keys = 0;
	g->part_labels = 0;
	rc = bale_lmdb_each_record(path, g->nosubdir, lmdb_merge_record, g,
	    g->err);
	g->labels_lost |= !g->part_labels;
	free(path);
	return rc;
}

static int lmdb_merge_put_str(struct lmdb_merging *g, const char *key,
    const void *data, size_t n)
{
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v = { n, (void *)data };

	return lmdb_merge_put(g, &k, &v);
}

/* A list the parts gave, kept in @spill, as one record (MDB_RESERVE:
 * read from the spill into the room LMDB gives it). */
static int lmdb_merge_put_spilled(struct lmdb_merging *g, const char *key,
    const struct bale_spill *spill)
{
	/* alone in its transaction: LMDB holds it in memory until then */
	int rc = lmdb_merge_commit(g);
	int err = rc == BALE_OK ? bale_lmdb_put_spill(g->txn, g->dbi, key,
	    spill, MDB_APPEND) : 0;

	if (err > 0)
		return lmdb_merge_fail(g, "cannot write to", g->tmp, err);
	if (err < 0)
		return bale_errbuf_set(g->err, BALE_EIO, "cannot read "
		    "back the list for %s: %s", key, strerror(errno));
	return rc == BALE_OK ? lmdb_merge_commit(g) : rc;
}

/* The default layout's records after the samples, as the writer's. */
static int lmdb_merge_metadata(struct lmdb_merging *g)
{
	struct bale_buf b = BALE_BUF_INIT;
	char count[32];
	int rc;

	bale_lmdb_bale_record(&b, g->count);
	snprintf(count, sizeof(count), "%" PRIu64, g->count);
	rc = b.failed || g->classes.failed ?
	    bale_errbuf_set(g->err, BALE_ENOMEM, "no memory") :
	    lmdb_merge_put_str(g, "__bale__", b.data, b.len);
	if (rc == BALE_OK)
		rc = lmdb_merge_put_str(g, "__classes__", g->classes.data ?
		    g->classes.data : "[]", g->classes.data ? g->classes.len :
		    2);
	if (rc == BALE_OK)
		rc = lmdb_merge_put_str(g, "__count__", count, strlen(count));
	if (rc == BALE_OK)
		rc = lmdb_merge_put_spilled(g, "__keys__", &g->keys);
	if (rc == BALE_OK && !g->labels_lost)
		rc = lmdb_merge_put_spilled(g, "__labels__", &g->labels);
	bale_buf_release(&b);
	return rc;
}

/* Commit, close, and give the environment its final name. */
static int lmdb_merge_publish(struct lmdb_merging *g)
{
	int err = mdb_txn_commit(g->txn);

	/* not synced, as bale pack's outputs are not without --fsync: the
	 * rename makes it look complete, the kernel writes it out */
	g->txn = NULL;
	mdb_env_close(g->env);
	g->env = NULL;
	if (err)
		return lmdb_merge_fail(g, "cannot commit", g->tmp, err);
	if (g->nosubdir) {	/* its lock file is named after the tmp name */
		char *lock = bale_strfmt("%s-lock", g->tmp);

		if (lock)
			unlink(lock);
		free(lock);
	}
	if ((g->m->replace && bale_lmdb_remove(g->final, g->nosubdir) != 0) ||
	    rename(g->tmp, g->final) != 0)
		return bale_errbuf_set(g->err, BALE_EIO, "cannot rename "
		    "'%s': %s", g->tmp, strerror(errno));
	return BALE_OK;
}

int bale_lmdb_merge(const struct bale_merge *m, struct bale_errbuf *err)
{
	struct lmdb_merging g;
	size_t i;
	int rc;

	memset(&g, 0, sizeof(g));
	g.m = m;
	g.err = err;
	rc = lmdb_merge_open(&g);
	for (i = 0; rc == BALE_OK && i < m->nparts; i++)
		rc = lmdb_merge_part(&g, i);
	if (rc == BALE_OK && g.layout_default)
		rc = lmdb_merge_metadata(&g);
	if (rc == BALE_OK)
		rc = lmdb_merge_publish(&g);
	if (g.txn)
		mdb_txn_abort(g.txn);
	if (g.env)
		mdb_env_close(g.env);
	if (rc != BALE_OK && g.tmp)
		bale_lmdb_remove(g.tmp, g.nosubdir);
	free(g.final);
	free(g.tmp);
	bale_spill_release(&g.keys);
	bale_spill_release(&g.labels);
	bale_buf_release(&g.classes);
	return rc;
}
