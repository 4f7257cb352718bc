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
#include <stddef.h>
#include <stdint.h>

#define BALE_BACKEND_ABI 6

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
	/* Optional: sample @i's data size (i < count, checked by the
	 * core) when it is known without I/O (an index in memory);
	 * BALE_ENOTSUP otherwise. */
	int (*size)(struct bale_reader *r, void *st, uint64_t i,
	    size_t *size);
	/* Optional: sample @i's label (i < count, checked by the core)
	 * without its bytes; without it the core reads the sample. */
	int (*label)(struct bale_reader *r, void *st, uint64_t i,
	    int64_t *label);
};

enum bale_caps {
	BALE_CAP_RANDOM = 1 << 0,	/* get(i) is cheap for any i; bench
					 * says so when it reads one that is
					 * not at random */
	BALE_CAP_THREADS = 1 << 1,	/* several readers may run at once;
					 * bench refuses more than one thread
					 * without it */
	BALE_CAP_EMPTY = 1 << 2,	/* stores 0-byte payloads; without it
					 * the core refuses one before put() */
};

/** How many leading bytes of a file the core hands to a probe. */
#define BALE_PROBE_HEAD 4096

struct bale_errbuf;

/* The parts of one run (bale pack --part), checked by the caller to be
 * complete, of one run, each once, in part order: what a merge joins. */
struct bale_merge {
	const char *out;		/* the merged output's folder (exists) */
	const char *name;		/* NAME, in the parts and the output */
	const char *const *parts;	/* part folders, part 0 first */
	size_t nparts;
	int replace;			/* an existing merged output goes */
	int copy;			/* the parts' data copied in, so the
					 * output stands alone (no links, no
					 * references to the parts) */
};

/* An update of an output (bale pack --update), checked by the caller
 * against the output's manifest: the samples that leave, and in @delta a
 * complete output of this format holding the samples that come, keyed
 * above every key before them. */
struct bale_update {
	const char *out;		/* the output's folder */
	const char *name;		/* NAME, of the output and the delta */
	const char *delta;		/* the new samples' output's folder;
					 * NULL: none come */
	const uint64_t *removed;	/* keys (numbers) that leave,
					 * ascending */
	size_t nremoved;
	const char *const *classes;	/* class names after the update */
	size_t nclasses;
	uint64_t version;		/* the dataset's version after it */
	uint64_t count_before;		/* samples the output must hold, */
	const uint64_t *keys_before;	/* with these keys in this order, as
					 * the manifest says; else an earlier
					 * update was interrupted after this
					 * output took it */
};

/** 1 if the sample keyed @key leaves in update @u (u->removed holds it). */
BALE_API int bale_update_removes(const struct bale_update *u, uint64_t key);

/* A backend describes itself: the core finds it by name, lists it with
 * its summary, recognises its outputs with probe(), and acts on its
 * capability bits. Each formats/NAME/ defines one, bale_backend_NAME. */
struct bale_backend {
	int abi;		/* BALE_BACKEND_ABI */
	const char *name;
	const char *summary;	/* one line, for `bale formats` */
	unsigned caps;		/* enum bale_caps */
	/* Is the thing at @path an output of this format? @is_dir says
	 * whether it is a folder; @head holds a regular file's first @n
	 * bytes (n <= BALE_PROBE_HEAD; 0 for a folder). Judge by content
	 * where the format allows: a user may name an output anything. A
	 * name ending in ".partial" never reaches a probe. */
	int (*probe)(const char *path, int is_dir, const unsigned char *head,
	    size_t n);
	/* The end of the name bale gives an output ("NAME.h5"): what the
	 * core goes by when the content cannot be read (no permission), so
	 * the reader gets to say why. NULL: content only. */
	const char *suffix;
	/* The other files and folders an output called NAME consists of,
	 * beside NAME + suffix in the output's folder: fnmatch(3) patterns
	 * for what follows NAME ("-[0-9][0-9][0-9][0-9][0-9][0-9].tar"),
	 * NULL-terminated; NULL: none. A run that replaces an output moves
	 * the new one's files over the old one's and removes the rest. */
	const char *const *side_files;
	/* The format library and its version, for reports (NULL: none). */
	const char *library;
	const char *(*library_version)(void);
	size_t writer_priv;
	const struct bale_writer_ops *writer;	/* NULL: read-only */
	/* The keys writer option() takes, NULL-terminated: named when a
	 * key no chosen format takes is given. */
	const char *const *writer_options;
	size_t reader_priv;
	const struct bale_reader_ops *reader;	/* NULL: write-only */
	/* Join the parts' outputs into one in m->out that reads as a single
	 * run's; nothing there looks complete until all is. NULL: this
	 * format cannot merge yet. @return BALE_OK, or an error with @err
	 * set */
	int (*merge)(const struct bale_merge *m, struct bale_errbuf *err);
	/* Apply @u to this format's output in u->out, taking the delta's
	 * files; readers of the old version are not broken mid-read, and
	 * nothing looks updated until all of it is. NULL: this format
	 * cannot update. @return BALE_OK, or an error with @err set */
	int (*update)(const struct bale_update *u, struct bale_errbuf *err);
};

/** Where a get() puts a sample's @size data bytes: the caller's memory
 *  when it set a destination (bale_reader_set_dest), else @own (the
 *  backend's buffer, already big enough). Call it at most once per get,
 *  for the data bytes only; a get that never calls it, leaving blob.data
 *  in place, has the core copy them into the destination. NULL: no
 *  memory (fail the get with BALE_ENOMEM). */
BALE_API unsigned char *bale_reader_data_buffer(struct bale_reader *r,
    unsigned char *own, size_t size);

/** Record why @r failed; returns @rc. */
BALE_API int bale_reader_seterr(struct bale_reader *r, int rc, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/** Record why @w failed; returns @rc so callers can `return seterr(...)`. */
BALE_API int bale_writer_seterr(struct bale_writer *w, int rc, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/** A backend reached a checkpoint: every sample below position @next it
 *  was given survives the process being killed, and resume() picks up
 *  from there with @state (a JSON object, copied; NULL: none needed).
 *  A position not past the last checkpoint is ignored. */
BALE_API void bale_writer_reached(struct bale_writer *w, uint64_t next,
    const char *state);

/** Look a built backend up by name; NULL when it was not built. */
BALE_API const struct bale_backend *bale_backend_find(const char *name);

/* ==== helpers a backend may use ======================================
 * The library's own tools, exported for backends: whatever a backend
 * needs from the core is declared here, and nothing else is reachable.
 */

/* ---- errbuf: a failure's code and sentence, where the caller wants it.
 *
 * The library's one error convention: a call that can fail returns a
 * BALE_* code and leaves a sentence in the handle it works on, or in a
 * struct bale_errbuf its caller passes (a helper with no handle). */

struct bale_errbuf {
	int rc;
	int remedy;		/* enum bale_remedy: what the user can do */
	char msg[512];
};

/** Record @rc and a message, replacing any earlier one; returns @rc. */
BALE_API int bale_errbuf_set(struct bale_errbuf *e, int rc, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));
BALE_API int bale_errbuf_setv(struct bale_errbuf *e, int rc,
    const char *fmt, va_list ap);
BALE_API void bale_errbuf_clear(struct bale_errbuf *e);

/** Copy @from's failure (code, remedy, sentence) into @to; returns its
 *  code. */
BALE_API int bale_errbuf_copy(struct bale_errbuf *to,
    const struct bale_errbuf *from);

/* ---- buf: a growable byte buffer, and printf into fresh strings. */

/** Caller-owned; zero-initialise or use BALE_BUF_INIT. */
struct bale_buf {
	char *data;		/* always NUL-terminated when len > 0 */
	size_t len;
	size_t cap;
	int failed;		/* sticky: an allocation failed */
};

#define BALE_BUF_INIT { NULL, 0, 0, 0 }

/** Append @n bytes; on failure the buffer is marked failed. */
BALE_API void bale_buf_add(struct bale_buf *b, const void *p, size_t n);
BALE_API void bale_buf_puts(struct bale_buf *b, const char *s);
/** Append @n zero bytes. */
BALE_API void bale_buf_zeros(struct bale_buf *b, size_t n);
BALE_API void bale_buf_printf(struct bale_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
BALE_API void bale_buf_reset(struct bale_buf *b);
BALE_API void bale_buf_release(struct bale_buf *b);

/** Make *@buf hold at least @need bytes (contents not kept when it
 *  grows: a scratch buffer). @return 0, or -1 without memory */
BALE_API int bale_grow(unsigned char **buf, size_t *cap, size_t need);

/** A newly allocated formatted string, or NULL without memory. */
BALE_API char *bale_strfmt(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* ---- file: whole-file writes that never leave a half-written file. */

/** Suffix of files still being written; they never look complete. */
#define BALE_PARTIAL ".partial"

/** Write @n bytes to "@path.partial", optionally fsync, then rename it
 *  to @path. On failure nothing is left behind and errno says why.
 *  @return 0 or -1 */
BALE_API int bale_file_write_atomic(const char *path, const void *data,
    size_t n, int sync);

/** Write @n bytes to "@path.partial", optionally fsync it. The file
 *  does not look complete until bale_file_publish(). @return 0 or -1 */
BALE_API int bale_file_write_partial(const char *path, const void *data,
    size_t n, int sync);

/** Rename "@path.partial" to @path; with @sync, also flush the folder
 *  so the rename survives a crash. @return 0 or -1 */
BALE_API int bale_file_publish(const char *path, int sync);

/** fsync the file at @path. @return 0 or -1 */
BALE_API int bale_file_sync(const char *path);

/** fsync the folder holding @path, so a rename in it is durable.
 *  @return 0 or -1 */
BALE_API int bale_file_sync_parent(const char *path);

/** Write all @n bytes to @fd, retrying short writes. @return 0 or -1 */
BALE_API int bale_file_write_all(int fd, const void *data, size_t n);

/** Read @n bytes at @off of @fd, retrying short reads until the end of
 *  the file; *@got says how many came (fewer than @n: the file ends).
 *  @return 0, or -1 on a read error (errno says why) */
BALE_API int bale_file_pread_full(int fd, void *buf, size_t n, uint64_t off,
    size_t *got);

/** Create folder @path and its missing parents. @return 0 or -1 */
BALE_API int bale_file_mkdirs(const char *path);

/** Append @len bytes of @in from offset @off to @out at its file
 *  offset, in the kernel where it can. @return 0, or -1 with errno
 *  (EIO when @in ends before) */
BALE_API int bale_file_copy_range(int in, uint64_t off, int out,
    uint64_t len);

/** Copy the file @src to a new @dst (replaced if there), in the kernel
 *  where it can. On failure @dst is removed and errno says why.
 *  @return 0 or -1 */
BALE_API int bale_file_copy(const char *src, const char *dst);

/** Remove @path and, if it is a folder, everything in it (symbolic
 *  links are removed, not followed). Nothing there is not an error.
 *  @return 0 or -1 with errno */
BALE_API int bale_file_remove_tree(const char *path);

/** The path from folder @from_dir to the file @to ("../p3/data.h5"),
 *  both as they really are (symbolic links followed); NULL when either
 *  cannot be resolved (errno says why) or without memory. Free it. */
BALE_API char *bale_file_relpath(const char *from_dir, const char *to);

/** The whole file at @path, NUL-terminated, its size in *@n; NULL on
 *  failure (errno says why). Free it. */
BALE_API char *bale_file_read_all(const char *path, size_t *n);

/* ---- json: write JSON values into a bale_buf.
 *
 * Strings are raw bytes (file names need not be UTF-8). Valid UTF-8 is
 * copied; each byte of an invalid sequence becomes \udcXX, the convention
 * of Python's "surrogateescape", so os.fsencode(json.loads(...)) gives the
 * original bytes back. */

BALE_API void bale_json_str(struct bale_buf *b, const char *s);
BALE_API void bale_json_strn(struct bale_buf *b, const char *s, size_t n);
/** A JSON array of the @n strings @s (null for a NULL one, or for all
 *  when @s is NULL). */
BALE_API void bale_json_str_array(struct bale_buf *b, const char *const *s,
    size_t n);
/** "key": with a leading comma unless @first. */
BALE_API void bale_json_key(struct bale_buf *b, const char *key, int first);
BALE_API void bale_json_kv_str(struct bale_buf *b, const char *key,
    const char *v, int first);
BALE_API void bale_json_kv_u64(struct bale_buf *b, const char *key, uint64_t v,
    int first);

/* ---- jsonread: find and decode values in JSON text we wrote, or anyone.
 *
 * No tree is built: values are located in the text by skipping over what
 * precedes them, with a depth limit, so hostile input cannot make us
 * recurse without end or read past @end. */

/** The text of @key's value in the object at [s, end), or NULL (absent,
 *  or the text is not a valid object). Sets *vend past the value. */
BALE_API const char *bale_jsonr_find(const char *s, const char *end,
    const char *key, const char **vend);

/** The next element of the array at [*cur, end) (start *cur at the '['),
 *  or NULL at its end or on bad input. Sets *vend past it. */
BALE_API const char *bale_jsonr_next(const char **cur, const char *end,
    const char **vend);

/** Decode the string value at [v, vend) into a new NUL-terminated byte
 *  string; \udcXX becomes byte XX (surrogateescape). NULL if invalid. */
BALE_API char *bale_jsonr_string(const char *v, const char *vend);

/** The non-negative integer at [v, vend). @return 0 or -1 */
BALE_API int bale_jsonr_u64(const char *v, const char *vend, uint64_t *out);

/** @key's value in the object at [s, end) as a non-negative integer.
 *  @return 0, or -1 when absent or not one */
BALE_API int bale_jsonr_key_u64(const char *s, const char *end,
    const char *key, uint64_t *out);

/** @key's value in the object at [s, end) as a new string (as
 *  bale_jsonr_string() decodes it), or NULL when absent or not one. */
BALE_API char *bale_jsonr_key_string(const char *s, const char *end,
    const char *key);

/* ---- meta: the per-sample JSON every format stores beside the bytes. */

/** Replace @b's content with {"path","size","crc32","label","class"}. */
BALE_API void bale_meta_json(struct bale_buf *b, const struct bale_sample *s);

/** Append a JSON array of the class names (null where unnamed). */
BALE_API void bale_meta_classes(struct bale_buf *b,
    const struct bale_dataset *ds);

/** Parse a stored label: the decimal text of a .cls member or value,
 *  trailing newline or spaces allowed (as other WebDataset writers do).
 *  @return 0, or -1 if it is not such a number of 64 bits */
BALE_API int bale_meta_label(const void *text, size_t n, int64_t *label);

/** Does the "label" in sample JSON @json agree with @label, read from
 *  the label record (.cls)? 0 when it is a number that differs (*stored
 *  is that number), else 1 (also when there is none, or it is not a
 *  number, as other writers' JSON may have). A changed label digit
 *  passes every checksum: this is what catches it. */
BALE_API int bale_meta_label_agrees(const char *json, size_t n, int64_t label,
    int64_t *stored);

/** Read "path" and "crc32" back from such JSON: *path becomes a new
 *  string or NULL; *has_crc is set when a valid crc32 was found. */
BALE_API void bale_meta_parse(const char *json, size_t n, char **path,
    uint32_t *crc, int *has_crc);

/* ---- npy: the header of numpy's .npy format (version 1.0) for a uint8
 * H x W x C array, so packed pixel arrays open with numpy.load and
 * webdataset's own decoder. */

/** The header, padded to 64 bytes as numpy writes it, into @buf (at
 *  least BALE_NPY_HEADER_MAX bytes). @return its length */
BALE_API size_t bale_npy_header(char *buf, int h, int w, int c);

#define BALE_NPY_HEADER_MAX 128

#endif
