/* lmdb_read.c - random reads of bale's LMDB outputs (both layouts).
 *
 * Every reader handle of a process that opens the same file shares one
 * environment: LMDB forbids opening a file twice in one process, the key
 * list is loaded once, and with one mapping a page one thread mapped is
 * mapped for all. Each handle has its own read transaction and cursor
 * (MDB_NOTLS).
 *
 * Image bytes are read with one pread of exactly the value's range: one
 * I/O when cold whatever the readahead (MDB_NORDAHEAD keeps the kernel
 * from reading around the B-tree's page faults), one copy when warm.
 *
 * With the option map=1, that pread is only a sample's first read: it
 * leaves the pages cached, the sample's second read maps them in one
 * call (MADV_POPULATE_READ), and later reads use the map in place, no
 * syscall and no copy. That pays when the data stays cached over many
 * epochs. It is not the default: mapping a page costs more than copying
 * it on some machines (on the bench VM 90 us against 33 us for pread and
 * checksum of a 110 KB value), and a mapped page the kernel evicted
 * comes back by page faults, one 4 KiB read each (the readahead is off),
 * which is the 0.35k/s case when the data does not fit in memory.
 *
 * Measured before (1 GB tree, samples/s, warm 1 thread / cold 1 thread):
 * the map after MADV_WILLNEED, cold 4.4k; the map where mincore() says
 * cached, else pread: 37k / 6.4k.
 */
#include "lmdb_read.h"

#include "lmdb_caffe.h"

#include "bale_backend.h"

#include <errno.h>
#include <inttypes.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* Linux 5.14 */
#endif

/* A sample's reads so far, as far as the map path cares. */
enum { LMDB_UNREAD, LMDB_CACHED, LMDB_MAPPED };

/* One open file, shared by the handles of this process. */
struct lmdb_env {
	struct lmdb_env *next;
	unsigned refs;
	dev_t dev;
	ino_t ino;
	MDB_env *env;
	MDB_dbi dbi;
	int fd;
	const char *map;	/* where LMDB mapped the file, or NULL */
	atomic_int populate;	/* MADV_POPULATE_READ works */
	int caffe;
	char **keys;		/* sample i's key (caffe: the whole key) */
	uint64_t n;
	struct bale_buf arena;
	atomic_uchar *state;	/* per sample: LMDB_UNREAD ... */
};

static pthread_mutex_t lmdb_envs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lmdb_env *lmdb_envs;

static int lmdb_rfail(struct bale_reader *r, const char *what, int err)
{
	return bale_reader_seterr(r, BALE_EBACKEND, "lmdb: %s: %s", what,
	    mdb_strerror(err));
}

/* Where LMDB mapped the file: the start of the mapping (from offset 0)
 * that holds @inside, a pointer LMDB returned. NULL if not found; the
 * reader then reads every value from the map. */
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

/* ---- the shared environment ---------------------------------------- */

static int lmdb_add_key(struct lmdb_env *e, const char *k, size_t n,
    size_t *cap)
{
	if (e->n == *cap) {
		char **nk;

		*cap = *cap ? *cap * 2 : 1024;
		nk = realloc(e->keys, *cap * sizeof(char *));
		if (!nk)
			return -1;
		e->keys = nk;
	}
	e->keys[e->n++] = (char *)(uintptr_t)e->arena.len;
	bale_buf_add(&e->arena, k, n);
	bale_buf_add(&e->arena, "", 1);
	return e->arena.failed ? -1 : 0;
}

/* Every key of the file (the caffe layout has no key list). */
static int lmdb_list_keys(struct bale_reader *r, struct lmdb_env *e,
    MDB_txn *txn)
{
	MDB_cursor *c;
	MDB_cursor_op op = MDB_FIRST;
	MDB_val k;
	MDB_val v;
	size_t cap = 0;
	int err = mdb_cursor_open(txn, e->dbi, &c);

	if (err)
		return lmdb_rfail(r, "cannot list keys", err);
	for (err = mdb_cursor_get(c, &k, &v, op); err == 0;
	    err = mdb_cursor_get(c, &k, &v, op)) {
		op = MDB_NEXT;
		if (lmdb_add_key(e, k.mv_data, k.mv_size, &cap) != 0)
			break;
	}
	mdb_cursor_close(c);
	if (err == 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "lmdb: no memory");
	return err == MDB_NOTFOUND ? BALE_OK :
	    lmdb_rfail(r, "cannot list keys", err);
}

/* Sample keys: __keys__ (default layout), else every key (caffe). */
static int lmdb_load_keys(struct bale_reader *r, struct lmdb_env *e,
    MDB_txn *txn)
{
	MDB_val k = { 8, "__keys__" };
	MDB_val v = { 0, NULL };
	const char *p;
	const char *end;
	const char *nl;
	size_t cap = 0;
	uint64_t i;
	int rc = BALE_OK;

	if (mdb_get(txn, e->dbi, &k, &v) != 0) {
		e->caffe = 1;
		rc = lmdb_list_keys(r, e, txn);
		v.mv_data = "";		/* no key list to walk */
	}
	/* default layout: one key per line */
	for (p = v.mv_data, end = p + v.mv_size; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl : end;
		if (nl > p && lmdb_add_key(e, p, (size_t)(nl - p), &cap))
			return bale_reader_seterr(r, BALE_ENOMEM,
			    "lmdb: no memory");
	}
	for (i = 0; rc == BALE_OK && i < e->n; i++)
		e->keys[i] = e->arena.data + (uintptr_t)e->keys[i];
	return rc;
}

/* The map's start, from the first key's address. */
static const char *lmdb_find_map(MDB_txn *txn, MDB_dbi dbi)
{
	MDB_cursor *c;
	MDB_val k;
	MDB_val v;
	const char *base = NULL;

	if (mdb_cursor_open(txn, dbi, &c) != 0)
		return NULL;
	if (mdb_cursor_get(c, &k, &v, MDB_FIRST) == 0)
		base = lmdb_map_base(k.mv_data);
	mdb_cursor_close(c);
	return base;
}

static void lmdb_env_free(struct lmdb_env *e)
{
	if (e->env)
		mdb_env_close(e->env);
	free(e->keys);
	free(e->state);
	bale_buf_release(&e->arena);
	free(e);
}

/* Open @path's environment and read its key list. */
static int lmdb_env_create(struct bale_reader *r, const char *path,
    int nosubdir, const struct stat *data, struct lmdb_env **out)
{
	unsigned flags = MDB_RDONLY | MDB_NOLOCK | MDB_NORDAHEAD | MDB_NOTLS;
	struct lmdb_env *e = calloc(1, sizeof(*e));
	MDB_txn *txn = NULL;
	int err;
	int rc;

	if (!e)
		return bale_reader_seterr(r, BALE_ENOMEM, "lmdb: no memory");
	e->dev = data->st_dev;
	e->ino = data->st_ino;
	atomic_init(&e->populate, 1);
	err = mdb_env_create(&e->env);
	if (err == 0)
		err = mdb_env_open(e->env, path, flags | (nosubdir ?
		    MDB_NOSUBDIR : 0), 0644);
	if (err == 0)
		err = mdb_txn_begin(e->env, NULL, MDB_RDONLY, &txn);
	if (err == 0)
		err = mdb_dbi_open(txn, NULL, 0, &e->dbi);
	if (err == 0)
		err = mdb_env_get_fd(e->env, &e->fd);
	rc = err ? lmdb_rfail(r, path, err) : lmdb_load_keys(r, e, txn);
	if (rc == BALE_OK)
		e->map = lmdb_find_map(txn, e->dbi);
	e->state = calloc(e->n ? e->n : 1, sizeof(*e->state));
	if (rc == BALE_OK && !e->state)
		rc = bale_reader_seterr(r, BALE_ENOMEM, "lmdb: no memory");
	if (txn)
		mdb_txn_abort(txn);
	if (rc != BALE_OK) {
		lmdb_env_free(e);
		return rc;
	}
	*out = e;
	return BALE_OK;
}

/* The environment of @path, shared with the handles that have it open. */
static int lmdb_env_get(struct bale_reader *r, const char *path,
    const char *data_file, int nosubdir, struct lmdb_env **out)
{
	struct stat sb;
	struct lmdb_env *e;
	int rc = BALE_OK;

	if (stat(data_file, &sb) != 0)
		return bale_reader_seterr(r, BALE_ENOENT,
		    "lmdb: cannot open '%s': %s", path, strerror(errno));
	pthread_mutex_lock(&lmdb_envs_lock);
	for (e = lmdb_envs; e; e = e->next)
		if (e->dev == sb.st_dev && e->ino == sb.st_ino)
			break;
	if (!e)
		rc = lmdb_env_create(r, path, nosubdir, &sb, &e);
	if (rc == BALE_OK && e->refs++ == 0) {
		e->next = lmdb_envs;
		lmdb_envs = e;
	}
	pthread_mutex_unlock(&lmdb_envs_lock);
	*out = rc == BALE_OK ? e : NULL;
	return rc;
}

static void lmdb_env_put(struct lmdb_env *e)
{
	struct lmdb_env **p;

	pthread_mutex_lock(&lmdb_envs_lock);
	if (--e->refs == 0) {
		for (p = &lmdb_envs; *p != e; p = &(*p)->next)
			;
		*p = e->next;
		lmdb_env_free(e);
	}
	pthread_mutex_unlock(&lmdb_envs_lock);
}

/* ---- a handle --------------------------------------------------------- */

/* Copy @v's bytes with one pread at their file offset. */
static int lmdb_pread(struct bale_reader *r, struct lmdb_r *st,
    const MDB_val *v, const unsigned char **out)
{
	const char *p = v->mv_data;
	ssize_t got;

	if (bale_grow(&st->buf, &st->bufcap, v->mv_size) != 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "lmdb: no memory");
	got = pread(st->e->fd, st->buf, v->mv_size, (off_t)(p - st->e->map));
	if (got != (ssize_t)v->mv_size)
		return bale_reader_seterr(r, BALE_EIO, "lmdb: cannot read: %s",
		    got < 0 ? strerror(errno) : "short read");
	*out = st->buf;
	return BALE_OK;
}

/* Map the pages of @v, cached by an earlier pread, in one call. */
static int lmdb_populate(struct lmdb_r *st, const MDB_val *v)
{
	uintptr_t lo = (uintptr_t)v->mv_data & ~(uintptr_t)(st->page - 1);
	uintptr_t hi = (uintptr_t)v->mv_data + v->mv_size;

	if (!atomic_load_explicit(&st->e->populate, memory_order_relaxed))
		return -1;
	if (madvise((void *)lo, hi - lo, MADV_POPULATE_READ) == 0)
		return 0;
	if (errno == EINVAL)	/* kernel older than 5.14 */
		atomic_store_explicit(&st->e->populate, 0,
		    memory_order_relaxed);
	return -1;
}

/* Sample @i's value @v: in place when small (inside its leaf page), else
 * by pread; with map=1, mapped from the sample's second read on. */
static int lmdb_value(struct bale_reader *r, struct lmdb_r *st, uint64_t i,
    const MDB_val *v, const unsigned char **out)
{
	atomic_uchar *state = &st->e->state[i];
	unsigned char seen;

	*out = v->mv_data;
	if (!st->e->map || v->mv_size <= (size_t)st->page)
		return BALE_OK;
	if (!st->map_reads)
		return lmdb_pread(r, st, v, out);
	seen = atomic_load_explicit(state, memory_order_relaxed);
	if (seen == LMDB_MAPPED)
		return BALE_OK;
	if (seen == LMDB_CACHED && lmdb_populate(st, v) == 0) {
		atomic_store_explicit(state, LMDB_MAPPED,
		    memory_order_relaxed);
		return BALE_OK;
	}
	atomic_store_explicit(state, LMDB_CACHED, memory_order_relaxed);
	return lmdb_pread(r, st, v, out);
}

/* Default layout: K.cls, K.image and K.json are adjacent keys: one
 * cursor descent finds the first, one step each the others. */
static int lmdb_rget_default(struct bale_reader *r, struct lmdb_r *st,
    uint64_t i, struct bale_blob *out)
{
	const char *key = st->e->keys[i];
	size_t len = strlen(key);
	MDB_val img;
	MDB_val cls;
	MDB_val json;
	MDB_val k;
	char want[600];
	int64_t stored = 0;
	int err;

	if (len + sizeof(".image") > sizeof(want))	/* over LMDB's 511 */
		return bale_reader_seterr(r, BALE_EINVAL, "lmdb: key "
		    "'%.40s...' is too long", key);
	k.mv_size = (size_t)snprintf(want, sizeof(want), "%s.cls", key);
	k.mv_data = want;
	err = mdb_cursor_get(st->cursor, &k, &cls, MDB_SET);
	if (err == 0)
		err = mdb_cursor_get(st->cursor, &k, &img, MDB_NEXT);
	if (err == 0 && (k.mv_size != len + 6 ||
	    memcmp((char *)k.mv_data + len, ".image", 6) != 0))
		err = MDB_NOTFOUND;
	if (err == 0 && !st->no_meta)
		err = mdb_cursor_get(st->cursor, &k, &json, MDB_NEXT);
	if (err == 0 && !st->no_meta && (k.mv_size != len + 5 ||
	    memcmp((char *)k.mv_data + len, ".json", 5) != 0))
		err = MDB_NOTFOUND;
	if (err == MDB_NOTFOUND)
		return bale_reader_seterr(r, BALE_EINVAL, "lmdb: %s: its .cls, "
		    ".image and .json records are not all there", key);
	if (err)
		return lmdb_rfail(r, key, err);
	if (bale_meta_label(cls.mv_data, cls.mv_size, &out->label) != 0)
		return bale_reader_seterr(r, BALE_EINVAL, "lmdb: %s: bad label",
		    key);
	free(st->path);
	st->path = NULL;
	if (!st->no_meta) {
		if (!bale_meta_label_agrees(json.mv_data, json.mv_size,
		    out->label, &stored))
			return bale_reader_seterr(r, BALE_EINVAL, "lmdb: %s: "
			    "label %" PRId64 " in .cls, %" PRId64 " in .json",
			    key, out->label, stored);
		bale_meta_parse(json.mv_data, json.mv_size, &st->path,
		    &out->crc32, &out->has_crc32);
	}
	out->key = key;
	out->path = st->path;
	out->size = img.mv_size;
	return lmdb_value(r, st, i, &img, &out->data);
}

/* Caffe layout: the data and label of the Datum (lmdb_caffe.c). */
static int lmdb_rget_caffe(struct bale_reader *r, struct lmdb_r *st,
    uint64_t i, struct bale_blob *out)
{
	const char *key = st->e->keys[i];
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v;
	MDB_val data = { 0, NULL };
	const unsigned char *p;
	int err = mdb_get(st->txn, st->e->dbi, &k, &v);

	if (err)
		return lmdb_rfail(r, key, err);
	if (lmdb_caffe_parse(v.mv_data, v.mv_size, &p, &data.mv_size,
	    &out->label) != 0)
		return bale_reader_seterr(r, BALE_EINVAL, "lmdb: '%s' is not a "
		    "Caffe Datum", key);
	data.mv_data = (void *)p;
	snprintf(st->key, sizeof(st->key), "%010llu",
	    strtoull(key, NULL, 10));
	out->key = st->key;
	out->path = strchr(key, '_') ? strchr(key, '_') + 1 : NULL;
	out->size = data.mv_size;
	return lmdb_value(r, st, i, &data, &out->data);
}

static int lmdb_rget(struct bale_reader *r, void *priv, uint64_t i,
    struct bale_blob *out)
{
	struct lmdb_r *st = priv;

	if (i >= st->e->n)
		return bale_reader_seterr(r, BALE_EINVAL, "lmdb: no sample %"
		    PRIu64, i);
	return st->e->caffe ? lmdb_rget_caffe(r, st, i, out) :
	    lmdb_rget_default(r, st, i, out);
}

static int lmdb_ropen(struct bale_reader *r, void *priv, const char *path)
{
	struct lmdb_r *st = priv;
	struct stat sb;
	int err;
	int rc;

	if (stat(path, &sb) != 0)
		return bale_reader_seterr(r, BALE_ENOENT,
		    "lmdb: cannot open '%s': %s", path, strerror(errno));
	st->page = sysconf(_SC_PAGESIZE);
	st->files[0] = S_ISDIR(sb.st_mode) ?
	    bale_strfmt("%s/data.mdb", path) : strdup(path);
	if (!st->files[0])
		return bale_reader_seterr(r, BALE_ENOMEM, "lmdb: no memory");
	rc = lmdb_env_get(r, path, st->files[0], !S_ISDIR(sb.st_mode),
	    &st->e);
	if (rc != BALE_OK)
		return rc;
	err = mdb_txn_begin(st->e->env, NULL, MDB_RDONLY, &st->txn);
	if (err == 0)
		err = mdb_cursor_open(st->txn, st->e->dbi, &st->cursor);
	return err ? lmdb_rfail(r, path, err) : BALE_OK;
}

static int lmdb_rcount(struct bale_reader *r, void *priv, uint64_t *n)
{
	(void)r;
	*n = ((struct lmdb_r *)priv)->e->n;
	return BALE_OK;
}

static void lmdb_info_value(struct lmdb_r *st, const char *name,
    const char *key)
{
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v;

	bale_buf_printf(&st->info, ",\"%s\":", name);
	if (mdb_get(st->txn, st->e->dbi, &k, &v) == 0)
		bale_buf_add(&st->info, v.mv_data, v.mv_size);
	else
		bale_buf_puts(&st->info, "null");
}

static int lmdb_rinfo(struct bale_reader *r, void *priv, const char **json)
{
	struct lmdb_r *st = priv;

	bale_buf_reset(&st->info);
	bale_buf_printf(&st->info, "{\"layout\":\"%s\"",
	    st->e->caffe ? "caffe" : "default");
	if (!st->e->caffe) {
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
	if (st->e)
		lmdb_env_put(st->e);
	free(st->buf);
	free(st->path);
	free(st->files[0]);
	bale_buf_release(&st->info);
}

static int lmdb_roption(struct bale_reader *r, void *priv, const char *key,
    const char *value)
{
	struct lmdb_r *st = priv;
	int on = strcmp(value, "0") != 0;

	(void)r;
	if (strcmp(key, "meta") == 0)
		st->no_meta = !on;
	else if (strcmp(key, "map") == 0)
		st->map_reads = on;
	else
		return BALE_ENOOPT;
	return BALE_OK;
}

const struct bale_reader_ops bale_lmdb_reader = {
	.option = lmdb_roption,
	.open = lmdb_ropen,
	.count = lmdb_rcount,
	.get = lmdb_rget,
	.files = lmdb_rfiles,
	.info = lmdb_rinfo,
	.release = lmdb_rrelease,
};
