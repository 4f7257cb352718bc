/* bale_store.h - where an output's files are read from: a local file,
 * an object in S3 (s3://bucket/key) or a plain https:// URL, behind one
 * small interface (src/store/). A format reads its files through it and
 * never learns which store holds them; a name is a path or a URL, and a
 * file beside another is named by joining with '/' either way.
 *
 * Not part of libbale.so.0's API: the formats and the core call it. */
#ifndef BALE_STORE_H
#define BALE_STORE_H

#include "bale.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* A file open for reading ranges. One thread at a time (a reader's). */
struct bale_sfile;

/** Open @name for reading; its size is known from here on.
 *  @return BALE_OK, BALE_ENOENT (no such file or object), BALE_EIO,
 *  BALE_EAUTH (the store refused the credentials) or BALE_ENOMEM, with
 *  @err set */
int bale_sfile_open(struct bale_sfile **f, const char *name,
    struct bale_errbuf *err);
/** The same for a file of @size bytes, as a list recorded it (0: not
 *  known): a remote store is not asked now (the size is taken as it
 *  is: a read past the object's real end fails then, saying so); a
 *  local file's own size wins. */
int bale_sfile_open_sized(struct bale_sfile **f, const char *name,
    uint64_t size, struct bale_errbuf *err);
uint64_t bale_sfile_size(const struct bale_sfile *f);
const char *bale_sfile_name(const struct bale_sfile *f);
/** Exactly @n bytes at @off into @buf: all of them, or an error (a
 *  range past the end is one). @return BALE_OK or as open */
int bale_sfile_pread(struct bale_sfile *f, void *buf, size_t n,
    uint64_t off, struct bale_errbuf *err);
/** The same into the @iovcnt pieces of @iov, one after the other. */
int bale_sfile_preadv(struct bale_sfile *f, const struct iovec *iov,
    int iovcnt, uint64_t off, struct bale_errbuf *err);
/** Ask for the @n bytes at @off in one GET ahead of @reads reads of
 *  parts of them (1: a read of exactly them; a run of samples: one
 *  each), which then find them here (or wait for them): between
 *  bale_store_prefetch_begin() and _end(), for a remote file. @return 1
 *  asked (or asked already), 0 not (a local file, or prefetching off),
 *  -1 the bounds are reached: ask again once reads took some */
int bale_sfile_prefetch(struct bale_sfile *f, uint64_t off, size_t n,
    unsigned reads);
/** Ask for the blocks (1 MiB, aligned) that hold the @n bytes at @off,
 *  ahead of @reads reads of parts of each (a member of an archive read
 *  out of its order: members in one block share its GET), for batch
 *  @gen (from 1). @return as bale_sfile_prefetch() (-1: none asked) */
int bale_sfile_prefetch_blocks(struct bale_sfile *f, uint64_t off, size_t n,
    unsigned reads, uint64_t gen);
/** A local file's descriptor (the store reads it with pread), or -1. */
int bale_sfile_fd(const struct bale_sfile *f);
void bale_sfile_close(struct bale_sfile *f);

/** Keep up to @max_requests GETs in flight for bale_sfile_prefetch(),
 *  holding at most @max_bytes of answers, queued, on their way or not
 *  yet read, in all (one I/O thread per process; nested calls share
 *  it, with the first call's bounds). @return BALE_OK or BALE_ENOMEM */
int bale_store_prefetch_begin(unsigned max_requests, size_t max_bytes);
/** Let go of every answer asked for ahead and not yet read, and of
 *  what is queued (a reader's order moved on); those on their way go
 *  when they arrive, unless a read takes them first. */
void bale_store_prefetch_drop(void);
/** Let go of the blocks that no batch from @gen on asked for (a read
 *  counted that never came, or one that will read for itself). */
void bale_store_prefetch_expire(uint64_t gen);
/** The end of one bale_store_prefetch_begin(): the last lets every
 *  answer not read go. */
void bale_store_prefetch_end(void);

/** HTTP requests sent so far by this process (each try counts), the
 *  body bytes received, and the nanoseconds its readers waited for
 *  remote bytes (summed over threads): what reading cost. */
void bale_store_counts(uint64_t *requests, uint64_t *bytes,
    uint64_t *wait_ns);

/** From now on, once *@stop is set (NULL: never), requests to remote
 *  stores are cut and their retries end, failing with BALE_EINTR: a
 *  run's Ctrl-C then stops it at once, not after its timeouts. One for
 *  the process. */
void bale_store_set_stop(const atomic_int *stop);

/** 1 when @name is a path on this machine's file systems. */
int bale_store_is_local(const char *name);

/** What is at a name: a file (object) of @size bytes, or a folder (for
 *  an object store: a prefix that objects lie under). */
struct bale_store_stat {
	int is_dir;
	uint64_t size;
	char tag[96];	/* a file's: what changes when its bytes do (a
			 * local file's size and modification time, an
			 * object's ETag); "": none known */
};

/** @return BALE_OK, BALE_ENOENT (nothing there), or an error in @err */
int bale_store_stat(const char *name, struct bale_store_stat *st,
    struct bale_errbuf *err);

/** The whole of file @name, NUL-terminated (not counted in *@n), in
 *  *@data to free(). @return as bale_sfile_open */
int bale_store_read_all(const char *name, char **data, size_t *n,
    struct bale_errbuf *err);

/** Called for each entry of a folder: @entry is its name there (no
 *  '/'), @is_dir set for a sub-folder. Non-zero stops the listing and
 *  is returned. */
typedef int (*bale_store_entry_fn)(void *arg, const char *entry, int is_dir);

/** The entries of folder @dir, in no set order. @return BALE_OK, what
 *  @fn stopped with, or an error in @err (BALE_ENOENT: no folder) */
int bale_store_list(const char *dir, bale_store_entry_fn fn, void *arg,
    struct bale_errbuf *err);

/** A file as bale_store_walk() finds it. */
struct bale_store_object {
	const char *name;	/* from the folder walked on: "a/b.jpg" */
	uint64_t size;
	const char *etag;	/* the store's tag of its bytes, as the
				 * store quotes it ("": none given) */
};

/** Called for each file of a walk; non-zero stops it and is returned. */
typedef int (*bale_store_object_fn)(void *arg,
    const struct bale_store_object *o);

/** Every file under folder @dir at any depth (an object store's keys
 *  under a prefix, in their order; folder marker objects left out);
 *  object stores only. @return as bale_store_list, BALE_ENOTSUP
 *  elsewhere */
int bale_store_walk(const char *dir, bale_store_object_fn fn, void *arg,
    struct bale_errbuf *err);

/** Open the compact index (bale_backend_util.h) at @name, describing
 *  @count samples of a file of @source_size bytes: mapped when local,
 *  read whole into memory from a remote store. @return as
 *  bale_index_open */
struct bale_index;
int bale_store_index_open(struct bale_index *ix, const char *name,
    uint64_t count, uint64_t source_size);

/** Read the remote ones of the @n indexes @names at once, ahead of
 *  their bale_store_index_open(), which then finds them (one after
 *  another, each would cost a round trip); local ones are left to their
 *  map. Keep what is returned until they are open, then
 *  bale_store_index_unpin() it (NULL is fine: nothing was warmed). */
struct bale_index_pins;
struct bale_index_pins *bale_store_index_warm(const char *const *names,
    size_t n);
void bale_store_index_unpin(struct bale_index_pins *p);

/* ---- a file behind a descriptor (store_fd.c) ------------------------ */

/* The archive readers (tar, zip, compressed tar) and the walk's tables
 * work on descriptors: a file of any store gets one. A local file's is
 * its own; an object's is a descriptor of /dev/null held for it, which
 * the reads below take to the object. */

/** Open @name, its size into *@size. @return the descriptor, or an
 *  error (below 0: BALE_ENOENT, BALE_EINPUT for a folder, ...) with
 *  @err set. Closed by bale_store_fd_close() alone. */
int bale_store_fd_open(const char *name, uint64_t *size,
    struct bale_errbuf *err);
/** 1 when @fd stands for an object in a remote store. */
int bale_store_fd_remote(int fd);
/** The size of the file or object @fd stands for (0: unknown). */
uint64_t bale_store_fd_size(int fd);
/** A scan's read, front to back: up to @n bytes at @off into @buf
 *  (fewer only at the end), *@got of them. An object is read by windows
 *  growing to 8 MiB, the small reads served from there. @return BALE_OK
 *  or the read's error in @err */
int bale_store_fd_scan(int fd, void *buf, size_t n, uint64_t off,
    size_t *got, struct bale_errbuf *err);
/** bale_store_fd_scan() of a region that ends at @limit (a Parquet
 *  column chunk): an object's window is not filled past it. */
int bale_store_fd_scan_within(int fd, void *buf, size_t n, uint64_t off,
    uint64_t limit, size_t *got, struct bale_errbuf *err);
/** Exactly @n bytes at @off (a range past the end is an error), from
 *  any thread: an object's in a request of its own (or found asked
 *  for ahead). */
int bale_store_fd_pread(int fd, void *buf, size_t n, uint64_t off,
    struct bale_errbuf *err);
/** Ask for [@off, @off + @n) ahead of its @reads reads: an object's by
 *  its blocks for batch @gen (as bale_sfile_prefetch_blocks()), a local
 *  file's from the disk. @return as bale_sfile_prefetch() */
int bale_store_fd_prefetch(int fd, uint64_t off, size_t n, unsigned reads,
    uint64_t gen);
void bale_store_fd_close(int fd);

/* ---- writing -------------------------------------------------------- */

/* A file (object) written front to back: nothing is under its name
 * until bale_swrite_finish() makes it whole there at once (a local
 * file's "NAME.partial" renamed; an S3 multipart upload completed, each
 * part's MD5 checked), and bale_swrite_abort() leaves nothing of it. */
struct bale_swrite;

/** @return BALE_OK, BALE_ENOTSUP (a read-only store: https), BALE_EIO,
 *  BALE_ENOMEM, with @err set */
int bale_swrite_open(struct bale_swrite **w, const char *name,
    struct bale_errbuf *err);
int bale_swrite_write(struct bale_swrite *w, const void *p, size_t n,
    struct bale_errbuf *err);
/** Bytes written so far. */
uint64_t bale_swrite_bytes(const struct bale_swrite *w);
/** Make it whole under its name; @w is gone, failing or not (failing,
 *  nothing of it is left). */
int bale_swrite_finish(struct bale_swrite *w, struct bale_errbuf *err);
/** Stop: nothing of it is left, @w is gone (NULL is fine). */
void bale_swrite_abort(struct bale_swrite *w);
/** @len bytes of @in from @off on, written to @out: in the kernel when
 *  both are local files, else read and sent a piece at a time.
 *  @return BALE_OK, or as the read or the write fails, with @err set */
int bale_store_copy_range(struct bale_sfile *in, uint64_t off, uint64_t len,
    struct bale_swrite *out, struct bale_errbuf *err);

/** The whole of @from as @to, in the same store or another (a local
 *  file uploaded, an object downloaded), a piece at a time, or by the
 *  store itself when it can (S3's CopyObject within a store, up to 5
 *  GiB); nothing under @to unless whole. @return as
 *  bale_store_copy_range() */
int bale_store_copy(const char *from, const char *to,
    struct bale_errbuf *err);

/** Can files be written in folder @dir? A local one: it is a folder
 *  (or not there yet: it is made); an object store's: its bucket is
 *  there, and the credentials are taken. @return BALE_OK, or why not in
 *  @err (BALE_ENOTSUP: a read-only store) */
int bale_store_writable(const char *dir, struct bale_errbuf *err);

/** The whole of @name at once: @n bytes at @p. */
int bale_store_put(const char *name, const void *p, size_t n,
    struct bale_errbuf *err);
/** Remove @name (one not there is no error). */
int bale_store_remove(const char *name, struct bale_errbuf *err);
/** Let go of what unfinished writes of names beginning with @prefix
 *  left behind (a killed run's multipart uploads: their parts). */
int bale_store_clean(const char *prefix, struct bale_errbuf *err);

/** Uploads to an object store from here on: parts of @part_size bytes
 *  (0: as is; 8 MiB at first), @in_flight of them sent at once (0: as
 *  is; 4 at first): an object being written holds (@in_flight + 1) x
 *  @part_size bytes at most. @return BALE_OK, or BALE_EINVAL: a part
 *  size S3 refuses (5 MiB to 5 GiB) */
int bale_store_set_uploads(size_t part_size, unsigned in_flight);

#endif
