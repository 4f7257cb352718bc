/* bale_backend.h - what a format backend (formats/x.c) implements.
 *
 * The core owns each handle's state machine (new -> open -> finished, with
 * a sticky failure), allocates and zeroes the backend's private state, and
 * calls release() exactly once whatever happened before. put() runs on one
 * thread, in sample order, and only borrows the sample.
 */
#ifndef BALE_BACKEND_H
#define BALE_BACKEND_H

#include "bale.h"

#include <stdarg.h>

#define BALE_BACKEND_ABI 1

/** One sample as the writers see it. */
struct bale_sample {
	uint64_t index;		/* position in the output order */
	const char *key;	/* stable, dot-free, sorts like @index */
	const char *relpath;	/* path below the source root, raw bytes */
	const char *ext;	/* lower-case extension, no dot ("jpg") */
	int64_t label;		/* class index */
	const char *label_name;	/* class folder name, or NULL */
	const unsigned char *data;
	size_t size;
	uint32_t crc32;		/* zlib crc32 of data[0..size) */
};

struct bale_reader;

/** Where a writer picks an unpublished output up (bale pack --resume). */
struct bale_resume {
	uint64_t next;		/* in: the checkpoint's position; out: the
				 * first position the writer still needs
				 * (lower, down to 0, if it starts over) */
	const char *state;	/* what checkpoint() gave with it, or NULL */
	int complete;		/* out: the output was already published */
	char note[256];		/* out: why it starts over, when it does */
};

struct bale_writer_ops {
	int (*option)(struct bale_writer *w, void *st, const char *key,
	    const char *value);
	int (*open)(struct bale_writer *w, void *st, const char *dir,
	    const struct bale_dataset *ds);
	int (*put)(struct bale_writer *w, void *st,
	    const struct bale_sample *s);
	/* Complete everything but the step that makes the output look
	 * complete; publish() takes that step (a rename) and should not
	 * fail short of the disk refusing a rename. */
	int (*finish)(struct bale_writer *w, void *st);
	int (*publish)(struct bale_writer *w, void *st);
	/* Must cope with any state, including a failed open(); removes
	 * whatever an unpublished output left behind, except what the
	 * last checkpoint covers (kept for resume()). */
	void (*release)(void *st);
	/* Optional (without it, a resumed run writes this format again).
	 * Instead of open(): reopen the unpublished output a checkpoint
	 * describes, drop anything written after it, carry on. */
	int (*resume)(struct bale_writer *w, void *st, const char *dir,
	    const struct bale_dataset *ds, struct bale_resume *rs);
};

struct bale_reader_ops {
	int (*option)(struct bale_reader *r, void *st, const char *key,
	    const char *value);
	int (*open)(struct bale_reader *r, void *st, const char *path);
	int (*count)(struct bale_reader *r, void *st, uint64_t *n);
	/* The blob stays valid until the next call on this handle. */
	int (*get)(struct bale_reader *r, void *st, uint64_t i,
	    struct bale_blob *out);
	/* The files backing the output, NULL-terminated, for eviction. */
	int (*files)(struct bale_reader *r, void *st,
	    const char *const **list);
	/* A JSON object of what the output records about itself (version,
	 * layout, classes ...), valid while the reader is open. */
	int (*info)(struct bale_reader *r, void *st, const char **json);
	void (*release)(void *st);
};

enum bale_caps {
	BALE_CAP_RANDOM = 1 << 0,	/* get(i) is cheap for any i */
	BALE_CAP_THREADS = 1 << 1,	/* several readers may run at once */
	BALE_CAP_EMPTY = 1 << 2,	/* stores 0-byte payloads */
};

struct bale_backend {
	int abi;
	const char *name;
	const char *summary;
	unsigned caps;
	size_t writer_priv;
	const struct bale_writer_ops *writer;
	size_t reader_priv;
	const struct bale_reader_ops *reader;	/* NULL: write-only so far */
};

/** Record why @r failed; returns @rc. */
BALE_API int bale_reader_seterr(struct bale_reader *r, int rc,
    const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Record why @w failed; returns @rc so callers can `return seterr(...)`. */
BALE_API int bale_writer_seterr(struct bale_writer *w, int rc,
    const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** A backend reached a checkpoint: every sample below position @next it
 *  was given survives the process being killed, and resume() picks up
 *  from there with @state (a JSON object, copied; NULL: none needed).
 *  A position not past the last checkpoint is ignored. */
BALE_API void bale_writer_reached(struct bale_writer *w, uint64_t next,
    const char *state);

/** Look a built backend up by name; NULL when it was not built. */
BALE_API const struct bale_backend *bale_backend_find(const char *name);

#endif
