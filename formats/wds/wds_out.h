/* wds_out.h - a shard's tar bytes, written by hand: each member a ustar
 * header, its bytes and their padding.
 *
 * The members of a shard are all alike (a regular file, mode 0644,
 * owner 0, time 0, a short name), so a header is a fixed template with
 * the name, the size and the checksum filled in: libarchive did the
 * same with an entry object, a name conversion and a call per field,
 * and that was a tenth of a small-sample pack's time. The bytes are the
 * ones libarchive's ustar writer gave. Through the page cache, small
 * writes gather in a buffer and large payloads go out straight from the
 * sample's memory, in one writev(2) with what is buffered (held, a
 * megabyte of them and the buffer's bytes between them in one); past
 * it (wds_dio.h), every byte is copied into whole buffers.
 */
#ifndef WDS_OUT_H
#define WDS_OUT_H

#include "wds_dio.h"

#include "bale_backend_util.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Pieces one gathered write takes at most (a payload and the buffer's
 * bytes before it, each). */
#define BALE_WDS_OUT_GATHER 64

struct wds_out {
	int fd;
	unsigned char *buf;	/* the buffer being filled */
	size_t len;
	size_t cap;
	unsigned char *own;	/* the buffer of writes through the cache */
	int direct;		/* the file is written by dio */
	struct wds_dio dio;
	uint64_t written;	/* through the cache: the file's length */
	struct bale_swrite *sw;	/* uploaded (an object store's shard):
				 * the bytes go there, not to fd */
	struct bale_errbuf err;	/* why an upload's write failed */
	/* held: large payloads gathered, by reference, with the buffer's
	 * bytes between them, into one write (bale_wds_out_settle()) */
	int hold;		/* the caller keeps payloads until then */
	struct iovec gathered[BALE_WDS_OUT_GATHER];
	int ngathered;
	size_t gathered_bytes;
	size_t gathered_to;	/* the buffer's bytes gathered already */
};

/** Start writing a tar to @fd (empty), with @direct past the page cache
 *  (wds_dio.h) if the file system lets it. @return 0, or -1 with errno */
int bale_wds_out_begin(struct wds_out *o, int fd, int direct);

/** Start writing a tar into the upload @sw (bale_store.h), borrowed.
 *  @return 0, or -1 with errno */
int bale_wds_out_begin_upload(struct wds_out *o, struct bale_swrite *sw);

/** Why the last call failed: the upload's words, or errno's. */
const char *bale_wds_out_why(const struct wds_out *o);

#define BALE_WDS_OUT_NAME_MAX 99	/* bytes of a member's name */
#define BALE_WDS_OUT_SIZE_MAX ((UINT64_C(1) << 33) - 1)	/* 11 octal
							 * digits */

/** Member @name (NUL-terminated, at most BALE_WDS_OUT_NAME_MAX bytes)
 *  holding the @n bytes (at most BALE_WDS_OUT_SIZE_MAX) at @data.
 *  @return 0, or -1 with errno (a write's error; EINVAL past those) */
int bale_wds_out_member(struct wds_out *o, const char *name,
    const void *data, uint64_t n);

/** Through the cache, all that is buffered to the file (a checkpoint
 *  at a sample's end). @return 0, or -1 with errno */
int bale_wds_out_push(struct wds_out *o);

/** Hold (@hold 1): large payloads written through the cache are
 *  gathered by reference, the caller keeping them until
 *  bale_wds_out_settle(), and written several in one writev(2) (a
 *  write a payload cost the pack a fifth of its time). Not held, each
 *  is written as it comes. */
void bale_wds_out_hold(struct wds_out *o, int hold);

/** Write what is gathered (and buffered). @return 0, or -1 with errno */
int bale_wds_out_settle(struct wds_out *o);

/** How long the file is by now: the bytes written, not buffered. */
uint64_t bale_wds_out_on_disk(struct wds_out *o);

/** The two zero blocks that end a tar, and all that is buffered, to
 *  the file. @return 0, or -1 with errno */
int bale_wds_out_end(struct wds_out *o);

/** Free the buffers (what they held is lost) and stop a dio thread. */
void bale_wds_out_release(struct wds_out *o);

#endif
