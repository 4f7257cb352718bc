/* wds.h - what the files of the WebDataset backend share.
 *
 *   wds.c          the backend object: probe, library, the ops tables
 *   wds_write.c    the writer: shards, members, the shard list
 *   wds_out.c      the tar bytes: ustar headers by hand, small writes
 *                  gathered
 *   wds_idx.c      the DALI .idx line codec, both directions
 *   wds_resume.c   picking up the shards a killed run finished
 *   wds_verify.c   reading a finished shard back to check it
 *   wds_read.c     the reader: shard list, .idx files, one pread a sample
 *   wds_fetch.c    a shard's bytes from its store (file, S3, https)
 *   wds_list.c     the shard list, written and read
 *   wds_merge.c    bale merge: the parts' shards linked in
 *   wds_update.c   bale pack --update: shards rewritten or moved in
 */
#ifndef WDS_H
#define WDS_H

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_store.h"

#include "wds_idx.h"
#include "wds_out.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdint.h>

#define WDS_BLOCK 512
#define WDS_END_BYTES 1024		/* two zero blocks close a tar */
#define WDS_DEFAULT_SHARD_SIZE ((uint64_t)1 << 30)

/* direct_io=: when shards are written with O_DIRECT (wds_dio.h) */
enum { WDS_DIRECT_AUTO, WDS_DIRECT_ON, WDS_DIRECT_OFF };

/* auto: the shards a run opens once it has written this much. A small
 * output stays in the page cache for whoever reads it next; a large
 * one cannot, and copying it there held the writer back (1 M samples
 * of 2.3 KB: 1.88x tar's time through the cache, 1.04x direct). */
#define WDS_DIRECT_AFTER ((uint64_t)1 << 30)

/* An open shard is a checkpoint every so many bytes (wds_partial.c), as
 * often as LMDB commits. */
#define WDS_CKPT_EVERY ((uint64_t)4 << 20)

struct wds_w {
	uint64_t max_count;	/* samples per shard; 0: no limit */
	uint64_t max_bytes;	/* shard file size limit; 0: no limit */
	int sync;		/* fsync shards and lists before renaming */
	int direct_io;		/* WDS_DIRECT_*: shards past the page cache */
	uint64_t run_bytes;	/* bytes of the shards this run closed */
	char *dir;
	char *name;
	int shard_open;		/* a shard is being written */
	int fd;
	struct wds_out out;	/* its tar bytes, on their way to fd */
	char *tmp;		/* the open shard's "*.partial" path */
	unsigned shard_no;	/* shards completed by this run */
	uint64_t shard_samples;
	uint64_t shard_bytes;	/* tar bytes so far in the open shard */
	uint64_t samples;
	struct bale_buf idx;	/* the open shard's index lines */
	struct bale_index_build bix;	/* its compact index (.bidx) */
	uint64_t member_end;	/* shard offset past the last member's data */
	struct bale_buf list;	/* shardlist entries so far */
	struct bale_buf classes;/* JSON array of class names */
	struct bale_buf meta;	/* the .json member being written */
	struct bale_buf scratch;
	int published;
	uint64_t last_index;	/* of the last sample put */
	uint64_t ckpt_bytes;	/* the open shard's length at its last
				 * checkpoint (0: none: it goes on failure) */
	uint64_t pend_bytes;	/* a checkpoint waiting for the direct
				 * writes to reach this length (0: none) */
	uint64_t pend_samples;
	uint64_t pend_index;
	/* in an object store (wds_remote.c) */
	int remote;
	struct bale_swrite *sw;	/* the open shard's upload */
	char *stem;		/* shards' names: NAME, or a replacing
				 * run's own (NULL: NAME) */
	struct bale_buf done;	/* each closed shard's [count,size] */
	struct bale_buf doc;	/* the shard list, rendered at finish */
};

/* The reader's state (wds_read.c). */
struct wds_r {
	char **paths;		/* shard paths, then idx paths, NULL-ended */
	struct bale_sfile **files;	/* the shards, open in their store */
	uint64_t *sizes;
	size_t nshards;		/* opened so far */
	size_t maxshards;	/* listed; idx paths from paths[maxshards] */
	struct wds_entry *entries;	/* parsed from the .idx files */
	uint64_t nentries;
	uint64_t cap;
	uint64_t n;		/* samples */
	int lazy;		/* check mode: entries hold one shard's */
	size_t loaded;		/* lazy: 1 + the shard they hold, or 0 */
	size_t unusable;	/* lazy: 1 + the last shard whose .idx would
				 * not parse, and why */
	char unusable_why[320];
	struct bale_buf arena;	/* keys */
	unsigned char *buf;
	size_t bufcap;
	char *path;		/* of the last get() */
	struct bale_index *ix;	/* per shard, when every shard has a
				 * sound .bidx (else entries, from .idx) */
	uint64_t *first;	/* with ix: each shard's first sample */
	unsigned char *ix_bad;	/* check mode: the shard's .bidx is there
				 * but damaged or stale */
	uint64_t *listed;	/* each shard's sample count, as listed */
	int images_only;	/* the benchmark's reference: one bare pread */
	int by_index;		/* reads go through the .bidx files */
	uint64_t reads;		/* every so many, the .bidx pages go */
	int check;		/* check_indexes=1: read through the .idx,
				 * compare each sample with its .bidx */
	int no_meta;		/* meta=0: bytes and label only */
	struct bale_buf info;
};

extern const struct bale_writer_ops bale_wds_writer;
extern const struct bale_reader_ops bale_wds_reader;

/** Fill @iov from byte @off of shard @shard, in full, or say why not in
 *  @r. @return BALE_OK or the store's error */
int bale_wds_read_at(struct bale_reader *r, struct wds_r *st, size_t shard,
    const struct iovec *iov, int iovcnt, uint64_t off);

#define WDS_LIST_SUFFIX "-shards.json"	/* NAME-shards.json: the list */

/** "@dir/@name-shards.json", the shard list; NULL without memory. */
char *bale_wds_list_path(const struct wds_w *st);

/* wds_bidx.c: the compact index beside each shard, NAME-NNNNNN.bidx:
 * per sample its label, key and where its image lies (off, size), with
 * its other members' bytes after it (tail). */

/** Write the open shard's .bidx (from st->bix) for a tar of @tar_size
 *  bytes; an index that cannot hold a sample (a label over 2^31, a member
 *  over 4 GiB) is not written, and none of that name is left.
 *  @return 0, or -1 with errno */
int bale_wds_bidx_publish(struct wds_w *st, uint64_t tar_size);

/** Map every shard's .bidx: 1 when all are sound (reads go through
 *  them), 0 when one is missing or stale (reads parse the .idx files),
 *  or a BALE_E* error. */
int bale_wds_bidx_open(struct bale_reader *r, struct wds_r *st);
/** get() through the indexes. */
int bale_wds_bidx_get(struct bale_reader *r, struct wds_r *st, uint64_t i,
    struct bale_blob *out);
/** Check mode: sample @i as read through the .idx (@e, its bytes in
 *  @out) against its .bidx entry, when the shard has one. */
int bale_wds_bidx_compare(struct bale_reader *r, const struct wds_r *st,
    uint64_t i, const struct wds_entry *e, const struct bale_blob *out);
/** Ask for samples [@first, @first + @n)'s bytes ahead, one GET per
 *  shard they lie in, spanning the ranges get() reads (the prefetch op,
 *  through the indexes): 1, 0 or -1 as bale_sfile_prefetch(). */
int bale_wds_bidx_prefetch(struct wds_r *st, uint64_t first, uint64_t n);
/** Labels [@first, @first + @n) from the indexes. BALE_OK or BALE_EIO */
int bale_wds_bidx_labels(const struct wds_r *st, uint64_t first,
    uint64_t n, int64_t *out);
/** Sample @i's shard and its place there, through the indexes. */
/** Let go of the mapped pages of every shard's .bidx. */
void bale_wds_bidx_let_go(const struct wds_r *st);
/** The shard of sample @i (by st->first), and its place there in *@j. */
size_t bale_wds_shard_of(const struct wds_r *st, uint64_t i, uint64_t *j);
const struct bale_index_loc *bale_wds_bidx_loc(const struct wds_r *st,
    uint64_t i, size_t *shard, uint64_t *j);
void bale_wds_bidx_close(struct wds_r *st);

/** "@dir/@name-%06u.@ext" for shard @no; NULL without memory. */
char *bale_wds_path(const struct wds_w *st, unsigned no, const char *ext);

/** Take the options, folder and dataset of an output to write. */
int bale_wds_init(struct bale_writer *w, struct wds_w *st, const char *dir,
    const struct bale_dataset *ds);

/** Add the open (or kept) shard to the shard list being built. */
void bale_wds_list_entry(struct wds_w *st, uint64_t filesize);

/** The writer's resume(): keep the shards a checkpoint covers. */
int bale_wds_resume(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs);

/** The sample just written (its image of @size bytes at @image_at,
 *  st->member_end past its last member) into the open shard's compact
 *  index. */
void bale_wds_index_sample(struct wds_w *st, int64_t label, const char *key,
    uint64_t size, uint64_t image_at);

/* wds_partial.c: the open shard as a checkpoint */

/** After a sample: a checkpoint of the open shard when it has grown by
 *  WDS_CKPT_EVERY since the last (once its bytes are in the file).
 *  @return BALE_OK, or BALE_EIO (said in @w) */
int bale_wds_partial_checkpoint(struct bale_writer *w, struct wds_w *st);

/** Resume: reopen the partial shard @state names (after the kept
 *  shards), cut back to its checkpoint and read back; when it does not
 *  hold what the checkpoint says, it is written again (said in
 *  @rs->note). @return BALE_OK, or BALE_ENOMEM */
int bale_wds_partial_resume(struct bale_writer *w, struct wds_w *st,
    const char *state, struct bale_resume *rs);

/* wds_remote.c: an output in an object store */

/** Open: an existing output refused (or, @replace, kept until publish,
 *  the new shards named afresh), a killed run's uploads let go. */
int bale_wds_remote_claim(struct bale_writer *w, struct wds_w *st,
    int replace);
/** Start shard object @tar's upload. */
int bale_wds_remote_open_shard(struct bale_writer *w, struct wds_w *st,
    const char *tar);
/** Complete it (its size checked), then its .bidx and its .idx (the
 *  @head_len bytes at @idx_head, then the lines). */
int bale_wds_remote_close_shard(struct bale_writer *w, struct wds_w *st,
    const char *idx_head, size_t head_len);
/** The checkpoint's state for the journal, into @b. */
void bale_wds_remote_state(const struct wds_w *st, struct bale_buf *b);
/** Put the list (st->doc) up, then remove every shard object of the
 *  output's name it does not name (a replaced output's, a killed
 *  run's). */
int bale_wds_remote_publish(struct bale_writer *w, struct wds_w *st);
/** Resume from the journal's @state: keep the shards it lists that the
 *  store holds at their size. */
int bale_wds_remote_resume(struct bale_writer *w, struct wds_w *st,
    const char *state, struct bale_resume *rs);
void bale_wds_remote_release(struct wds_w *st);

/* wds_merge.c */

/** bale merge: one shard list over the parts' shards, linked in (hard
 *  links, else symbolic ones), renumbered, their .idx files with them. */
int bale_wds_merge(const struct bale_merge *m, struct bale_errbuf *err);

/* wds_update.c */

/** bale pack --update: affected shards rewritten, the delta's moved in,
 *  a new shard list published. */
int bale_wds_update(const struct bale_update *u, struct bale_errbuf *err);

#endif
