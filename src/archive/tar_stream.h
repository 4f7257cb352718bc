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
#include "stream_member.h"
#include "tar_scan.h"

#include <stddef.h>
#include <stdint.h>

struct bale_tar_stream;

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
