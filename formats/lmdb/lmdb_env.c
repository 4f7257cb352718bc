/* lmdb_env.c - the process-wide cache of open LMDB environments
 * (lmdb_env.h), what an environment learns once (where LMDB mapped the
 * file), and what each version of it holds: its keys, in sample order. */
#include "lmdb_env.h"
#include "lmdb_pages.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t lmdb_envs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lmdb_env *lmdb_envs;
static pthread_once_t lmdb_fork_once = PTHREAD_ONCE_INIT;

/* The cache's lock is held across fork(), so that a child never starts
 * with it taken by a thread it does not have. */
static void lmdb_fork_prepare(void)
{
	pthread_mutex_lock(&lmdb_envs_lock);
}

static void lmdb_fork_done(void)
{
	pthread_mutex_unlock(&lmdb_envs_lock);
}

static void lmdb_fork_guard(void)
{
	pthread_atfork(lmdb_fork_prepare, lmdb_fork_done, lmdb_fork_done);
}

static int lmdb_env_fail(struct bale_reader *r, const char *what, int err)
{
	return bale_reader_seterr(r, BALE_EBACKEND, "%s: %s", what,
	    mdb_strerror(err));
}

/* ---- the shared environment ---------------------------------------- */

int bale_lmdb_env_holds(const struct lmdb_env *e, const struct lmdb_view *w,
    const MDB_val *v)
{
	const char *p = v->mv_data;

	if (!e->map)
		return 1;
	return p >= e->map && v->mv_size <= w->size &&
	    (uint64_t)(p - e->map) <= w->size - v->mv_size;
}

int32_t bale_lmdb_label_at(const unsigned char *labels, uint64_t i)
{
	int32_t l;

	memcpy(&l, labels + i * sizeof(l), sizeof(l));
	return l;
}

int bale_lmdb_read_labels(const struct lmdb_env *e,
    const unsigned char *at, uint64_t n, int64_t *out)
{
	return bale_file_pread_int32s(e->fd, (uint64_t)((const char *)at -
	    e->map), n, out);
}

static int lmdb_add_key(struct lmdb_view *e, const char *k, size_t n,
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

int bale_lmdb_env_outside(struct bale_reader *r, const char *what)
{
	return bale_reader_seterr(r, BALE_EBACKEND, "%s reaches past "
	    "the end of the data file (a damaged page)", what);
}

/* Every key of the file (the caffe layout has no key list). */
static int lmdb_list_keys(struct bale_reader *r, const struct lmdb_env *env,
    struct lmdb_view *e, MDB_txn *txn)
{
	MDB_cursor *c;
	MDB_cursor_op op = MDB_FIRST;
	MDB_val k;
	MDB_val v;
	size_t cap = 0;
	int err = mdb_cursor_open(txn, env->dbi, &c);

	if (err)
		return lmdb_env_fail(r, "cannot list keys", err);
	for (err = mdb_cursor_get(c, &k, &v, op); err == 0;
	    err = mdb_cursor_get(c, &k, &v, op)) {
		op = MDB_NEXT;
		if (!bale_lmdb_env_holds(env, e, &k)) {
			mdb_cursor_close(c);
			return bale_lmdb_env_outside(r, "a key");
		}
		if (lmdb_add_key(e, k.mv_data, k.mv_size, &cap) != 0)
			break;
	}
	mdb_cursor_close(c);
	if (err == 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	return err == MDB_NOTFOUND ? BALE_OK :
	    lmdb_env_fail(r, "cannot list keys", err);
}

/* __labels__: one int32 per key of __keys__, in its order, read in the
 * map. One of another length (written by something else, or out of
 * step) is not used: labels then come from each K.cls record. */
static int lmdb_find_labels(const struct lmdb_env *env, struct lmdb_view *e,
    MDB_txn *txn)
{
	MDB_val k = { 10, "__labels__" };
	MDB_val v;

	if (mdb_get(txn, env->dbi, &k, &v) == 0 &&
	    v.mv_size == e->n * sizeof(int32_t) &&
	    bale_lmdb_env_holds(env, e, &v))
		e->labels = v.mv_data;
	return BALE_OK;
}

/* __keys__ whose lines are all as long as its first (bale's keys: ten
 * digits) is read in place, in the map: n is its size over the width,
 * and each line is checked when it is read (bale_lmdb_view_key). */
static int lmdb_fixed_keys(struct lmdb_view *e, const MDB_val *v)
{
	const char *p = v->mv_data;
	const char *nl = v->mv_size ? memchr(p, '\n', v->mv_size) : NULL;
	size_t width = nl ? (size_t)(nl - p) + 1 : 0;

	if (width < 2 || width > 32 || v->mv_size % width != 0)
		return 0;
	e->fixed = p;
	e->width = width;
	e->n = v->mv_size / width;
	return 1;
}

const char *bale_lmdb_view_key(const struct lmdb_view *v, uint64_t i,
    char *buf, size_t cap)
{
	const char *line;
	size_t len;

	if (!v->fixed)
		return v->keys[i];
	line = v->fixed + i * v->width;
	len = v->width - 1;
	if (len >= cap || line[len] != '\n' || memchr(line, '\n', len))
		return NULL;
	memcpy(buf, line, len);
	buf[len] = '\0';
	return buf;
}

/* Sample keys: __keys__ (default layout), else every key (caffe). */
static int lmdb_load_keys(struct bale_reader *r, const struct lmdb_env *env,
    struct lmdb_view *e, MDB_txn *txn)
{
	MDB_val k = { 8, "__keys__" };
	MDB_val v = { 0, NULL };
	const char *p;
	const char *end;
	const char *nl;
	size_t cap = 0;
	uint64_t i;
	int rc = BALE_OK;

	if (mdb_get(txn, env->dbi, &k, &v) != 0) {
		e->caffe = 1;
		rc = lmdb_list_keys(r, env, e, txn);
		v.mv_data = "";		/* no key list to walk */
		v.mv_size = 0;
	} else if (!bale_lmdb_env_holds(env, e, &v)) {
		return bale_lmdb_env_outside(r, "__keys__");
	} else if (lmdb_fixed_keys(e, &v)) {
		return lmdb_find_labels(env, e, txn);
	}
	/* default layout: one key per line */
	for (p = v.mv_data, end = p + v.mv_size; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl : end;
		if (nl > p && lmdb_add_key(e, p, (size_t)(nl - p), &cap))
			return bale_reader_seterr(r, BALE_ENOMEM,
			    "no memory");
	}
	for (i = 0; rc == BALE_OK && i < e->n; i++)
		e->keys[i] = e->arena.data + (uintptr_t)e->keys[i];
	return rc == BALE_OK && !e->caffe ? lmdb_find_labels(env, e, txn) : rc;
}

static void lmdb_view_free(struct lmdb_view *v)
{
	free(v->keys);
	free(v->state);
	bale_buf_release(&v->arena);
	free(v);
}

static void lmdb_env_free(struct lmdb_env *e)
{
	struct lmdb_view *v;

	if (e->env)
		mdb_env_close(e->env);
	while ((v = e->views)) {
		e->views = v->next;
		lmdb_view_free(v);
	}
	free(e->data_file);
	free(e);
}

/* LMDB maps the file and trusts its meta page: pages past the end of a
 * file cut short would be touched through the map and kill the process
 * (SIGBUS). The pages it says are in use must all be in the file. */
uint64_t bale_lmdb_pages_need(MDB_env *env)
{
	MDB_envinfo info;
	MDB_stat st;

	if (mdb_env_info(env, &info) != 0 || mdb_env_stat(env, &st) != 0)
		return UINT64_MAX;
	return ((uint64_t)info.me_last_pgno + 1) * st.ms_psize;
}

int bale_lmdb_env_fits(MDB_env *env, const char *path, int nosubdir)
{
	char *data = nosubdir ? NULL : bale_strfmt("%s/data.mdb", path);
	struct stat sb;
	int fits = (nosubdir || data) && stat(data ? data : path, &sb) == 0 &&
	    (uint64_t)sb.st_size >= bale_lmdb_pages_need(env);

	free(data);
	return fits;
}

static int lmdb_check_size(struct bale_reader *r, MDB_env *env,
    const char *path, const struct stat *data)
{
	uint64_t need = bale_lmdb_pages_need(env);

	if (need == UINT64_MAX)
		return bale_reader_seterr(r, BALE_EBACKEND,
		    "%s: cannot read its meta page", path);
	if ((uint64_t)data->st_size < need)
		return bale_reader_seterr(r, BALE_EBACKEND, "%s: the "
		    "data file is cut short: %jd bytes, its pages need %"
		    PRIu64, path, (intmax_t)data->st_size, need);
	return BALE_OK;
}

/* Open @path's environment and read its key list. */
/* Register readers in the lock file when it can be written: then a
 * writer (an update) never reuses a page a reader's version holds. */
static unsigned lmdb_lock_flag(const char *path, int nosubdir)
{
	char *lock = bale_strfmt(nosubdir ? "%s-lock" : "%s/lock.mdb", path);
	int writable = lock && access(lock, W_OK) == 0;

	free(lock);
	return writable ? 0 : MDB_NOLOCK;
}

/* Open @e's environment with a map as large as an update could make
 * the file, so that a read transaction of a later version needs no new
 * map; where the address space is tight (a sanitizer's shadow, a
 * ulimit), smaller, down to what the file asks for. */
static int lmdb_env_open_mapped(struct lmdb_env *e, const char *path,
    unsigned flags, const struct stat *data)
{
	size_t sizes[] = { (size_t)1 << 40, 4 * (size_t)data->st_size, 0 };
	size_t i;
	int err = ENOMEM;

	for (i = 0; err == ENOMEM && i < sizeof(sizes) / sizeof(sizes[0]);
	    i++) {
		if (e->env)
			mdb_env_close(e->env);
		e->env = NULL;
		err = mdb_env_create(&e->env);
		if (err == 0 && sizes[i])
			err = mdb_env_set_mapsize(e->env, sizes[i]);
		if (err == 0)
			err = mdb_env_open(e->env, path, flags, 0644);
	}
	return err;
}

static int lmdb_env_create(struct bale_reader *r, const char *path,
    int nosubdir, const struct stat *data, struct lmdb_env **out)
{
	unsigned flags = MDB_RDONLY | MDB_NORDAHEAD | MDB_NOTLS |
	    lmdb_lock_flag(path, nosubdir) | (nosubdir ? MDB_NOSUBDIR : 0);
	struct lmdb_env *e = calloc(1, sizeof(*e));
	MDB_txn *txn = NULL;
	int err;
	int rc;

	if (!e)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	e->pid = getpid();
	e->dev = data->st_dev;
	e->ino = data->st_ino;
	atomic_init(&e->populate, 1);
	atomic_init(&e->reads, 0);
	err = lmdb_env_open_mapped(e, path, flags, data);
	rc = err ? lmdb_env_fail(r, path, err) :
	    lmdb_check_size(r, e->env, path, data);
	if (rc == BALE_OK)
		err = mdb_txn_begin(e->env, NULL, MDB_RDONLY, &txn);
	if (rc == BALE_OK && err == 0)
		err = mdb_dbi_open(txn, NULL, 0, &e->dbi);
	if (rc == BALE_OK && err == 0)
		err = mdb_env_get_fd(e->env, &e->fd);
	if (rc == BALE_OK && err == 0)	/* before a value is looked at */
		e->map = bale_lmdb_map_of(e->dev, e->ino, &e->map_len);
	if (rc == BALE_OK && err)
		rc = lmdb_env_fail(r, path, err);
	if (txn)
		mdb_txn_abort(txn);
	if (rc != BALE_OK) {
		lmdb_env_free(e);
		return rc;
	}
	*out = e;
	return BALE_OK;
}

/* A new view of @txn's version: its keys, and the file's size then
 * (a version's pages all lie inside the file as it is once it is
 * committed). */
static int lmdb_view_create(struct bale_reader *r, struct lmdb_env *e,
    MDB_txn *txn, struct lmdb_view **out)
{
	struct lmdb_view *v = calloc(1, sizeof(*v));
	struct stat sb;
	int rc;

	if (!v)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	v->txnid = mdb_txn_id(txn);
	rc = fstat(e->fd, &sb) != 0 ? bale_reader_seterr(r, BALE_EIO,
	    "cannot stat its data file: %s", strerror(errno)) :
	    BALE_OK;
	v->size = (uint64_t)sb.st_size;
	if (rc == BALE_OK && v->size < bale_lmdb_pages_need(e->env))
		rc = bale_reader_seterr(r, BALE_EBACKEND, "the data "
		    "file is cut short: %jd bytes", (intmax_t)sb.st_size);
	if (rc == BALE_OK)
		rc = lmdb_load_keys(r, e, v, txn);
	v->state = rc == BALE_OK ? calloc(v->n ? v->n : 1,
	    sizeof(*v->state)) : NULL;
	if (rc == BALE_OK && !v->state)
		rc = bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	if (rc != BALE_OK) {
		lmdb_view_free(v);
		return rc;
	}
	*out = v;
	return BALE_OK;
}

int bale_lmdb_view_get(struct bale_reader *r, struct lmdb_env *e, MDB_txn *txn,
    struct lmdb_view **out)
{
	size_t id = mdb_txn_id(txn);
	struct lmdb_view *v;
	int rc = BALE_OK;

	pthread_mutex_lock(&lmdb_envs_lock);
	for (v = e->views; v && v->txnid != id; v = v->next)
		;
	if (!v)
		rc = lmdb_view_create(r, e, txn, &v);
	if (rc == BALE_OK && v->refs++ == 0) {
		v->next = e->views;
		e->views = v;
	}
	pthread_mutex_unlock(&lmdb_envs_lock);
	*out = rc == BALE_OK ? v : NULL;
	return rc;
}

void bale_lmdb_view_put(struct lmdb_env *e, struct lmdb_view *v)
{
	struct lmdb_view **p;

	pthread_mutex_lock(&lmdb_envs_lock);
	if (--v->refs == 0) {
		for (p = &e->views; *p != v; p = &(*p)->next)
			;
		*p = v->next;
		lmdb_view_free(v);
	}
	pthread_mutex_unlock(&lmdb_envs_lock);
}

/* The environment of @path, shared with the handles of this process
 * that have it open. One inherited over a fork() is left alone: closing
 * it would be as wrong as using it, and the parent still owns it. */
int bale_lmdb_env_get(struct bale_reader *r, const char *path,
    const char *data_file, int nosubdir, struct lmdb_env **out)
{
	struct stat sb;
	struct lmdb_env *e;
	int rc = BALE_OK;

	if (stat(data_file, &sb) != 0)
		return bale_reader_seterr(r, BALE_ENOENT,
		    "cannot open '%s': %s", path, strerror(errno));
	pthread_once(&lmdb_fork_once, lmdb_fork_guard);
	pthread_mutex_lock(&lmdb_envs_lock);
	for (e = lmdb_envs; e; e = e->next)
		if (e->dev == sb.st_dev && e->ino == sb.st_ino &&
		    e->pid == getpid())
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

void bale_lmdb_env_put(struct lmdb_env *e)
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

