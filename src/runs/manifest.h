/* manifest.h - what bale pack --update keeps beside its outputs:
 * NAME-manifest.jsonl, one line for the dataset (its version, formats,
 * options, class names, the next key); one per file that was skipped
 * (why, its size and status change time), so an update does not try it
 * again until it changes; and one per sample (key, label, and the size
 * and modification time its file had when it was read), so the next
 * update knows what changed from a stat alone. For an object in a
 * store both times hold its ETag's stamp (bale_walk_stamp), as the
 * listing gave it.
 *
 * The samples come in the walk's path order (bale_walk_path_cmp), which
 * the head says ("order":"path"): an update of a folder then reads the
 * manifest a line at a time beside its walk, and holds neither whole.
 * Manifests before that listed samples in dataset order, skips last;
 * they are sorted by path past memory, and the next one written is in
 * path order. */
#ifndef BALE_MANIFEST_H
#define BALE_MANIFEST_H

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "varint.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define BALE_MANIFEST_SUFFIX "-manifest.jsonl"

struct bale_manifest_entry {
	uint64_t key;
	int64_t label;
	uint64_t size;
	int64_t mtime_ns;
};

/** @e as varints at the end of @b (a record sorted past memory). */
static inline void bale_manifest_entry_put(struct bale_buf *b,
    const struct bale_manifest_entry *e)
{
	bale_varint_put(b, e->key);
	bale_varint_put(b, bale_zigzag(e->label));
	bale_varint_put(b, e->size);
	bale_varint_put(b, bale_zigzag(e->mtime_ns));
}

/** The entry bale_manifest_entry_put() wrote at *@p; *@p moves on. */
static inline void bale_manifest_entry_get(const unsigned char **p,
    struct bale_manifest_entry *e)
{
	e->key = bale_varint_get(p);
	e->label = bale_unzigzag(bale_varint_get(p));
	e->size = bale_varint_get(p);
	e->mtime_ns = bale_unzigzag(bale_varint_get(p));
}

/* A source file that could not be packed, as it was then. */
struct bale_manifest_skip {
	uint64_t size;
	int64_t ctime_ns;	/* its status change time */
	size_t path;		/* arena offsets */
	size_t why;
};

struct bale_manifest {
	uint64_t version;	/* 1 for the first pack, +1 each update */
	uint64_t next_key;	/* keys are never reused */
	uint64_t count;		/* samples, as the head says */
	int path_order;		/* its samples come in path order */
	char *formats;
	char *settings;		/* what changes stored bytes: -O options
				 * and the encode settings */
	char **classes;
	size_t nclasses;
	struct bale_manifest_skip *skip;	/* in the order skipped */
	size_t nskip;
	size_t capskip;
	struct bale_buf arena;	/* NUL-separated paths */
};

/* A file time as the manifest keeps it: nanoseconds since the epoch. */
static inline int64_t bale_manifest_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static inline const char *bale_manifest_skip_path(
    const struct bale_manifest *m, size_t i)
{
	return m->arena.data + m->skip[i].path;
}

static inline const char *bale_manifest_skip_why(
    const struct bale_manifest *m, size_t i)
{
	return m->arena.data + m->skip[i].why;
}

/** Append a file skipped for @why. @return 0 or -1 (no memory) */
int bale_manifest_add_skip(struct bale_manifest *m, uint64_t size,
    int64_t ctime_ns, const char *path, const char *why);

/* A manifest read a line at a time: the head and the skipped files
 * first (into @head), then each sample on demand. */
struct bale_manifest_in {
	FILE *f;
	const char *name;	/* for errors */
	char *line;
	size_t cap;
	size_t lineno;
	int pending;		/* @line holds a sample not yet given */
	struct bale_buf path;	/* the last sample's */
};

/** Open @path: its head and skips into @head (zeroed first).
 *  @return BALE_OK, BALE_ENOENT when there is none, or BALE_EINVAL /
 *  BALE_EIO with @err saying what is wrong */
int bale_manifest_open(struct bale_manifest_in *in,
    struct bale_manifest *head, const char *path, struct bale_errbuf *err);

/** The next sample into @e, its path (valid until the next call) into
 *  *@path. @return 1, 0 at the end, or BALE_EINVAL / BALE_EIO with @err
 *  set */
int bale_manifest_next(struct bale_manifest_in *in,
    struct bale_manifest *head, struct bale_manifest_entry *e,
    const char **path, struct bale_errbuf *err);

void bale_manifest_close(struct bale_manifest_in *in);

/* Sample @line (0 the first) of a manifest, as bale_manifest_each()
 * reads it; BALE_OK goes on. */
typedef int bale_manifest_sample_fn(void *ctx, uint64_t line,
    const struct bale_manifest_entry *e, const char *path);

/** Each sample of the manifest at @path, in its order, to @fn.
 *  @return BALE_OK, @fn's error, or as bale_manifest_open() and
 *  bale_manifest_next() (with @err set) */
int bale_manifest_each(const char *path, bale_manifest_sample_fn *fn,
    void *ctx, struct bale_errbuf *err);

/** The distinct modification times of the manifest's samples at @path,
 *  ascending, into *@stamps (to free(); *@n of them): for a source of
 *  files stamped as a whole, the stamps of the files it was packed
 *  from (manifest_stamps.c). @return as bale_manifest_each() */
int bale_manifest_stamps(const char *path, uint64_t **stamps, size_t *n,
    struct bale_errbuf *err);

/* A manifest written a line at a time to "@path.partial"; the caller
 * renames it to @path (bale_file_publish) when the output it describes
 * is in place. */
struct bale_manifest_out {
	char *path;
	int fd;
	struct bale_buf buf;
	int err;		/* the first errno; sticky */
};

/** Begin @path with @head (its count, formats, settings and classes)
 *  and its skipped files. @return 0, or -1 with errno */
int bale_manifest_begin(struct bale_manifest_out *out,
    const struct bale_manifest *head, const char *path);

/** The next sample, in path order. */
void bale_manifest_put(struct bale_manifest_out *out, uint64_t key,
    int64_t label, uint64_t size, int64_t mtime_ns, const char *path);

/** Write the rest. @return 0, or -1 with errno (nothing is left
 *  behind) */
int bale_manifest_end(struct bale_manifest_out *out);

/** Give up: the partial file goes. */
void bale_manifest_abandon(struct bale_manifest_out *out);

void bale_manifest_release(struct bale_manifest *m);

#endif
