/* manifest.h - what bale pack --update keeps beside its outputs:
 * NAME-manifest.jsonl, one line for the dataset (its version, formats,
 * options, class names, the next key) and one per sample in order (key,
 * label, and the size and modification time its file had when it was
 * read), so the next update knows what changed from a stat alone; and one
 * per file that was skipped (why, its size and status change time), so an update does
 * not try it again until it changes. */
#ifndef BALE_MANIFEST_H
#define BALE_MANIFEST_H

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <stddef.h>
#include <stdint.h>

#define BALE_MANIFEST_SUFFIX "-manifest.jsonl"

struct bale_manifest_entry {
	uint64_t key;
	int64_t label;
	uint64_t size;
	int64_t mtime_ns;
	size_t path;		/* arena offset */
};

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
	char *formats;
	char *settings;		/* what changes stored bytes: -O options
				 * and the encode settings */
	char **classes;
	size_t nclasses;
	struct bale_manifest_entry *e;	/* in dataset order */
	size_t n;
	size_t cap;
	struct bale_manifest_skip *skip;	/* in the order skipped */
	size_t nskip;
	size_t capskip;
	struct bale_buf arena;	/* NUL-separated paths */
};

static inline const char *bale_manifest_path_of(const struct bale_manifest *m,
    size_t i)
{
	return m->arena.data + m->e[i].path;
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

/** Append a sample. @return 0 or -1 (no memory) */
int bale_manifest_add(struct bale_manifest *m, uint64_t key, int64_t label,
    uint64_t size, int64_t mtime_ns, const char *path);

/** Read @path into @m (zeroed first). @return BALE_OK, BALE_ENOENT when
 *  there is none, or BALE_EINVAL with @err saying what is wrong */
int bale_manifest_read(struct bale_manifest *m, const char *path,
    struct bale_errbuf *err);

/** Write @m to @path atomically. @return 0, or -1 with errno */
int bale_manifest_write(const struct bale_manifest *m, const char *path);

void bale_manifest_release(struct bale_manifest *m);

#endif
