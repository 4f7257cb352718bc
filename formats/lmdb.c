/* lmdb.c - LMDB output, readable with Python's lmdb in a few lines.
 *
 * Output, for name N in folder D: D/N.lmdb, a folder holding data.mdb and
 * lock.mdb as lmdb.open() expects (or, with nosubdir=1, the file D/N.lmdb).
 * It is written as D/N.lmdb.partial and renamed when complete.
 *
 * Layout "default" (layout_version 1), for each sample key K (the same
 * ten-digit key as the tar members):
 *   K.cls    decimal label          K.image  the original bytes
 *   K.json   {"path","size","crc32","label","class"}
 * and after all samples: __bale__ (JSON: version, layout, count),
 * __classes__ (JSON array), __count__ (decimal), __keys__ (the sample keys,
 * one per line, in order). Keys sort in the order they are written, so
 * every put is an MDB_APPEND.
 *
 * Layout "caffe": one Caffe Datum per sample under "%08d_<path>" as
 * convert_imageset writes them, nothing else (Caffe and DALI iterate over
 * every key). Datum fields written: 4 data (bytes, the encoded image),
 * 5 label (int32 varint), 7 encoded (bool, true).
 *
 * The map starts at the map_size option, or at max(64 MiB, 160 KiB per
 * sample), and doubles before it can fill: every put first counts the
 * pages it may need at worst (its value's overflow pages plus a leaf
 * split), and when the transaction's count would pass the map, the
 * transaction commits and the map grows. So MDB_MAP_FULL does not happen,
 * and no record has to be kept for a replay (which cost a copy of every
 * byte). Transactions commit every 4 MiB (measured best: their pages are
 * still in the CPU caches when written out) without syncing. With fsync=1
 * (bale pack --fsync, as for every format) each commit also asks the
 * kernel to start writing its pages, and the output is synced once, at
 * the end; without it, like tar, nothing waits for the disk.
 */
#include "bale_backend.h"

#include "buf.h"
#include "file.h"
#include "json.h"
#include "jsonread.h"
#include "meta.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LMDB_TXN_BYTES ((size_t)4 << 20)
#define LMDB_TXN_SLACK_PAGES 64	/* path copies, free list, meta */
#define LMDB_MIN_MAP ((size_t)64 << 20)
#define LMDB_MAP_PER_SAMPLE ((size_t)160 << 10)

struct lmdb_w {
	int caffe;		/* layout */
	int nosubdir;
	uint64_t map_option;	/* initial map size asked for, or 0 */
	int sync;		/* one fsync at the end (fsync=1) */
	char *final;		/* D/N.lmdb */
	char *tmp;		/* D/N.lmdb.partial */
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	size_t mapsize;
	size_t psize;
	size_t used_pages;	/* at the last commit */
	size_t txn_pages;	/* worst case of the open transaction */
	size_t txn_bytes;
	struct bale_buf keys;	/* "KEY\n" per sample */
	struct bale_buf classes;
	struct bale_buf meta;
	uint64_t count;
	int published;
};

static int lmdb_fail(struct bale_writer *w, const char *what, int err)
{
	return bale_writer_seterr(w, err == ENOMEM ? BALE_ENOMEM :
	    BALE_EBACKEND, "lmdb: %s: %s", what, mdb_strerror(err));
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
			    "lmdb: layout '%s': expected default or caffe",
			    value);
		st->caffe = strcmp(value, "caffe") == 0;
		return BALE_OK;
	}
	if (strcmp(key, "map_size") == 0) {
		if (bale_parse_size(value, &st->map_option) != BALE_OK)
			return bale_writer_seterr(w, BALE_EINVAL,
			    "lmdb: map_size '%s' is not a size", value);
		return BALE_OK;
	}
	if (strcmp(key, "nosubdir") == 0) {
		st->nosubdir = lmdb_bool(value);
		return BALE_OK;
	}
	if (strcmp(key, "fsync") == 0) {	/* one sync at the end, or none */
		st->sync = lmdb_bool(value);
		return BALE_OK;
	}
	return BALE_ENOOPT;
}

/* Remove an LMDB output at @path (folder or single file) and its lock. */
static int lmdb_remove(const char *path, int nosubdir)
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
		    "lmdb: '%s' exists (use --force to replace it)",
		    st->final);
	if ((exists && lmdb_remove(st->final, S_ISREG(sb.st_mode)) != 0) ||
	    lmdb_remove(st->tmp, st->nosubdir) != 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "lmdb: cannot remove the old '%s': %s", st->final,
		    strerror(errno));
	if (!st->nosubdir && mkdir(st->tmp, 0777) != 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "lmdb: cannot create '%s': %s", st->tmp, strerror(errno));
	return BALE_OK;
}

static int lmdb_begin(struct bale_writer *w, struct lmdb_w *st)
{
	int err = mdb_txn_begin(st->env, NULL, 0, &st->txn);

	if (err == 0)
		err = mdb_dbi_open(st->txn, NULL, 0, &st->dbi);
	st->txn_pages = LMDB_TXN_SLACK_PAGES;
	st->txn_bytes = 0;
	return err ? lmdb_fail(w, "cannot begin a transaction", err) :
	    BALE_OK;
}

static int lmdb_open(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds)
{
	struct lmdb_w *st = priv;
	unsigned flags = MDB_NOSYNC | MDB_NOMETASYNC | MDB_NORDAHEAD;
	MDB_stat stat;
	int err;
	int rc;

	st->final = bale_strfmt("%s/%s.lmdb", dir, ds->name);
	st->tmp = bale_strfmt("%s/%s.lmdb%s", dir, ds->name, BALE_PARTIAL);
	bale_meta_classes(&st->classes, ds);
	if (!st->final || !st->tmp || st->classes.failed)
		return bale_writer_seterr(w, BALE_ENOMEM, "lmdb: no memory");
	rc = lmdb_claim_output(w, st, ds->replace);
	if (rc != BALE_OK)
		return rc;
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
	if (err)
		return lmdb_fail(w, st->tmp, err);
	st->psize = stat.ms_psize;
	return lmdb_begin(w, st);
}

/* ---- writing, growing the map ahead of need ---------------------------- */

/* Commit, and start the kernel writing the pages out in the background. */
static int lmdb_commit(struct bale_writer *w, struct lmdb_w *st)
{
	MDB_envinfo info;
	int err = mdb_txn_commit(st->txn);
	int fd;

	st->txn = NULL;
	if (err)
		return lmdb_fail(w, "cannot commit", err);
	if (mdb_env_info(st->env, &info) == 0)
		st->used_pages = info.me_last_pgno + 1;
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
	rc = lmdb_commit(w, st);
	if (rc != BALE_OK)
		return rc;
	while (st->used_pages + LMDB_TXN_SLACK_PAGES + pages > map_pages) {
		st->mapsize *= 2;
		map_pages = st->mapsize / st->psize;
	}
	err = mdb_env_set_mapsize(st->env, st->mapsize);
	if (err)
		return lmdb_fail(w, "cannot grow the map", err);
	return lmdb_begin(w, st);
}

/* Put one record, after making sure the map can hold it. */
static int lmdb_put(struct bale_writer *w, struct lmdb_w *st,
    const char *key, const void *value, size_t n)
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
	err = mdb_put(st->txn, st->dbi, &k, &v, MDB_APPEND);
	if (err == MDB_MAP_FULL)
		return bale_writer_seterr(w, BALE_EBACKEND, "lmdb: map full "
		    "at %zu MiB although bale grows it (please report; "
		    "-O lmdb.map_size=SIZE works around it)",
		    st->mapsize >> 20);
	if (err)
		return lmdb_fail(w, key, err);
	st->txn_pages += pages;
	st->txn_bytes += n;
	return BALE_OK;
}

/* ---- samples ---------------------------------------------------------- */

static size_t lmdb_varint(unsigned char *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

/* Datum: field 4 data (bytes), 5 label (varint), 7 encoded (true). The
 * label and flag go after the data, as protobuf serialises by number. */
static int lmdb_put_caffe(struct bale_writer *w, struct lmdb_w *st,
    const struct bale_sample *s)
{
	unsigned char head[16];
	unsigned char tail[16];
	size_t nh = 0;
	size_t nt = 0;
	char *key;
	int rc;

	head[nh++] = (4 << 3) | 2;
	nh += lmdb_varint(head + nh, s->size);
	tail[nt++] = (5 << 3) | 0;
	/* int32 label: negative values take ten bytes, as protobuf does */
	nt += lmdb_varint(tail + nt, (uint64_t)(int64_t)(int32_t)s->label);
	tail[nt++] = (7 << 3) | 0;
	tail[nt++] = 1;
	key = bale_strfmt("%08" PRIu64 "_%s", s->index, s->relpath);
	if (!key)
		return bale_writer_seterr(w, BALE_ENOMEM, "lmdb: no memory");
	if (strlen(key) > (size_t)mdb_env_get_maxkeysize(st->env)) {
		free(key);
		return bale_writer_seterr(w, BALE_EINVAL,
		    "lmdb: caffe key for a %zu-byte path is over LMDB's %d-byte "
		    "key limit (the default layout has no such limit)",
		    strlen(s->relpath), mdb_env_get_maxkeysize(st->env));
	}
	bale_buf_reset(&st->meta);
	bale_buf_add(&st->meta, head, nh);
	bale_buf_add(&st->meta, s->data, s->size);
	bale_buf_add(&st->meta, tail, nt);
	rc = st->meta.failed ? bale_writer_seterr(w, BALE_ENOMEM,
	    "lmdb: no memory") : lmdb_put(w, st, key, st->meta.data,
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
		    "lmdb: no memory") : lmdb_put(w, st, key, st->meta.data,
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
	bale_buf_printf(&st->keys, "%s\n", s->key);
	if (st->keys.failed)
		return bale_writer_seterr(w, BALE_ENOMEM, "lmdb: no memory");
	st->count++;
	if (st->txn_bytes < LMDB_TXN_BYTES)
		return BALE_OK;
	rc = lmdb_commit(w, st);
	return rc == BALE_OK ? lmdb_begin(w, st) : rc;
}

/* ---- finish ------------------------------------------------------------ */

static int lmdb_put_metadata(struct bale_writer *w, struct lmdb_w *st)
{
	struct bale_buf b = BALE_BUF_INIT;
	char count[32];
	int rc;

	bale_buf_puts(&b, "{");
	bale_json_kv_str(&b, "version", bale_version(), 1);
	bale_json_kv_str(&b, "layout", "default", 0);
	bale_json_kv_u64(&b, "layout_version", 1, 0);
	bale_json_kv_u64(&b, "count", st->count, 0);
	bale_buf_puts(&b, "}");
	snprintf(count, sizeof(count), "%" PRIu64, st->count);
	rc = b.failed ? bale_writer_seterr(w, BALE_ENOMEM, "lmdb: no memory")
	    : lmdb_put(w, st, "__bale__", b.data, b.len);
	if (rc == BALE_OK)
		rc = lmdb_put(w, st, "__classes__", st->classes.data,
		    st->classes.len);
	if (rc == BALE_OK)
		rc = lmdb_put(w, st, "__count__", count, strlen(count));
	if (rc == BALE_OK)
		rc = lmdb_put(w, st, "__keys__", st->keys.data ? st->keys.data :
		    "", st->keys.len);
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
		rc = lmdb_commit(w, st);
	if (rc != BALE_OK)
		return rc;
	if (st->sync) {
		err = mdb_env_sync(st->env, 1);
		if (err)
			return lmdb_fail(w, "cannot sync", err);
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

	if (rename(st->tmp, st->final) != 0 ||
	    (st->sync && bale_file_sync_parent(st->final) != 0))
		return bale_writer_seterr(w, BALE_EIO,
		    "lmdb: cannot rename '%s': %s", st->tmp, strerror(errno));
	st->published = 1;
	return BALE_OK;
}

static void lmdb_release(void *priv)
{
	struct lmdb_w *st = priv;

	if (st->txn)
		mdb_txn_abort(st->txn);
	if (st->env)
		mdb_env_close(st->env);
	if (!st->published && st->tmp)
		lmdb_remove(st->tmp, st->nosubdir);
	free(st->final);
	free(st->tmp);
	bale_buf_release(&st->keys);
	bale_buf_release(&st->classes);
	bale_buf_release(&st->meta);
}

/* ---- reader ---------------------------------------------------------------
 *
 * The cursor finds K.cls and K.image (one descent, one step); the value
 * is read with one pread of exactly its range: one I/O when cold whatever
 * the readahead (MDB_NORDAHEAD keeps the kernel from reading around the
 * B-tree's page faults), one copy when warm.
 * Measured alternatives (1 GB tree, samples/s, warm 1 thread / warm 2
 * threads / cold 1 thread): this design 27-35k / 58-67k / 8.2-9.2k.
 * The map after MADV_WILLNEED: cold 4.4k. The map when mincore() says
 * cached, else pread: warm 37k, cold 6.4k (pages the file readahead had
 * cached cost more to map than to copy). pread on a sample's first read,
 * the map (MADV_POPULATE_READ once) on repeat reads: 38-40k warm and
 * 9.3-9.5k cold on one thread, but 26k warm on two, as every thread's
 * own environment maps the pages again; one environment shared by all
 * readers of a process would be the way to keep that gain.
 */

struct lmdb_r {
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *cursor;
	long page;
	int fd;
	const char *map;	/* where LMDB mapped the file, or NULL */
	unsigned char *buf;	/* pread target */
	size_t bufcap;
	int no_meta;		/* meta=0: bytes and label only */
	struct bale_buf info;
	int caffe;
	char **keys;		/* sample i's key (caffe: the whole key) */
	uint64_t n;
	struct bale_buf arena;
	char key[40];
	char *path;
	char *files[2];
};

static int lmdb_rfail(struct bale_reader *r, const char *what, int err)
{
	return bale_reader_seterr(r, BALE_EBACKEND, "lmdb: %s: %s", what,
	    mdb_strerror(err));
}

/* Where LMDB mapped the file: the start of the mapping (from offset 0)
 * that holds @inside, a pointer LMDB returned. NULL if not found; the
 * reader then copies values from the map instead of pread. */
static const char *lmdb_map_base(const void *inside)
{
	unsigned long lo;
	unsigned long hi;
	unsigned long off;
	char line[512];
	const char *base = NULL;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !base && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) == 3 &&
		    (uintptr_t)inside >= lo && (uintptr_t)inside < hi &&
		    off == 0)
			base = (const char *)(uintptr_t)lo;
	if (f)
		fclose(f);
	return base;
}

/* Copy @v's bytes with one pread at their file offset. */
static int lmdb_pread(struct bale_reader *r, struct lmdb_r *st,
    const MDB_val *v, const unsigned char **out)
{
	const char *p = v->mv_data;
	ssize_t got;


	if (bale_grow(&st->buf, &st->bufcap, v->mv_size) != 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "lmdb: no memory");
	got = v->mv_size ? pread(st->fd, st->buf, v->mv_size,
	    (off_t)(p - st->map)) : 0;
	if (got != (ssize_t)v->mv_size)
		return bale_reader_seterr(r, BALE_EIO, "lmdb: cannot read: %s",
		    got < 0 ? strerror(errno) : "short read");
	*out = st->buf;
	return BALE_OK;
}

/* A value's bytes: one pread of exactly its range (one I/O whatever the
 * readahead); small values, inside their leaf page, from the map. */
static int lmdb_value(struct bale_reader *r, struct lmdb_r *st,
    const MDB_val *v, const unsigned char **out)
{
	if (!st->map || v->mv_size <= (size_t)st->page) {
		*out = v->mv_data;
		return BALE_OK;
	}
	return lmdb_pread(r, st, v, out);
}

static int lmdb_add_key(struct lmdb_r *st, const char *k, size_t n,
    size_t *cap)
{
	if (st->n == *cap) {
		char **nk;

		*cap = *cap ? *cap * 2 : 1024;
		nk = realloc(st->keys, *cap * sizeof(char *));
		if (!nk)
			return -1;
		st->keys = nk;
	}
	st->keys[st->n++] = (char *)(uintptr_t)st->arena.len;
	bale_buf_add(&st->arena, k, n);
	bale_buf_add(&st->arena, "", 1);
	return st->arena.failed ? -1 : 0;
}

/* Sample keys: __keys__ (default layout), else every key (caffe). */
static int lmdb_load_keys(struct bale_reader *r, struct lmdb_r *st)
{
	MDB_val k = { 8, "__keys__" };
	MDB_val v;
	MDB_cursor *c;
	MDB_cursor_op op;
	size_t cap = 0;
	const char *p;
	const char *end;
	const char *nl;
	uint64_t i;
	int err = mdb_get(st->txn, st->dbi, &k, &v);

	if (err == 0) {
		for (p = v.mv_data, end = p + v.mv_size; p < end; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(end - p));
			nl = nl ? nl : end;
			if (nl > p && lmdb_add_key(st, p, (size_t)(nl - p), &cap))
				return bale_reader_seterr(r, BALE_ENOMEM,
				    "lmdb: no memory");
		}
	} else {
		st->caffe = 1;
		err = mdb_cursor_open(st->txn, st->dbi, &c);
		if (err)
			return lmdb_rfail(r, "cannot list keys", err);
		for (op = MDB_FIRST; (err = mdb_cursor_get(c, &k, &v, op)) == 0;
		    op = MDB_NEXT)
			if (lmdb_add_key(st, k.mv_data, k.mv_size, &cap))
				break;
		mdb_cursor_close(c);
		if (err != MDB_NOTFOUND)
			return err ? lmdb_rfail(r, "cannot list keys", err) :
			    bale_reader_seterr(r, BALE_ENOMEM, "lmdb: no memory");
	}
	for (i = 0; i < st->n; i++)
		st->keys[i] = st->arena.data + (uintptr_t)st->keys[i];
	return BALE_OK;
}

static int lmdb_ropen(struct bale_reader *r, void *priv, const char *path)
{
	struct lmdb_r *st = priv;
	struct stat sb;
	unsigned flags = MDB_RDONLY | MDB_NOLOCK | MDB_NORDAHEAD | MDB_NOTLS;
	MDB_val k;
	MDB_val v;
	int err;

	if (stat(path, &sb) != 0)
		return bale_reader_seterr(r, BALE_ENOENT,
		    "lmdb: cannot open '%s': %s", path, strerror(errno));
	flags |= S_ISDIR(sb.st_mode) ? 0 : MDB_NOSUBDIR;
	st->page = sysconf(_SC_PAGESIZE);
	st->files[0] = S_ISDIR(sb.st_mode) ?
	    bale_strfmt("%s/data.mdb", path) : strdup(path);
	err = mdb_env_create(&st->env);
	if (err == 0)
		err = mdb_env_open(st->env, path, flags, 0644);
	if (err == 0)
		err = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &st->txn);
	if (err == 0)
		err = mdb_dbi_open(st->txn, NULL, 0, &st->dbi);
	if (err == 0)
		err = mdb_env_get_fd(st->env, &st->fd);
	if (err == 0)
		err = mdb_cursor_open(st->txn, st->dbi, &st->cursor);
	if (err == 0 && mdb_cursor_get(st->cursor, &k, &v, MDB_FIRST) == 0)
		st->map = lmdb_map_base(k.mv_data);
	if (err)
		return lmdb_rfail(r, path, err);
	return lmdb_load_keys(r, st);
}

static int lmdb_rcount(struct bale_reader *r, void *priv, uint64_t *n)
{
	(void)r;
	*n = ((struct lmdb_r *)priv)->n;
	return BALE_OK;
}

/* Default layout: K.cls, K.image and K.json are adjacent keys: one
 * cursor descent finds the first, two steps the others. K.image is read
 * by pread, the small ones from the map. */
static int lmdb_rget_default(struct bale_reader *r, struct lmdb_r *st,
    const char *key, struct bale_blob *out)
{
	MDB_val img;
	MDB_val cls;
	MDB_val json;
	MDB_val k;
	char want[600];
	int err;

	k.mv_size = (size_t)snprintf(want, sizeof(want), "%s.cls", key);
	k.mv_data = want;
	err = mdb_cursor_get(st->cursor, &k, &cls, MDB_SET);
	if (err == 0)
		err = mdb_cursor_get(st->cursor, &k, &img, MDB_NEXT);
	if (err == 0 && (k.mv_size != strlen(key) + 6 ||
	    memcmp((char *)k.mv_data + strlen(key), ".image", 6) != 0))
		err = MDB_NOTFOUND;
	if (err == 0 && !st->no_meta)
		err = mdb_cursor_get(st->cursor, &k, &json, MDB_NEXT);
	if (err == 0 && !st->no_meta && (k.mv_size != strlen(key) + 5 ||
	    memcmp((char *)k.mv_data + strlen(key), ".json", 5) != 0))
		err = MDB_NOTFOUND;
	if (err)
		return lmdb_rfail(r, key, err);
	if (bale_meta_label(cls.mv_data, cls.mv_size, &out->label) != 0)
		return bale_reader_seterr(r, BALE_EINVAL, "lmdb: %s: bad label",
		    key);
	free(st->path);
	st->path = NULL;
	if (!st->no_meta)
		bale_meta_parse(json.mv_data, json.mv_size, &st->path,
		    &out->crc32, &out->has_crc32);
	out->key = key;
	out->path = st->path;
	out->size = img.mv_size;
	return lmdb_value(r, st, &img, &out->data);
}

/* A protobuf varint at [*p, end); -1 when malformed. */
static int lmdb_rvarint(const unsigned char **p, const unsigned char *end,
    uint64_t *out)
{
	uint64_t v = 0;
	int shift;

	for (shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* Caffe layout: find Datum fields 4 (data) and 5 (label) in the record. */
static int lmdb_rget_caffe(struct bale_reader *r, struct lmdb_r *st,
    const char *key, struct bale_blob *out)
{
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v;
	MDB_val data = { 0, NULL };
	const unsigned char *p;
	const unsigned char *end;
	uint64_t tag;
	uint64_t x;
	int err = mdb_get(st->txn, st->dbi, &k, &v);

	if (err)
		return lmdb_rfail(r, key, err);
	for (p = v.mv_data, end = p + v.mv_size; p < end;) {
		if (lmdb_rvarint(&p, end, &tag) || lmdb_rvarint(&p, end, &x))
			goto out_bad;
		if ((tag & 7) == 2) {
			if (x > (uint64_t)(end - p))
				goto out_bad;
			if (tag >> 3 == 4)
				data.mv_size = x, data.mv_data = (void *)p;
			p += x;
		} else if ((tag & 7) == 0) {
			if (tag >> 3 == 5)
				out->label = (int32_t)x;
		} else {
			goto out_bad;
		}
	}
	snprintf(st->key, sizeof(st->key), "%010llu",
	    strtoull(key, NULL, 10));
	out->key = st->key;
	out->path = strchr(key, '_') ? strchr(key, '_') + 1 : NULL;
	out->size = data.mv_size;
	return lmdb_value(r, st, &data, &out->data);
out_bad:
	return bale_reader_seterr(r, BALE_EINVAL, "lmdb: '%s' is not a "
	    "Caffe Datum", key);
}

static int lmdb_rget(struct bale_reader *r, void *priv, uint64_t i,
    struct bale_blob *out)
{
	struct lmdb_r *st = priv;

	if (i >= st->n)
		return bale_reader_seterr(r, BALE_EINVAL, "lmdb: no sample %"
		    PRIu64, i);
	return st->caffe ? lmdb_rget_caffe(r, st, st->keys[i], out) :
	    lmdb_rget_default(r, st, st->keys[i], out);
}

static void lmdb_info_value(struct lmdb_r *st, const char *name,
    const char *key)
{
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v;

	bale_buf_printf(&st->info, ",\"%s\":", name);
	if (mdb_get(st->txn, st->dbi, &k, &v) == 0)
		bale_buf_add(&st->info, v.mv_data, v.mv_size);
	else
		bale_buf_puts(&st->info, "null");
}

static int lmdb_rinfo(struct bale_reader *r, void *priv, const char **json)
{
	struct lmdb_r *st = priv;

	bale_buf_reset(&st->info);
	bale_buf_printf(&st->info, "{\"layout\":\"%s\"",
	    st->caffe ? "caffe" : "default");
	if (!st->caffe) {
		lmdb_info_value(st, "bale", "__bale__");
		lmdb_info_value(st, "classes", "__classes__");
	}
	bale_buf_puts(&st->info, "}");
	if (st->info.failed)
		return bale_reader_seterr(r, BALE_ENOMEM, "lmdb: no memory");
	*json = st->info.data;
	return BALE_OK;
}

static int lmdb_rfiles(struct bale_reader *r, void *priv,
    const char *const **list)
{
	(void)r;
	*list = (const char *const *)((struct lmdb_r *)priv)->files;
	return BALE_OK;
}

static void lmdb_rrelease(void *priv)
{
	struct lmdb_r *st = priv;

	if (st->cursor)
		mdb_cursor_close(st->cursor);
	if (st->txn)
		mdb_txn_abort(st->txn);
	if (st->env)
		mdb_env_close(st->env);
	free(st->keys);
	free(st->buf);
	free(st->path);
	free(st->files[0]);
	bale_buf_release(&st->info);
	bale_buf_release(&st->arena);
}

static int lmdb_roption(struct bale_reader *r, void *priv, const char *key,
    const char *value)
{
	(void)r;
	if (strcmp(key, "meta") != 0)
		return BALE_ENOOPT;
	((struct lmdb_r *)priv)->no_meta = strcmp(value, "0") == 0;
	return BALE_OK;
}

static const struct bale_reader_ops lmdb_reader = {
	.option = lmdb_roption,
	.open = lmdb_ropen,
	.count = lmdb_rcount,
	.get = lmdb_rget,
	.files = lmdb_rfiles,
	.info = lmdb_rinfo,
	.release = lmdb_rrelease,
};

static const struct bale_writer_ops lmdb_writer = {
	.option = lmdb_option,
	.open = lmdb_open,
	.put = lmdb_put_sample,
	.finish = lmdb_finish,
	.publish = lmdb_publish,
	.release = lmdb_release,
};

const struct bale_backend bale_backend_lmdb = {
	.abi = BALE_BACKEND_ABI,
	.name = "lmdb",
	.summary = "LMDB key/value store (default or Caffe Datum layout)",
	.caps = BALE_CAP_EMPTY | BALE_CAP_RANDOM | BALE_CAP_THREADS,
	.writer_priv = sizeof(struct lmdb_w),
	.writer = &lmdb_writer,
	.reader_priv = sizeof(struct lmdb_r),
	.reader = &lmdb_reader,
};
