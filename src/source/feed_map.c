/* feed_map.c - which output positions the feed reads, and from where:
 * the samples of a packed output, or the members of one or more
 * compressed tars. Members read in place (a tar, a zip) are the workers'
 * own: their positions start out taken, with no bytes, so the window
 * slides past them. */
#include "feed_int.h"

#include "bale.h"
#include "source.h"

#include <stdlib.h>

/* The largest fd of a compressed tar's member among the fed positions,
 * or -1. */
static int feed_max_fd(const struct bale_stream_feed *f,
    const struct bale_walk *w, const bale_order_t *order)
{
	struct bale_walk_member m;
	int max = -1;
	uint64_t i;

	for (i = 0; i < f->count; i++)
		if (bale_walk_member(w, (size_t)order[f->first + i], &m) &&
		    bale_source_streams(m.kind) && m.fd > max)
			max = m.fd;
	return max;
}

/* The stream of @m's archive (@at_fd: 1 + its stream, by fd), numbered
 * when first met, so passes read the streams in the order the output
 * first wants them. */
static size_t feed_stream_of(struct bale_stream_feed *f, size_t *at_fd,
    const struct bale_walk_member *m)
{
	struct feed_stream *s;

	if (!at_fd[m->fd]) {
		s = &f->streams[f->nstreams];
		s->fd = m->fd;
		at_fd[m->fd] = ++f->nstreams;
	}
	s = &f->streams[at_fd[m->fd] - 1];
	if (m->offset + 1 > s->nord)
		s->nord = m->offset + 1;
	return at_fd[m->fd] - 1;
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

/* Number the streams; @stream[i] is position i's, or UINT32_MAX (a
 * stream is an open archive: there are few). */
static int feed_find_streams(struct bale_stream_feed *f,
    const struct bale_walk *w, const bale_order_t *order, uint32_t *stream)
{
	struct bale_walk_member m;
	int maxfd = feed_max_fd(f, w, order);
	size_t *at_fd = calloc((size_t)maxfd + 2, sizeof(*at_fd));
	uint64_t i;

	f->streams = calloc((size_t)maxfd + 2, sizeof(*f->streams));
	if (!at_fd || !f->streams) {
		free(at_fd);
		return BALE_ENOMEM;
	}
	for (i = 0; i < f->count; i++) {
		stream[i] = UINT32_MAX;
		if (bale_walk_member(w, (size_t)order[f->first + i], &m) &&
		    bale_source_streams(m.kind))
			stream[i] = (uint32_t)feed_stream_of(f, at_fd, &m);
	}
	free(at_fd);
	return feed_place_streams(f);
}

/* Positions from compressed tars are fed; the others are taken. */
static int feed_map_streams(struct bale_stream_feed *f,
    const struct bale_walk *w, const bale_order_t *order)
{
	uint32_t *stream = malloc((f->count ? f->count : 1) *
	    sizeof(*stream));
	struct bale_walk_member m;
	uint64_t i;
	int rc;

	rc = stream ? feed_find_streams(f, w, order, stream) : BALE_ENOMEM;
	for (i = 0; rc == BALE_OK && i < f->count; i++) {
		bale_walk_member(w, (size_t)order[f->first + i], &m);
		f->prefix[i + 1] = f->prefix[i];
		if (stream[i] == UINT32_MAX) {
			f->state[i] = FEED_TAKEN;
			f->unread--;
			continue;
		}
		f->index_of[f->streams[stream[i]].base + m.offset] =
		    (uint32_t)(i + 1);
		f->prefix[i + 1] += m.size;
	}
	while (f->next < f->count && f->state[f->next] == FEED_TAKEN)
		f->next++;
	free(stream);
	return rc;
}

/* Every position is a packed output's sample, read in output order. */
static void feed_map_packed(struct bale_stream_feed *f,
    const struct bale_walk *w, const bale_order_t *order)
{
	struct bale_walk_member m;
	uint64_t i;

	for (i = 0; i < f->count; i++) {
		bale_walk_member(w, (size_t)order[f->first + i], &m);
		f->sample_of[i] = m.offset;
		f->prefix[i + 1] = f->prefix[i] + m.size;
	}
}

int bale_feed_map(struct bale_stream_feed *f, const struct bale_walk *w,
    const bale_order_t *order)
{
	if (!f->sample_of)
		return feed_map_streams(f, w, order);
	feed_map_packed(f, w, order);
	return BALE_OK;
}
