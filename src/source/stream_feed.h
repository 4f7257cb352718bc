/* stream_feed.h - the samples of compressed tars, or of a packed output
 * read as the source, for the workers.
 *
 * A compressed stream cannot be read at offsets, and its order is not
 * torchvision's: one thread decompresses it front to back and keeps the
 * members the workers will want soon, at most @bound bytes of them past
 * the first one still wanted (that one is always kept). A member met too
 * early to fit is left for another pass over the stream; a member met
 * while its turn is near waits for room instead. So an archive in sorted
 * order takes one pass, and one in any order about its size / @bound.
 * Several compressed tars are passed over in turn, each only while it
 * holds a member still unread; members read in place (tar, zip) are the
 * workers' own, and the window slides past them.
 * A packed output (bale_walk_dataset) is read by one reader in output
 * order, within a smaller bound: one pass, whatever the order.
 */
#ifndef BALE_STREAM_FEED_H
#define BALE_STREAM_FEED_H

#include "bale_backend_util.h"
#include "shuffle.h"
#include "walk.h"

#include <stdint.h>

struct bale_stream_feed;

struct bale_stream_feed_stats {
	unsigned passes;	/* over the source, the walk's not counted */
	double seconds;		/* the feeding thread's time */
	uint64_t peak_bytes;	/* most member bytes held at once */
};

/** Start feeding output positions [@first, @n) (walk index
 *  @order[pos]) when the walk has streamed or packed samples; *@out
 *  stays NULL when it has none. Read in output order (a packed output,
 *  streams met in that order), at most a few images for each of the
 *  @readers are held ahead, else @bound bytes.
 *  @return BALE_OK, BALE_ENOMEM, BALE_EINPUT (the packed output no
 *  longer opens), with @err set */
int bale_stream_feed_start(struct bale_stream_feed **out,
    const struct bale_walk *w, const struct bale_order *order, uint64_t first,
    uint64_t n, size_t bound, unsigned readers, struct bale_errbuf *err);

/* A position's bytes, as taken. */
struct bale_fed {
	unsigned char *data;	/* the caller's to free */
	size_t size;
	int has_crc;		/* the packed output stored a checksum, */
	uint32_t crc;		/* which the caller checks the bytes with */
};

/** Wait for the bytes of position @pos, and take them into @out. Each
 *  position is taken once.
 *  @return BALE_OK; BALE_EINPUT when the member could not be read
 *  (@why says why); BALE_EINTR after bale_stream_feed_abort() */
int bale_stream_feed_take(struct bale_stream_feed *f, uint64_t pos,
    struct bale_fed *out, struct bale_errbuf *why);

/** Stop feeding and wake every waiting taker. */
void bale_stream_feed_abort(struct bale_stream_feed *f);

/** Abort, wait for the thread, free what was never taken. */
void bale_stream_feed_free(struct bale_stream_feed *f,
    struct bale_stream_feed_stats *stats);

#endif
