/* lmdb_write.h - what the LMDB writer (lmdb_write.c) shares with its
 * descriptor (lmdb.c), resume and merge.
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
 *
 * Each commit is a checkpoint (bale pack --resume): the samples put whole
 * before it are kept by LMDB even if the process is killed. A resumed run
 * reopens N.lmdb.partial and deletes what was written after the journal's
 * checkpoint, and the metadata records.
 */
#ifndef BALE_LMDB_WRITE_H
#define BALE_LMDB_WRITE_H

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <lmdb.h>

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
	struct bale_spill keys;	/* "KEY\n" per sample */
	struct bale_spill labels;	/* int32 per sample: __labels__ */
	int labels_unfit;	/* a label outside int32: no __labels__ */
	int64_t resume_label;	/* resume: the last K.cls record's */
	struct bale_buf classes;
	struct bale_buf meta;
	uint64_t count;
	int published;
	int have_sample;	/* a sample was put whole */
	uint64_t last_index;	/* of the last sample put whole */
	uint64_t ckpt_next;	/* committed: every sample below */
};

/* the writer's ops (lmdb_write.c), its resume (lmdb_resume.c) */
extern const struct bale_writer_ops bale_lmdb_writer;
int bale_lmdb_resume(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs);

/* what the resume shares with the writer (lmdb_write.c) */
/** Note sample @label for __labels__. */
void bale_lmdb_note_label(struct lmdb_w *st, int64_t label);
int bale_lmdb_fail(struct bale_writer *w, const struct lmdb_w *st,
    const char *what, int err);
int bale_lmdb_paths(struct bale_writer *w, struct lmdb_w *st,
    const char *dir, const struct bale_dataset *ds);
int bale_lmdb_env_start(struct bale_writer *w, struct lmdb_w *st,
    const struct bale_dataset *ds);
int bale_lmdb_start_fresh(struct bale_writer *w, struct lmdb_w *st,
    const struct bale_dataset *ds);
int bale_lmdb_begin(struct bale_writer *w, struct lmdb_w *st);
int bale_lmdb_commit(struct bale_writer *w, struct lmdb_w *st);

/** Remove the environment at @path (a folder, or with @nosubdir a file
 *  and its -lock file). @return 0, or -1 with errno */
int bale_lmdb_remove(const char *path, int nosubdir);

/** The __bale__ record of a default-layout output of @count samples. */
void bale_lmdb_bale_record(struct bale_buf *b, uint64_t count);

/** Lines of a __keys__ value of @n bytes: one key each, every one
 *  ended. */
uint64_t bale_lmdb_key_lines(const char *p, size_t n);

/** Record @key, the bytes kept in @spill, put (with @flags and
 *  MDB_RESERVE) straight from the spill into the room LMDB gives it
 *  (merge and update, whose maps are sized beforehand).
 *  @return 0, LMDB's error, or -1 when the spill cannot be read back
 *  (errno says why) */
int bale_lmdb_put_spill(MDB_txn *txn, MDB_dbi dbi, const char *key,
    const struct bale_spill *spill, unsigned flags);

/** Every record of the environment at @path (written by another run:
 *  checked not to be cut short), in key order, to @fn, which returns
 *  BALE_OK to go on. @return BALE_OK, @fn's error, or one with @err */
int bale_lmdb_each_record(const char *path, int nosubdir,
    int (*fn)(void *ctx, MDB_val *k, MDB_val *v), void *ctx,
    struct bale_errbuf *err);

/** bale merge: the parts' records copied in key order with MDB_APPEND
 *  into one environment, their __keys__ joined and counts summed. */
int bale_lmdb_merge(const struct bale_merge *m, struct bale_errbuf *err);

/** bale pack --update: the delta's records appended, the leaving
 *  samples' deleted, in one transaction (lmdb_update.c). */
int bale_lmdb_update(const struct bale_update *u, struct bale_errbuf *err);

#endif
