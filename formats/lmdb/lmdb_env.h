/* lmdb_env.h - the LMDB environments open in this process, one per
 * file, shared by every reader handle of that file: LMDB forbids opening
 * a file twice in one process, and with one mapping a page one thread
 * mapped is mapped for all. A child process never shares its parent's:
 * LMDB handles must not cross a fork().
 *
 * An output can change while it is open (bale pack --update writes a new
 * version in place): each handle's read transaction keeps the version it
 * began with, and the key list of each version is a view, loaded once
 * and shared by the handles that read that version. Where the lock file
 * is writable, the environment registers its readers in it, so a writer
 * never reuses the pages of a version a handle still reads (LMDB's MVCC);
 * elsewhere (read-only media) it opens without one. */
#ifndef LMDB_ENV_H
#define LMDB_ENV_H

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <lmdb.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

/* One version of the file, as the read transactions that began with it
 * see it. */
struct lmdb_view {
	struct lmdb_view *next;
	unsigned refs;
	size_t txnid;		/* the version */
	uint64_t size;		/* of the data file then: its pages lie below */
	int caffe;
	char **keys;		/* sample i's key (caffe: the whole key), or
				 * NULL when @fixed holds them */
	const char *fixed;	/* __keys__ in the map when its lines are
				 * all @width bytes ("0000000042\n"): key i
				 * is read there, no per-sample memory */
	size_t width;
	uint64_t n;
	struct bale_buf arena;
	const unsigned char *labels;	/* __labels__ in the map: an int32
					 * per key, maybe unaligned (a small
					 * value lies inside its page); NULL:
					 * made before it, or not in step */
	atomic_uchar *state;	/* per sample: LMDB_UNREAD ... */
};

/* One open file, shared by the handles of this process. */
struct lmdb_env {
	struct lmdb_env *next;
	unsigned refs;
	pid_t pid;		/* the process that opened it */
	dev_t dev;
	ino_t ino;
	MDB_env *env;
	MDB_dbi dbi;
	int fd;
	char *data_file;
	const char *map;	/* where LMDB mapped the file, or NULL */
	size_t map_len;
	atomic_ulong reads;	/* samples read: every so many, the pages
				 * mapped are let go (lmdb_pages.c) */
	atomic_int populate;	/* MADV_POPULATE_READ works */
	struct lmdb_view *views;	/* under the cache's lock */
};

/** @n labels of __labels__ at @at (in @e's map) into @out, read with
 *  pread from the data file: one read, not a page fault per 4 KiB.
 *  @return 0, or -1 (the caller copies them from the map) */
int bale_lmdb_read_labels(const struct lmdb_env *e,
    const unsigned char *at, uint64_t n, int64_t *out);
/** Sample @i's key (i < n) as a C string: in @buf (@cap bytes) when
 *  the keys are read from the map; NULL when that line is damaged. */
const char *bale_lmdb_view_key(const struct lmdb_view *v, uint64_t i,
    char *buf, size_t cap);
/** Label @i of __labels__ at @labels. */
int32_t bale_lmdb_label_at(const unsigned char *labels, uint64_t i);

/** The environment of @path (its data file @data_file; @nosubdir: @path
 *  is that file), opened by the first handle, shared with the others;
 *  give it back with bale_lmdb_env_put(). */
int bale_lmdb_env_get(struct bale_reader *r, const char *path,
    const char *data_file, int nosubdir, struct lmdb_env **out);

/** The view of the version @txn reads, its keys loaded by the first
 *  handle that reads it; give it back with bale_lmdb_view_put(). */
int bale_lmdb_view_get(struct bale_reader *r, struct lmdb_env *e, MDB_txn *txn,
    struct lmdb_view **out);

void bale_lmdb_view_put(struct lmdb_env *e, struct lmdb_view *v);

/** 1 when value @v, as LMDB returned it, lies inside the file of @w's
 *  version (always, when the map was not found). A damaged page can give
 *  a size that reaches past the file's end, and touching that kills the
 *  process. */
int bale_lmdb_env_holds(const struct lmdb_env *e, const struct lmdb_view *w,
    const MDB_val *v);

/** The error for @what (a key, a sample) whose bytes lie outside the
 *  file: BALE_EBACKEND, with the message set on @r. */
int bale_lmdb_env_outside(struct bale_reader *r, const char *what);

/** Give @e back; the last handle closes it. */
void bale_lmdb_env_put(struct lmdb_env *e);

/** The bytes the pages @env says are in use take (UINT64_MAX when its
 *  meta page cannot be read): a data file shorter than that is cut
 *  short, and reading it through the map would kill the process. */
uint64_t bale_lmdb_pages_need(MDB_env *env);

/** 1 when the environment @env opened at @path holds every page it says
 *  it uses (0: cut short, or its file cannot be stat'ed). */
int bale_lmdb_env_fits(MDB_env *env, const char *path, int nosubdir);

#endif
