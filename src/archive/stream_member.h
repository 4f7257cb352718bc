/* stream_member.h - a member met as an archive is passed over front to
 * back, for the archives read in passes (a compressed tar, tar_stream.h;
 * a Parquet file's rows, parquet_rows.h) and the feed that reads them. */
#ifndef BALE_STREAM_MEMBER_H
#define BALE_STREAM_MEMBER_H

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
	const char *refused;	/* set: why it cannot be a sample (a
				 * Parquet row's null image), no bytes */
	const unsigned char *bytes;	/* its @size bytes when the pass
					 * holds them already (a Parquet
					 * row's), valid during the call;
					 * NULL: read them from the stream */
};

/** Called for each member, before its data: it may read the data
 *  (@bytes, or bale_tar_stream_read() of @s), or leave it. A non-zero
 *  return stops the pass with it. */
typedef int (*bale_stream_member_fn)(void *ctx, struct bale_tar_stream *s,
    const struct bale_stream_member *m);

/** Does the pass want any of the @n members from ordinal @first on?
 *  (An archive that can skip a stretch unread asks: a Parquet file's
 *  row group.) */
typedef int (*bale_stream_wants_fn)(void *ctx, uint64_t first, uint64_t n);

/** A pass over the archive @fd front to back, each member to @fn; the
 *  stretches @wants (NULL: all) says no member of are passed over, if
 *  the archive can, or met as any other. @arg: what the listing kept in
 *  its members' method (a Parquet file's image column).
 *  @return BALE_OK at its end; BALE_EINPUT when it is damaged (@err
 *  says how, and *@met how many members were met before); BALE_ENOMEM;
 *  or what @fn returned */
typedef int (*bale_stream_pass_fn)(int fd, int arg, bale_stream_member_fn fn,
    bale_stream_wants_fn wants, void *ctx, uint64_t *met,
    struct bale_errbuf *err);

#endif
