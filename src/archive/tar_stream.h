/* tar_stream.h - the members of a compressed tar, met in stream order.
 *
 * Whatever compression libarchive undoes (gzip, bzip2, xz, zstd, lz4,
 * ...) is read front to back, once per pass: a compressed stream has no
 * offsets to pread. A regular member named *.tar at the top level is
 * entered too, so a compressed tar of tars gives its inner members. Every
 * pass enters the same members, so a member's ordinal (its place in the
 * stream) names it from one pass to the next.
 */
#ifndef BALE_TAR_STREAM_H
#define BALE_TAR_STREAM_H

#include "bale_backend_util.h"
#include "tar_scan.h"

#include <stddef.h>
#include <stdint.h>

struct bale_tar_stream;

struct bale_stream_member {
	const char *name;	/* as stored */
	enum bale_tar_kind kind;
	uint64_t size;
	uint64_t ordinal;	/* members met before it, inner ones too */
	const char *outer;	/* an inner member: its tar's name; else NULL */
	const char *damage;	/* set on a call that only says the inner
				 * tar @outer is damaged here: nothing after
				 * in it is read */
};

/** Called for each member, before its data: it may read the data with
 *  bale_tar_stream_read(), or leave it. A non-zero return stops the
 *  pass with it. */
typedef int (*bale_stream_member_fn)(void *ctx, struct bale_tar_stream *s,
    const struct bale_stream_member *m);

/** Read every member of the compressed tar @fd (read with pread from its
 *  start, so passes may follow one another on one descriptor).
 *  @return BALE_OK at its end; BALE_EINPUT when it is not a compressed
 *  tar, or is damaged (@err says how, and *@met how many members were
 *  met before); BALE_ENOMEM; or what @fn returned */
int bale_tar_stream_scan(int fd, bale_stream_member_fn fn, void *ctx,
    uint64_t *met, struct bale_errbuf *err);

/** Read the current member's @size bytes (all of them) into @buf.
 *  @return BALE_OK, or BALE_EINPUT with @err set (damaged, cut short) */
int bale_tar_stream_read(struct bale_tar_stream *s, unsigned char *buf,
    size_t size, struct bale_errbuf *err);

#endif
