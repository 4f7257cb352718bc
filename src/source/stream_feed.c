/* stream_feed.c - one thread passes over a compressed tar and hands its
 * members to the workers in a sliding window of their output order. */
#include "feed_int.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "source.h"
#include "tar_stream.h"

#include <stdlib.h>
#include <string.h>

/* Member @m's bytes, which the stream is at, into a new *@buf.
 * @return NULL, or why they could not be read */
static const char *feed_bytes(struct bale_tar_stream *ts,
    const struct bale_stream_member *m, unsigned char **buf,
    struct bale_errbuf *err)
{
	*buf = malloc(m->size ? m->size : 1);
	if (!*buf)
		return "no memory for the member";
	if (m->bytes)
		memcpy(*buf, m->bytes, m->size);
	else if (bale_tar_stream_read(ts, *buf, m->size, err) != BALE_OK)
		return err->msg;
	return NULL;
}

/* Read member @m, the one the stream is at, into index @i (of @want
 * bytes, unless that was a guess). */
static void feed_read(struct bale_stream_feed *f, struct bale_tar_stream *ts,
    const struct bale_stream_member *m, uint64_t i, uint64_t want,
    int guessed)
{
	unsigned char *buf = NULL;
	struct bale_errbuf err;
	const char *why = m->refused;

	if (!why && !guessed && m->size != want)
		why = "the member changed size since the archive was listed";
	if (!why)
		why = feed_bytes(ts, m, &buf, &err);
	bale_feed_deliver(f, i, buf, (size_t)m->size, NULL, why);
}

/* One pass over one stream. */
struct feed_pass {
	struct bale_stream_feed *f;
	const struct feed_stream *s;
};

/* The pass's wants: is one of the members @first.. @first + @n - 1 of
 * the stream still to be read? */
static int feed_wants(void *ctx, uint64_t first, uint64_t n)
{
	struct feed_pass *p = ctx;
	struct bale_stream_feed *f = p->f;
	uint64_t o, end = first + n < p->s->nord ? first + n : p->s->nord;
	uint32_t i;
	int wanted = 0;

	pthread_mutex_lock(&f->lock);
	for (o = first; !wanted && o < end; o++) {
		i = f->index_of[p->s->base + o];
		wanted = i && bale_feed_state(f, i - 1) == FEED_EMPTY;
	}
	pthread_mutex_unlock(&f->lock);
	return wanted;
}

/* The pass's callback: a member met. */
static int feed_member(void *ctx, struct bale_tar_stream *ts,
    const struct bale_stream_member *m)
{
	struct feed_pass *p = ctx;
	struct bale_stream_feed *f = p->f;
	uint64_t want = 0;
	uint64_t i;
	int guessed = 0;
	int keep;
	int rc;

	if (m->damage || m->ordinal >= p->s->nord ||
	    !f->index_of[p->s->base + m->ordinal])
		return BALE_OK;
	i = f->index_of[p->s->base + m->ordinal] - 1;
	pthread_mutex_lock(&f->lock);
	if (f->aborted || f->unread == 0) {
		rc = f->aborted ? BALE_EINTR : FEED_ALL_READ;
		pthread_mutex_unlock(&f->lock);
		return rc;
	}
	keep = bale_feed_state(f, i) == FEED_EMPTY &&
	    bale_feed_wait_room(f, i, m->size);
	if (bale_feed_state(f, i) == FEED_EMPTY && !keep)
		f->missed = 1;
	if (keep) {
		want = bale_feed_slot(f, i)->size;
		guessed = bale_feed_slot(f, i)->guessed;
	}
	pthread_mutex_unlock(&f->lock);
	if (keep)
		feed_read(f, ts, m, i, want, guessed);
	return BALE_OK;
}

/* Is there anything left to read, and may it be read? */
static int feed_more(struct bale_stream_feed *f)
{
	int more;

	pthread_mutex_lock(&f->lock);
	more = f->unread > 0 && !f->aborted;
	pthread_mutex_unlock(&f->lock);
	return more;
}

/* Does stream @s still hold a member to read? */
static int feed_stream_pending(struct bale_stream_feed *f,
    const struct feed_stream *s)
{
	int pending;

	pthread_mutex_lock(&f->lock);
	pending = s->unread > 0;
	pthread_mutex_unlock(&f->lock);
	return pending;
}

/* Under the lock: stream @s has ended; every index of it not read yet
 * fails with @why, those in the ring now, the rest as they enter it. */
static void feed_fail_stream(struct bale_stream_feed *f, struct feed_stream *s,
    const char *why)
{
	uint32_t k = (uint32_t)(s - f->streams);
	struct feed_slot *slot;
	uint64_t i;

	if (!s->unread)
		return;
	s->failed = 1;
	s->why = strdup(why);
	f->nfailed++;
	f->unread -= s->unread;
	s->unread = 0;
	for (i = f->next; i < f->mapped; i++) {
		slot = &f->ring[i % FEED_RING];
		if (slot->stream == k && slot->state == FEED_EMPTY)
			slot->state = FEED_FAILED;
	}
	pthread_cond_broadcast(&f->ready);
}

/* After a pass over stream @s that ended (@s NULL: over every stream),
 * each index it left unread fails with @why. */
static void feed_fail_rest(struct bale_stream_feed *f, struct feed_stream *s,
    const char *why)
{
	struct feed_stream *end = s ? s + 1 : f->streams + f->nstreams;

	pthread_mutex_lock(&f->lock);
	for (s = s ? s : f->streams; s < end; s++)
		feed_fail_stream(f, s, why);
	pthread_mutex_unlock(&f->lock);
}

/* One pass over stream @s: what it cannot give fails with its reason
 * (the other streams go on). BALE_OK, FEED_ALL_READ or BALE_EINTR. */
static int feed_pass(struct bale_stream_feed *f, struct feed_stream *s)
{
	struct feed_pass p = { f, s };
	struct bale_errbuf err;
	uint64_t met;
	int rc;

	rc = s->pass(s->fd, s->arg, feed_member, feed_wants, &p, &met, &err);
	if (rc == FEED_ALL_READ || rc == BALE_EINTR || rc == BALE_OK)
		return rc;
	feed_fail_rest(f, s, err.msg);
	return BALE_OK;
}

/* Passes over the streams that hold members still unread, in turn,
 * until every member is read or failed. */
static void *feed_main(void *arg)
{
	struct bale_stream_feed *f = arg;
	double t0 = bale_clock_now();
	size_t k;
	int rc = BALE_OK;

	while (rc == BALE_OK && feed_more(f)) {
		f->missed = 0;
		f->stats.passes++;
		for (k = 0; rc == BALE_OK && k < f->nstreams; k++)
			if (feed_stream_pending(f, &f->streams[k]))
				rc = feed_pass(f, &f->streams[k]);
		if (rc == BALE_OK && !f->missed)
			feed_fail_rest(f, NULL, "not found when the archive "
			    "was read again (did it change?)");
	}
	f->stats.seconds = bale_clock_now() - t0;
	return NULL;
}

/* ---- setting up, taking, tearing down ------------------------------- */

static struct bale_stream_feed *feed_new(const struct bale_walk *w,
    const struct bale_order *order, int packed, uint64_t first, uint64_t n,
    size_t bound)
{
	struct bale_stream_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->packed = packed;
	f->walk = w;
	f->order = *order;
	f->first = first;
	f->count = n - first;
	f->bound = bound;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->ready, NULL);
	pthread_cond_init(&f->room, NULL);
	f->ring = calloc(FEED_RING, sizeof(*f->ring));
	if (!f->ring) {
		bale_stream_feed_free(f, NULL);
		return NULL;
	}
	return f;
}

/* Open the walk's packed output if it is one, then start the thread
 * that reads the source. */
static int feed_launch(struct bale_stream_feed *f, const struct bale_walk *w,
    int packed, struct bale_errbuf *err)
{
	const char *format;
	const char *path = bale_walk_dataset_source(w, &format);
	int rc = BALE_OK;

	if (packed)
		rc = bale_feed_packed_open(f, path, format, err);
	if (rc != BALE_OK)
		return rc;
	if (pthread_create(&f->thread, NULL, packed ? bale_feed_packed_main :
	    feed_main, f) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "cannot start the "
		    "thread that reads the source");
	f->started = 1;
	return BALE_OK;
}

int bale_stream_feed_start(struct bale_stream_feed **out,
    const struct bale_walk *w, const struct bale_order *order, uint64_t first,
    uint64_t n, size_t bound, unsigned readers, struct bale_errbuf *err)
{
	size_t ahead = readers * FEED_AHEAD_PER_READER;
	struct bale_stream_feed *f;
	const char *format;
	int packed = bale_walk_dataset_source(w, &format) != NULL;
	int rc;

	*out = NULL;
	if (first >= n || (!packed && !bale_walk_has_streamed(w)))
		return BALE_OK;	/* files and members read in place */
	if (ahead < FEED_AHEAD_MIN)
		ahead = FEED_AHEAD_MIN;
	if (packed && bound > ahead)
		bound = ahead;
	f = feed_new(w, order, packed, first, n, bound);
	rc = f ? bale_feed_map(f) : BALE_ENOMEM;
	if (rc == BALE_OK && f->in_order && f->bound > ahead)
		f->bound = ahead;
	if (rc == BALE_OK && f->unread == 0) {
		bale_stream_feed_free(f, NULL);	/* nothing to feed */
		return BALE_OK;
	}
	if (rc == BALE_OK) {
		pthread_mutex_lock(&f->lock);
		bale_feed_advance(f);	/* past what is read in place */
		pthread_mutex_unlock(&f->lock);
		rc = feed_launch(f, w, packed, err);
	} else {
		bale_errbuf_set(err, rc, "no memory");
	}
	if (rc != BALE_OK) {
		bale_stream_feed_free(f, NULL);
		return rc;
	}
	*out = f;
	return BALE_OK;
}

/* Under the lock: wait until index @i is read or failed (0: aborted). */
static int feed_wait_settled(struct bale_stream_feed *f, uint64_t i)
{
	while (!f->aborted) {
		if (bale_feed_state(f, i) != FEED_EMPTY)
			return 1;
		pthread_cond_wait(&f->ready, &f->lock);
	}
	return 0;
}

/* Under the lock: why failed index @i (@s) cannot be read. */
static const char *feed_why(const struct bale_stream_feed *f,
    const struct feed_slot *s)
{
	if (s->data)
		return s->data;
	if (s->stream != FEED_NO_STREAM && f->streams[s->stream].why)
		return f->streams[s->stream].why;
	return "cannot be read (no memory for why)";
}

int bale_stream_feed_take(struct bale_stream_feed *f, uint64_t pos,
    struct bale_fed *out, struct bale_errbuf *why)
{
	uint64_t i = pos - f->first;
	struct feed_slot *s;
	int rc = BALE_OK;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&f->lock);
	if (!feed_wait_settled(f, i)) {
		pthread_mutex_unlock(&f->lock);
		return BALE_EINTR;
	}
	s = bale_feed_slot(f, i);
	if (s->state == FEED_READY) {
		out->data = s->data;
		out->size = (size_t)s->size;
		out->has_crc = s->has_crc;
		out->crc = s->crc;
		f->held -= s->size;
	} else {
		rc = bale_errbuf_set(why, BALE_EINPUT, "%s", feed_why(f, s));
		free(s->data);
	}
	s->data = NULL;
	s->state = FEED_TAKEN;
	bale_feed_advance(f);
	pthread_cond_broadcast(&f->room);
	if (f->nfailed)	/* a failed index may have entered the ring */
		pthread_cond_broadcast(&f->ready);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

void bale_stream_feed_abort(struct bale_stream_feed *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->aborted = 1;
	pthread_cond_broadcast(&f->ready);
	pthread_cond_broadcast(&f->room);
	pthread_mutex_unlock(&f->lock);
}

void bale_stream_feed_free(struct bale_stream_feed *f,
    struct bale_stream_feed_stats *stats)
{
	uint64_t i;
	size_t k;

	if (!f)
		return;
	bale_stream_feed_abort(f);
	if (f->started)
		pthread_join(f->thread, NULL);
	if (stats)
		*stats = f->stats;
	for (i = f->next; f->ring && i < f->mapped; i++)
		free(f->ring[i % FEED_RING].data);
	for (k = 0; k < f->nstreams; k++)
		free(f->streams[k].why);
	bale_reader_free(f->reader);
	free(f->streams);
	free(f->stream_at_fd);
	free(f->index_of);
	free(f->ring);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->ready);
	pthread_cond_destroy(&f->room);
	free(f);
}
