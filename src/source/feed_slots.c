/* feed_slots.c - the feed's window of slots: the members it has read
 * and not yet handed over, the room left for more (memory and slots),
 * and handing one over. The feed's threads (stream_feed.c, feed_packed.c)
 * fill it; the workers take from it. */
#include "feed_int.h"

#include "bale.h"
#include "bale_backend_util.h"

#include <stdlib.h>
#include <string.h>

struct feed_slot *bale_feed_slot(struct bale_stream_feed *f, uint64_t i)
{
	bale_feed_map_to(f, i);
	return &f->ring[i % FEED_RING];
}

int bale_feed_state(struct bale_stream_feed *f, uint64_t i)
{
	if (i < f->next)
		return FEED_TAKEN;
	if (i >= f->next + FEED_RING)
		return FEED_EMPTY;
	return bale_feed_slot(f, i)->state;
}

void bale_feed_advance(struct bale_stream_feed *f)
{
	struct feed_slot *s;

	while (f->next < f->count) {
		s = bale_feed_slot(f, f->next);
		if (s->state != FEED_TAKEN)
			break;
		f->start = s->end;
		f->next++;
	}
}

/* Under the lock: may index @i, of @size bytes, be kept now? */
static int feed_fits(struct bale_stream_feed *f, uint64_t i, uint64_t size)
{
	const struct feed_slot *s;

	if (i == f->next)
		return 1;
	if (i >= f->next + FEED_RING)
		return 0;
	s = bale_feed_slot(f, i);
	return s->end - f->start <= f->bound && (!s->guessed ||
	    f->held + size <= f->bound);
}

/* Under the lock: record how index @i ended; @why is copied. */
static void feed_settle(struct bale_stream_feed *f, uint64_t i,
    unsigned char *data, size_t size, const char *why)
{
	struct feed_slot *s = bale_feed_slot(f, i);

	if (why) {
		s->data = strdup(why);
		s->state = FEED_FAILED;
	} else {
		s->data = data;
		s->size = size;	/* a guess no more */
		s->state = FEED_READY;
		f->held += s->size;
		if (f->held > f->stats.peak_bytes)
			f->stats.peak_bytes = f->held;
	}
	if (s->stream != FEED_NO_STREAM)
		f->streams[s->stream].unread--;
	f->unread--;
	pthread_cond_broadcast(&f->ready);
}

void bale_feed_deliver(struct bale_stream_feed *f, uint64_t i,
    unsigned char *data, size_t size, const uint32_t *crc, const char *why)
{
	struct feed_slot *s;

	if (why)
		free(data);
	pthread_mutex_lock(&f->lock);
	s = bale_feed_slot(f, i);
	s->has_crc = crc && !why;
	s->crc = crc && !why ? *crc : 0;
	feed_settle(f, i, why ? NULL : data, size, why);
	pthread_mutex_unlock(&f->lock);
}

/* Waiting can help while the first index wanted is read: a worker
 * will take it. */
int bale_feed_wait_room(struct bale_stream_feed *f, uint64_t i,
    uint64_t size)
{
	while (!feed_fits(f, i, size) && !f->aborted &&
	    bale_feed_state(f, f->next) != FEED_EMPTY)
		pthread_cond_wait(&f->room, &f->lock);
	return feed_fits(f, i, size) && !f->aborted;
}

