/* lmdb_read.c - random reads of bale's LMDB outputs (both layouts).
 *
 * Every reader handle of a process that opens the same file shares one
 * environment (lmdb_env.c). Each handle has its own read transaction and
 * cursor (MDB_NOTLS).
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
#include "lmdb_env.h"
#include "lmdb_pages.h"

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_store.h"

#include <errno.h>
#include <inttypes.h>
#include <lmdb.h>
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

static int lmdb_rfail(struct bale_reader *r, const char *what, int err)
{
	return bale_reader_seterr(r, BALE_EBACKEND, "%s: %s", what,
	    mdb_strerror(err));
}

/* ---- a handle --------------------------------------------------------- */

/* Copy @v's bytes with one pread at their file offset, into the data
 * buffer. */
static int lmdb_pread(struct bale_reader *r, struct lmdb_r *st,
    const MDB_val *v, const unsigned char **out)
{
	const char *p = v->mv_data;
	unsigned char *to;
	ssize_t got;

	if (bale_grow(&st->buf, &st->bufcap, v->mv_size) != 0 ||
	    !(to = bale_reader_data_buffer(r, st->buf, v->mv_size)))
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	got = pread(st->e->fd, to, v->mv_size, (off_t)(p - st->e->map));
	if (got != (ssize_t)v->mv_size)
		return bale_reader_seterr(r, BALE_EIO, "cannot read: %s",
		    got < 0 ? strerror(errno) : "short read");
	*out = to;
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
	atomic_uchar *state = &st->v->state[i];
	unsigned char seen;

	*out = v->mv_data;
	st->at_known = st->e->map != NULL;
	st->at = st->at_known ? (uint64_t)((const char *)v->mv_data -
	    st->e->map) : 0;
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

/* Room for a sample key and its longest suffix, .image: more than
 * LMDB's 511-byte keys. */
#define LMDB_KEY_ROOM 600

/* @k: sample @key's K.cls record, spelled out in @want (LMDB_KEY_ROOM
 * bytes). */
static int lmdb_cls_key(struct bale_reader *r, const char *key, char *want,
    MDB_val *k)
{
	if (strlen(key) + sizeof(".image") > LMDB_KEY_ROOM)
		return bale_reader_seterr(r, BALE_EINVAL, "key "
		    "'%.40s...' is too long", key);
	k->mv_size = (size_t)snprintf(want, LMDB_KEY_ROOM, "%s.cls", key);
	k->mv_data = want;
	return BALE_OK;
}

static int lmdb_bad_key_line(struct bale_reader *r, uint64_t i)
{
	return bale_reader_seterr(r, BALE_EINVAL, "line %" PRIu64
	    " of __keys__ is damaged", i + 1);
}

/* Default layout: K.cls, K.image and K.json are adjacent keys: one
 * cursor descent finds the first, one step each the others. */
static int lmdb_rget_default(struct bale_reader *r, struct lmdb_r *st,
    uint64_t i, struct bale_blob *out)
{
	const char *key = bale_lmdb_view_key(st->v, i, st->key,
	    sizeof(st->key));
	size_t len;
	MDB_val img;
	MDB_val cls;
	MDB_val json;
	MDB_val k;
	char want[LMDB_KEY_ROOM];
	int64_t stored = 0;
	int err;

	if (!key)
		return lmdb_bad_key_line(r, i);
	len = strlen(key);
	if (lmdb_cls_key(r, key, want, &k) != BALE_OK)
		return BALE_EINVAL;
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
		return bale_reader_seterr(r, BALE_EINVAL, "%s: its .cls, "
		    ".image and .json records are not all there", key);
	if (err)
		return lmdb_rfail(r, key, err);
	if (!bale_lmdb_env_holds(st->e, st->v, &cls) ||
	    !bale_lmdb_env_holds(st->e, st->v, &img) ||
	    (!st->no_meta && !bale_lmdb_env_holds(st->e, st->v, &json)))
		return bale_lmdb_env_outside(r, key);
	if (bale_meta_label(cls.mv_data, cls.mv_size, &out->label) != 0)
		return bale_reader_seterr(r, BALE_EINVAL, "%s: bad label",
		    key);
	free(st->path);
	st->path = NULL;
	if (!st->no_meta) {
		/* with the metadata (verify reads so), __labels__ too */
		if (st->v->labels && out->label !=
		    bale_lmdb_label_at(st->v->labels, i))
			return bale_reader_seterr(r, BALE_EINVAL, "%s: "
			    "label %" PRId64 " in .cls, %" PRId32 " in "
			    "__labels__", key, out->label,
			    bale_lmdb_label_at(st->v->labels, i));
		if (!bale_meta_label_agrees(json.mv_data, json.mv_size,
		    out->label, &stored))
			return bale_reader_seterr(r, BALE_EINVAL, "%s: "
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
	const char *key = st->v->keys[i];
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v;
	MDB_val data = { 0, NULL };
	const unsigned char *p;
	int err = mdb_get(st->txn, st->e->dbi, &k, &v);

	if (err)
		return lmdb_rfail(r, key, err);
	if (!bale_lmdb_env_holds(st->e, st->v, &v))
		return bale_lmdb_env_outside(r, key);
	err = bale_lmdb_caffe_parse(v.mv_data, v.mv_size, &p, &data.mv_size,
	    &out->label);
	if (err == -2)
		return bale_reader_seterr(r, BALE_EINVAL,
		    "'%s' holds raw pixels (a Caffe Datum not "
		    "encoded), not an image file", key);
	if (err != 0)
		return bale_reader_seterr(r, BALE_EINVAL, "'%s' is not a "
		    "Caffe Datum", key);
	data.mv_data = (void *)p;
	snprintf(st->key, sizeof(st->key), "%010llu",
	    strtoull(key, NULL, 10));
	out->key = st->key;
	out->path = strchr(key, '_') ? strchr(key, '_') + 1 : NULL;
	out->size = data.mv_size;
	return lmdb_value(r, st, i, &data, &out->data);
}

/* The label alone: the K.cls record, or the Datum's label field (its
 * data bytes skipped, not read). */
static int lmdb_rlabel(struct bale_reader *r, void *priv, uint64_t i,
    int64_t *label)
{
	struct lmdb_r *st = priv;
	const char *key;
	const unsigned char *data;
	char want[LMDB_KEY_ROOM];
	MDB_val k;
	MDB_val v;
	size_t n;
	int err;

	if (st->v->labels) {
		*label = bale_lmdb_label_at(st->v->labels, i);
		return BALE_OK;
	}
	key = bale_lmdb_view_key(st->v, i, st->key, sizeof(st->key));
	if (!key)
		return lmdb_bad_key_line(r, i);
	k.mv_size = strlen(key);
	k.mv_data = (void *)key;
	if (!st->v->caffe && lmdb_cls_key(r, key, want, &k) != BALE_OK)
		return BALE_EINVAL;
	err = mdb_get(st->txn, st->e->dbi, &k, &v);
	if (err)
		return lmdb_rfail(r, key, err);
	if (!bale_lmdb_env_holds(st->e, st->v, &v))
		return bale_lmdb_env_outside(r, key);
	if (st->v->caffe ? bale_lmdb_caffe_parse(v.mv_data, v.mv_size, &data,
	    &n, label) == -1 :
	    bale_meta_label(v.mv_data, v.mv_size, label) != 0)
		return bale_reader_seterr(r, BALE_EINVAL, "%s: bad label",
		    key);
	return BALE_OK;
}

/* Many labels: __labels__ read with one pread where the map's start is
 * known (the map reads it a page a fault, read-ahead being off), else
 * copied from the map; without it, each K.cls record. */
static int lmdb_rlabels(struct bale_reader *r, void *priv, uint64_t first,
    uint64_t n, int64_t *out)
{
	struct lmdb_r *st = priv;
	const unsigned char *l = st->v->labels;
	uint64_t i;
	int rc = BALE_OK;

	if (!l) {
		for (i = 0; rc == BALE_OK && i < n; i++)
			rc = lmdb_rlabel(r, priv, first + i, &out[i]);
		return rc;
	}
	if (st->e->map && bale_lmdb_read_labels(st->e, l + first * 4, n,
	    out) == 0)
		return BALE_OK;
	for (i = 0; i < n; i++)
		out[i] = bale_lmdb_label_at(l, first + i);
	return BALE_OK;
}

/* Every BALE_LMDB_LET_GO_EVERY samples the mapped pages are let go: a
 * reader going through millions (ls, verify) holds so many at most.
 * Reads out of order (training's) map pages far apart: they are not let
 * go more often, since a page let go faults back in, for memory the
 * kernel can take back anyway (a conversion reads them in place:
 * lmdb_rwhere). */
static int lmdb_rget(struct bale_reader *r, void *priv, uint64_t i,
    struct bale_blob *out)
{
	struct lmdb_r *st = priv;
	unsigned long n;

	if (i >= st->v->n)
		return bale_reader_seterr(r, BALE_EINVAL, "no sample %"
		    PRIu64, i);
	st->at_known = 0;
	n = atomic_fetch_add_explicit(&st->e->reads, 1, memory_order_relaxed);
	if (n % BALE_LMDB_LET_GO_EVERY == BALE_LMDB_LET_GO_EVERY - 1)
		bale_lmdb_let_go_of(st->e->map, st->e->map_len,
		    (size_t)st->v->size);
	return st->v->caffe ? lmdb_rget_caffe(r, st, i, out) :
	    lmdb_rget_default(r, st, i, out);
}

/* The last get's bytes lie in the data file as stored (a value is never
 * encoded), and stay there while this handle's read transaction lives:
 * LMDB does not reuse a page a live reader's version holds. */
static int lmdb_rwhere(struct bale_reader *r, void *priv, int *fd,
    uint64_t *offset)
{
	struct lmdb_r *st = priv;

	(void)r;
	if (!st->at_known)
		return BALE_ENOTSUP;
	*fd = st->e->fd;
	*offset = st->at;
	return BALE_OK;
}

static int lmdb_ropen(struct bale_reader *r, void *priv, const char *path)
{
	struct lmdb_r *st = priv;
	struct stat sb;
	int err;
	int rc;

	if (!bale_store_is_local(path))
		return bale_reader_seterr(r, BALE_ENOTSUP, "'%s': LMDB maps "
		    "a local file into memory and cannot be read from an "
		    "object store: copy its folder to a local disk first, or "
		    "pack a wds or hdf5 output, which bale reads from object "
		    "stores by ranged GETs", path);
	if (stat(path, &sb) != 0)
		return bale_reader_seterr(r, BALE_ENOENT,
		    "cannot open '%s': %s", path, strerror(errno));
	st->page = sysconf(_SC_PAGESIZE);
	st->files[0] = S_ISDIR(sb.st_mode) ?
	    bale_strfmt("%s/data.mdb", path) : strdup(path);
	if (!st->files[0])
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	bale_reader_describe(r, (const char *const *)st->files, NULL);
	rc = bale_lmdb_env_get(r, path, st->files[0], !S_ISDIR(sb.st_mode),
	    &st->e);
	if (rc != BALE_OK)
		return rc;
	err = mdb_txn_begin(st->e->env, NULL, MDB_RDONLY, &st->txn);
	if (err == 0)
		err = mdb_cursor_open(st->txn, st->e->dbi, &st->cursor);
	if (err)
		return lmdb_rfail(r, path, err);
	return bale_lmdb_view_get(r, st->e, st->txn, &st->v);
}

static int lmdb_rcount(struct bale_reader *r, void *priv, uint64_t *n)
{
	(void)r;
	*n = ((struct lmdb_r *)priv)->v->n;
	return BALE_OK;
}

static void lmdb_info_value(struct lmdb_r *st, const char *name,
    const char *key)
{
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v;

	bale_buf_printf(&st->info, ",\"%s\":", name);
	if (mdb_get(st->txn, st->e->dbi, &k, &v) == 0 &&
	    bale_lmdb_env_holds(st->e, st->v, &v))
		bale_buf_add(&st->info, v.mv_data, v.mv_size);
	else
		bale_buf_puts(&st->info, "null");
}

static int lmdb_rinfo(struct bale_reader *r, void *priv, const char **json)
{
	struct lmdb_r *st = priv;

	bale_buf_reset(&st->info);
	bale_buf_printf(&st->info, "{\"layout\":\"%s\"",
	    st->v->caffe ? "caffe" : "default");
	if (!st->v->caffe) {
		lmdb_info_value(st, "bale", "__bale__");
		lmdb_info_value(st, "classes", "__classes__");
	}
	bale_buf_puts(&st->info, "}");
	if (st->info.failed)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	*json = st->info.data;
	return BALE_OK;
}

static void lmdb_rrelease(void *priv)
{
	struct lmdb_r *st = priv;

	if (st->cursor)
		mdb_cursor_close(st->cursor);
	if (st->txn)
		mdb_txn_abort(st->txn);
	if (st->v)
		bale_lmdb_view_put(st->e, st->v);
	if (st->e)
		bale_lmdb_env_put(st->e);
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
	.label = lmdb_rlabel,
	.labels = lmdb_rlabels,
	.info = lmdb_rinfo,
	.release = lmdb_rrelease,
	.where = lmdb_rwhere,
};
