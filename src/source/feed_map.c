/* feed_map.c - which output positions the feed reads, and from where:
 * the samples of a packed output, or the members of one or more
 * compressed tars. Members read in place (a tar, a zip) are the workers'
 * own: their positions enter the ring taken, with no bytes, so the
 * window slides past them. */
#include "feed_int.h"

#include "bale.h"
#include "source.h"

#include <stdlib.h>
#include <string.h>

/* Is index @i fed, and where from (@m)? */
static int feed_member_of(const struct bale_stream_feed *f, uint64_t i,
    struct bale_walk_member *m)
{
	size_t wi = bale_order_at(&f->order, f->first + i);

	return bale_walk_member(f->walk, wi, m) && bale_source_member_fed(m);
}

/* The largest fd of a compressed tar's member among the fed positions,
 * or -1. */
static int feed_max_fd(const struct bale_stream_feed *f)
{
	struct bale_walk_member m;
	int max = -1;
	uint64_t i;

	for (i = 0; i < f->count; i++)
		if (feed_member_of(f, i, &m) && m.fd > max)
			max = m.fd;
	return max;
}

/* The stream numbered for @m's archive. */
static uint32_t feed_stream_index(const struct bale_stream_feed *f,
    const struct bale_walk_member *m)
{
	return (uint32_t)(f->stream_at_fd[m->fd] - 1);
}

/* The stream of @m's archive, numbered when first met, so passes read
 * the streams in the order the output first wants them. */
static struct feed_stream *feed_stream_of(struct bale_stream_feed *f,
    const struct bale_walk_member *m)
{
	struct feed_stream *s;

	if (!f->stream_at_fd[m->fd]) {
		s = &f->streams[f->nstreams];
		s->fd = m->fd;
		s->pass = m->kind->stream;
		s->arg = m->method;
		f->stream_at_fd[m->fd] = ++f->nstreams;
	}
	s = &f->streams[feed_stream_index(f, m)];
	if (m->offset + 1 > s->nord)
		s->nord = m->offset + 1;
	return s;
}

/* Each stream's ordinals get a range of index_of, in stream order. */
static int feed_place_streams(struct bale_stream_feed *f)
{
	size_t k;

	f->nordinals = 0;
	for (k = 0; k < f->nstreams; k++) {
		f->streams[k].base = f->nordinals;
		f->nordinals += f->streams[k].nord;
	}
	f->index_of = calloc(f->nordinals ? f->nordinals : 1,
	    sizeof(*f->index_of));
	return f->index_of ? BALE_OK : BALE_ENOMEM;
}

/* Number the streams and count each one's positions (a stream is an
 * open archive: there are few). */
static int feed_find_streams(struct bale_stream_feed *f)
{
	struct bale_walk_member m;
	int maxfd = feed_max_fd(f);
	uint64_t i;

	f->stream_at_fd = calloc((size_t)maxfd + 2, sizeof(*f->stream_at_fd));
	f->streams = calloc((size_t)maxfd + 2, sizeof(*f->streams));
	if (!f->stream_at_fd || !f->streams)
		return BALE_ENOMEM;
	for (i = 0; i < f->count; i++)
		if (feed_member_of(f, i, &m)) {
			feed_stream_of(f, &m)->unread++;
			f->unread++;
		}
	return feed_place_streams(f);
}

int bale_feed_map(struct bale_stream_feed *f)
{
	struct bale_walk_member m;
	const struct feed_stream *s;
	uint64_t last = 0;
	uint64_t i;
	int rc;

	if (f->packed) {
		for (i = 0; i < f->count; i++)
			f->unread += feed_member_of(f, i, &m);
		return BALE_OK;
	}
	rc = feed_find_streams(f);
	f->in_order = 1;
	for (i = 0; rc == BALE_OK && i < f->count; i++)
		if (feed_member_of(f, i, &m)) {
			s = &f->streams[feed_stream_index(f, &m)];
			/* ordinals, and so positions, in stream order? */
			f->in_order &= s->base + m.offset + 1 > last;
			last = s->base + m.offset + 1;
			f->index_of[s->base + m.offset] = (uint32_t)(i + 1);
		}
	return rc;
}

/* Index f->mapped enters the ring. */
static void feed_map_one(struct bale_stream_feed *f)
{
	struct feed_slot *s = &f->ring[f->mapped % FEED_RING];
	struct bale_walk_member m;

	memset(s, 0, sizeof(*s));
	s->stream = FEED_NO_STREAM;
	s->state = FEED_TAKEN;
	if (feed_member_of(f, f->mapped, &m)) {
		s->size = bale_walk_member_planned(&m);
		s->guessed = m.size == 0;
		s->where = m.offset;
		s->state = FEED_EMPTY;
		if (!f->packed)
			s->stream = feed_stream_index(f, &m);
		if (!f->packed && f->streams[s->stream].failed)
			s->state = FEED_FAILED;	/* why: its stream's */
	}
	f->mapped_end += s->size;
	s->end = f->mapped_end;
	f->mapped++;
}

void bale_feed_map_to(struct bale_stream_feed *f, uint64_t i)
{
	uint64_t upto = i + 1;

	if (upto > f->next + FEED_RING)
		upto = f->next + FEED_RING;
	if (upto > f->count)
		upto = f->count;
	while (f->mapped < upto)
		feed_map_one(f);
}
