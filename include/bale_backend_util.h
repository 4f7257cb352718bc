/* bale_backend_util.h - the core's tools the in-tree backends share:
 * errors, buffers, files, JSON, the per-sample metadata, .npy headers.
 *
 * Not installed and not exported from the shared library (hidden, like
 * every internal symbol): a backend sees include/ and its own folder, so
 * whatever it needs from the core is declared here or in bale_backend.h,
 * and nothing else is reachable. Programs using libbale see neither.
 */
#ifndef BALE_BACKEND_UTIL_H
#define BALE_BACKEND_UTIL_H

#include "bale_backend.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* ---- calls a backend makes into the core (its side of the contract
 * bale_backend.h describes). */

/** 1 if the sample keyed @key leaves in update @u (u->removed holds it). */
int bale_update_removes(const struct bale_update *u, uint64_t key);

/** The key of the @pos-th sample the output held before update @u
 *  (@pos < u->count_before); UINT64_MAX past the last. */
uint64_t bale_update_key_before(const struct bale_update *u, uint64_t pos);

/** Where a get() puts a sample's @size data bytes: the caller's memory
 *  when it set a destination (bale_reader_set_dest), else @own (the
 *  backend's buffer, already big enough). Call it at most once per get,
 *  for the data bytes only; a get that never calls it, leaving blob.data
 *  in place, has the core copy them into the destination. NULL: no
 *  memory (fail the get with BALE_ENOMEM). */
unsigned char *bale_reader_data_buffer(struct bale_reader *r,
    unsigned char *own, size_t size);

/** What a reader's open found: the files backing the output
 *  (NULL-terminated) and its info (a JSON object), kept by the backend
 *  while the reader is open, which bale_reader_files() and
 *  bale_reader_info() then give (struct bale_reader_ops.files and .info
 *  left NULL). NULL for either: no memory, said when it is asked for. */
void bale_reader_describe(struct bale_reader *r, const char *const *files,
    const char *info);

/** Record why @r failed; returns @rc. */
int bale_reader_seterr(struct bale_reader *r, int rc, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/** Record what a get() that succeeds found wrong beside its sample (an
 *  index that disagrees with the data: readers fall back from it), for
 *  bale_reader_note(); returns BALE_OK. */
int bale_reader_setnote(struct bale_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** Record why @w failed; returns @rc so callers can `return seterr(...)`. */
int bale_writer_seterr(struct bale_writer *w, int rc, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/** A writer's publish() of its one file: rename @final.partial to
 *  @final (with @sync, durably). @return BALE_OK, or BALE_EIO said in
 *  @w */
int bale_writer_publish_file(struct bale_writer *w, const char *final,
    int sync);

/** 1 when put() may keep referring to a sample's bytes until the
 *  settle op (bale_writer_ops.settle), 0 when it must be done with them
 *  as it returns. */
int bale_writer_holding(const struct bale_writer *w);

/** A backend reached a checkpoint: every sample below position @next it
 *  was given survives the process being killed, and resume() picks up
 *  from there with @state (a JSON object, copied; NULL: none needed).
 *  A position not past the last checkpoint is ignored. */
void bale_writer_reached(struct bale_writer *w, uint64_t next,
    const char *state);

/* ---- errbuf: filling a struct bale_errbuf (bale.h: the library's one
 * error convention). */

/** Record @rc and a message, replacing any earlier one; returns @rc. */
int bale_errbuf_set(struct bale_errbuf *e, int rc, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));
int bale_errbuf_setv(struct bale_errbuf *e, int rc,
    const char *fmt, va_list ap);
void bale_errbuf_clear(struct bale_errbuf *e);

/** Begin @e's message with "@name: " unless it does: what a backend
 *  says is named by its format in one place (the reader and writer
 *  handles, and the core's calls of merge and update), once. */
void bale_errbuf_prefix(struct bale_errbuf *e, const char *name);

/** bale_errbuf_setv(), then bale_errbuf_prefix() with @name (NULL:
 *  none): how the handles keep a backend's message. */
int bale_errbuf_setv_named(struct bale_errbuf *e, const char *name, int rc,
    const char *fmt, va_list ap);

/** Copy @from's failure (code, remedy, sentence) into @to; returns its
 *  code. */
int bale_errbuf_copy(struct bale_errbuf *to,
    const struct bale_errbuf *from);

/** An output of format @format at @path is in the way and replacing it
 *  was not asked: BALE_EEXIST, said so, with the remedy to replace it. */
int bale_errbuf_exists(struct bale_errbuf *e, const char *format,
    const char *path);

/** An update found @held samples in @path (the output of format @format,
 *  or its index) where the manifest lists @listed: an earlier update was
 *  cut short. BALE_EINVAL, with the remedy to rebuild it. */
int bale_errbuf_cut_short(struct bale_errbuf *e, const char *format,
    const char *path, uint64_t held, uint64_t listed);

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
void bale_buf_add(struct bale_buf *b, const void *p, size_t n);
void bale_buf_puts(struct bale_buf *b, const char *s);
/** Append @n zero bytes. */
void bale_buf_zeros(struct bale_buf *b, size_t n);
void bale_buf_printf(struct bale_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** @v in decimal, at least @width digits (zeros before; at most 30),
 *  terminated, into @out (BALE_FMT_MAX bytes). @return its length. A
 *  formatter of its own: printf costs more than the rest of a small
 *  sample's metadata. */
#define BALE_FMT_MAX 32
size_t bale_fmt_u64(char *out, uint64_t v, int width);
size_t bale_fmt_i64(char *out, int64_t v);
/** Append bale_fmt_u64() / bale_fmt_i64() of @v. */
void bale_buf_u64(struct bale_buf *b, uint64_t v, int width);
void bale_buf_i64(struct bale_buf *b, int64_t v);
void bale_buf_reset(struct bale_buf *b);
void bale_buf_release(struct bale_buf *b);

/** Make *@buf hold at least @need bytes (contents not kept when it
 *  grows: a scratch buffer). @return 0, or -1 without memory */
int bale_grow(unsigned char **buf, size_t *cap, size_t need);

/** Make the array *@arr of @elem-byte elements hold at least @need,
 *  doubling its room (contents kept, the new room not cleared).
 *  @return 0, or -1 without memory */
int bale_grow_array(void **arr, size_t *cap, size_t need, size_t elem);

/** The order of the uint64_t values at @a and @b, for qsort() and
 *  bsearch(). */
int bale_u64_cmp(const void *a, const void *b);

/** A newly allocated formatted string, or NULL without memory. */
char *bale_strfmt(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* ---- sample index: a compact per-sample table beside an output's data
 * (src/util/sample_index.c), written whole at pack time and read through
 * a shared map: per sample its label, where its bytes lie and its key,
 * so a reader opens in O(1) and labels() reads 4 bytes a sample. */

/** Where a sample's bytes lie in the file its index describes: @size
 *  bytes at @off, and @tail bytes of the sample's other members after
 *  them (the format's meaning). */
struct bale_index_loc {
	uint64_t off;
	uint32_t size;
	uint32_t tail;
};

/** An index being built, one sample at a time. */
struct bale_index_build {
	struct bale_buf labels, locs, key_at, text;
	uint64_t count;
	int unfit;		/* a label outside int32: no index */
};

void bale_index_build_init(struct bale_index_build *b);
/** Append sample @label at @loc with @key (copied). */
void bale_index_add(struct bale_index_build *b, int64_t label,
    const struct bale_index_loc *loc, const char *key);
/** Write what was added to @path (atomically: "@path.partial", then a
 *  rename), for data file of @source_size bytes. @return 0, or -1 with
 *  errno (EINVAL: a label did not fit; ENOMEM) */
int bale_index_write(struct bale_index_build *b, const char *path,
    uint64_t source_size, int sync);
/** The bytes bale_index_write() writes, appended to @out (for a store
 *  that takes a file whole). @return 0, or -1 with errno */
int bale_index_render(const struct bale_index_build *b, uint64_t source_size,
    struct bale_buf *out);
void bale_index_build_reset(struct bale_index_build *b);
void bale_index_build_release(struct bale_index_build *b);

/** An index written as it goes, its count known first: the columns are
 *  written in place (pwrite), the head last, then the file renamed from
 *  "@path.partial". Keys take fixed slots of @key_width bytes each, NUL
 *  padded (the last byte always NUL). */
struct bale_index_stream {
	int fd;
	char *path;		/* the .partial */
	uint64_t count;
	size_t width;
	uint64_t labels_at, locs_at, keys_at, text_at;
};

int bale_index_stream_open(struct bale_index_stream *s, const char *path,
    uint64_t count, size_t key_width);
/** Samples [@first, @first + @n): labels, locations, and @n key slots
 *  of key_width bytes. @return 0, or -1 with errno */
int bale_index_stream_put(struct bale_index_stream *s, uint64_t first,
    uint64_t n, const int32_t *labels, const struct bale_index_loc *locs,
    const char *keys);
/** Finish for a data file of @source_size bytes and publish it; on
 *  failure nothing is left. @return 0, or -1 with errno */
int bale_index_stream_close(struct bale_index_stream *s,
    uint64_t source_size, int sync);
void bale_index_stream_abort(struct bale_index_stream *s);

/** An index open for reading: its columns, in a shared map. */
struct bale_index {
	void *map;
	size_t maplen;
	int fd;			/* -1: map is memory of its own */
	void (*release)(void *data, void *arg);	/* fd -1: how it goes */
	void *release_arg;
	uint64_t count;
	const int32_t *labels;
	const struct bale_index_loc *locs;
	const uint64_t *key_at;
	const char *key_text;
	uint64_t text_len;
};

/* Reads between two bale_index_let_go() of a reader's indexes: a reader
 * going through millions of samples holds at most so many samples' index
 * pages. */
#define BALE_INDEX_LET_GO_EVERY 16384

/** Drop the index pages mapped into this process; they stay in the page
 *  cache, and a later read maps them again. */
void bale_index_let_go(const struct bale_index *ix);

/** Map the index at @path, which must describe @count samples of a data
 *  file of @source_size bytes. @return BALE_OK, BALE_ENOENT (none),
 *  BALE_EINVAL (damaged, or written for other data: stale), BALE_EIO */
int bale_index_open(struct bale_index *ix, const char *path, uint64_t count,
    uint64_t source_size);
/** The same for an index read into memory: @data (@len bytes) is the
 *  index's from here on, handed to @release (with @arg) at close or on
 *  failure; NULL @release: free()d. */
int bale_index_adopt(struct bale_index *ix, void *data, size_t len,
    uint64_t count, uint64_t source_size,
    void (*release)(void *data, void *arg), void *arg);
/** The labels of samples [@first, @first + @n) into @out, read with
 *  pread (only those bytes: no read-around). BALE_OK or BALE_EIO */
int bale_index_labels(const struct bale_index *ix, uint64_t first,
    uint64_t n, int64_t *out);
/** Sample @i's key (i < count), or NULL when the index is damaged. */
const char *bale_index_key(const struct bale_index *ix, uint64_t i);
void bale_index_close(struct bale_index *ix);

/* ---- file: whole-file writes that never leave a half-written file. */

/** Suffix of files still being written; they never look complete. */
#define BALE_PARTIAL ".partial"

/** Write @n bytes to "@path.partial", optionally fsync, then rename it
 *  to @path. On failure nothing is left behind and errno says why.
 *  @return 0 or -1 */
int bale_file_write_atomic(const char *path, const void *data,
    size_t n, int sync);

/** Write @n bytes to "@path.partial", optionally fsync it. The file
 *  does not look complete until bale_file_publish(). @return 0 or -1 */
int bale_file_write_partial(const char *path, const void *data,
    size_t n, int sync);

/** bale_file_write_atomic() of @n pieces, one after the other: a file
 *  made of parts kept apart (a head and a body) is not copied whole
 *  first. */
int bale_file_write_atomicv(const char *path, const struct iovec *pieces,
    int n, int sync);

/** Rename "@path.partial" to @path; with @sync, also flush the folder
 *  so the rename survives a crash. @return 0 or -1 */
int bale_file_publish(const char *path, int sync);

/** @n native int32s at @off of @fd, widened into @out, read with pread
 *  in large steps (an index's label column). @return 0, or -1 (errno;
 *  a short read: EIO) */
int bale_file_pread_int32s(int fd, uint64_t off, uint64_t n, int64_t *out);

/** fsync the file at @path. @return 0 or -1 */
int bale_file_sync(const char *path);

/** fsync the folder holding @path, so a rename in it is durable.
 *  @return 0 or -1 */
int bale_file_sync_parent(const char *path);

/** Write all @n bytes to @fd, retrying short writes. @return 0 or -1 */
int bale_file_write_all(int fd, const void *data, size_t n);

/** Read @n bytes at @off of @fd, retrying short reads until the end of
 *  the file; *@got says how many came (fewer than @n: the file ends).
 *  @return 0, or -1 on a read error (errno says why) */
int bale_file_pread_full(int fd, void *buf, size_t n, uint64_t off,
    size_t *got);

/* Bytes appended during a run and wanted whole at its end, kept in an
 * unlinked file in @dir once they outgrow a small buffer
 * (src/util/spill.c): a run's memory does not grow with them. */
struct bale_spill {
	char *dir;
	int fd;			/* -1 until the buffer first fills */
	struct bale_buf buf;	/* the bytes not written yet */
	uint64_t written;
	int failed;		/* sticky; err says why */
	int err;
};

/** @return 0, or -1 without memory */
int bale_spill_init(struct bale_spill *s, const char *dir);
/** Append; a failure is kept for bale_spill_read() to report. */
void bale_spill_add(struct bale_spill *s, const void *p, size_t n);
uint64_t bale_spill_size(const struct bale_spill *s);
/** All bytes appended, into @out (bale_spill_size() bytes).
 *  @return 0, or -1 with errno */
int bale_spill_read(const struct bale_spill *s, void *out);
/** @n bytes from offset @off of what was appended. @return 0, or -1
 *  with errno */
int bale_spill_pread(const struct bale_spill *s, void *out, size_t n,
    uint64_t off);
void bale_spill_release(struct bale_spill *s);

/** Create folder @path and its missing parents. @return 0 or -1 */
int bale_file_mkdirs(const char *path);

/** Append @len bytes of @in from offset @off to @out at its file
 *  offset, in the kernel where it can. @return 0, or -1 with errno
 *  (EIO when @in ends before) */
int bale_file_copy_range(int in, uint64_t off, int out,
    uint64_t len);

/** Copy the file @src to a new @dst (replaced if there), in the kernel
 *  where it can. On failure @dst is removed and errno says why.
 *  @return 0 or -1 */
int bale_file_copy(const char *src, const char *dst);

/** Remove @path and, if it is a folder, everything in it (symbolic
 *  links are removed, not followed). Nothing there is not an error.
 *  @return 0 or -1 with errno */
int bale_file_remove_tree(const char *path);

/** A new empty folder of this run's own in $TMPDIR (/tmp without it),
 *  named @prefix-XXXXXX: where what goes to an object store is staged.
 *  NULL: errno says why. */
char *bale_file_stage_new(const char *prefix);

/** The path from folder @from_dir to the file @to ("../p3/data.h5"),
 *  both as they really are (symbolic links followed); NULL when either
 *  cannot be resolved (errno says why) or without memory. Free it. */
char *bale_file_relpath(const char *from_dir, const char *to);

/** The whole file at @path, NUL-terminated, its size in *@n; NULL on
 *  failure (errno says why). Free it. */
char *bale_file_read_all(const char *path, size_t *n);

/* ---- json: write JSON values into a bale_buf.
 *
 * Strings are raw bytes (file names need not be UTF-8). Valid UTF-8 is
 * copied; each byte of an invalid sequence becomes \udcXX, the convention
 * of Python's "surrogateescape", so os.fsencode(json.loads(...)) gives the
 * original bytes back. */

void bale_json_str(struct bale_buf *b, const char *s);
void bale_json_strn(struct bale_buf *b, const char *s, size_t n);
/** A JSON array of the @n strings @s (null for a NULL one, or for all
 *  when @s is NULL). */
void bale_json_str_array(struct bale_buf *b, const char *const *s,
    size_t n);
/** "key": with a leading comma unless @first. */
void bale_json_key(struct bale_buf *b, const char *key, int first);
void bale_json_kv_str(struct bale_buf *b, const char *key,
    const char *v, int first);
void bale_json_kv_u64(struct bale_buf *b, const char *key, uint64_t v,
    int first);

/* ---- jsonread: find and decode values in JSON text we wrote, or anyone.
 *
 * No tree is built: values are located in the text by skipping over what
 * precedes them, with a depth limit, so hostile input cannot make us
 * recurse without end or read past @end. */

/** The text of @key's value in the object at [s, end), or NULL (absent,
 *  or the text is not a valid object). Sets *vend past the value. */
const char *bale_jsonr_find(const char *s, const char *end,
    const char *key, const char **vend);

/** The next element of the array at [*cur, end) (start *cur at the '['),
 *  or NULL at its end or on bad input. Sets *vend past it. */
const char *bale_jsonr_next(const char **cur, const char *end,
    const char **vend);

/** Decode the string value at [v, vend) into a new NUL-terminated byte
 *  string; \udcXX becomes byte XX (surrogateescape). NULL if invalid. */
char *bale_jsonr_string(const char *v, const char *vend);

/** The non-negative integer at [v, vend). @return 0 or -1 */
int bale_jsonr_u64(const char *v, const char *vend, uint64_t *out);

/** @key's value in the object at [s, end) as a non-negative integer.
 *  @return 0, or -1 when absent or not one */
int bale_jsonr_key_u64(const char *s, const char *end,
    const char *key, uint64_t *out);

/** @key's value in the object at [s, end) as a new string (as
 *  bale_jsonr_string() decodes it), or NULL when absent or not one. */
char *bale_jsonr_key_string(const char *s, const char *end,
    const char *key);

/* ---- meta: the per-sample JSON every format stores beside the bytes. */

/** Replace @b's content with {"path","size","crc32","label","class"}. */
void bale_meta_json(struct bale_buf *b, const struct bale_sample *s);

/** Append a JSON array of the class names (null where unnamed). */
void bale_meta_classes(struct bale_buf *b,
    const struct bale_dataset *ds);

/** Parse a stored label: the decimal text of a .cls member or value,
 *  trailing newline or spaces allowed (as other WebDataset writers do).
 *  @return 0, or -1 if it is not such a number of 64 bits */
int bale_meta_label(const void *text, size_t n, int64_t *label);

/** Does the "label" in sample JSON @json agree with @label, read from
 *  the label record (.cls)? 0 when it is a number that differs (*stored
 *  is that number), else 1 (also when there is none, or it is not a
 *  number, as other writers' JSON may have). A changed label digit
 *  passes every checksum: this is what catches it. */
int bale_meta_label_agrees(const char *json, size_t n, int64_t label,
    int64_t *stored);

/** Read "path" and "crc32" back from such JSON: *path becomes a new
 *  string or NULL; *has_crc is set when a valid crc32 was found. */
void bale_meta_parse(const char *json, size_t n, char **path,
    uint32_t *crc, int *has_crc);

/* ---- npy: the header of numpy's .npy format (version 1.0) for a uint8
 * H x W x C array, so packed pixel arrays open with numpy.load and
 * webdataset's own decoder. */

/** The header, padded to 64 bytes as numpy writes it, into @buf (at
 *  least BALE_NPY_HEADER_MAX bytes). @return its length */
size_t bale_npy_header(char *buf, int h, int w, int c);

#define BALE_NPY_HEADER_MAX 128

#endif
