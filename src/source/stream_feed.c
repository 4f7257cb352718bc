/* stream_feed.c - one thread passes over a compressed tar and hands its
 * members to the workers in a sliding window of their output order. */
#include "feed_int.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "tar_stream.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the feeding thread --------------------------------------------- */

/* Under the lock: may index @i be kept now? */
static int feed_fits(const struct bale_stream_feed *f, uint64_t i)
{
	return i == f->next || f->prefix[i + 1] - f->prefix[f->next] <=
	    f->bound;
}

/* Under the lock: record how index @i ended; @why is copied. */
void bale_feed_settle(struct bale_stream_feed *f, uint64_t i,
    unsigned char *data, const char *why)
{
	if (why) {
		f->slot[i] = strdup(why);
		f->state[i] = FEED_FAILED;
	} else {
		f->slot[i] = data;
		f->state[i] = FEED_READY;
		f->held += f->prefix[i + 1] - f->prefix[i];
		if (f->held > f->stats.peak_bytes)
			f->stats.peak_bytes = f->held;
	}
	f->unread--;
	pthread_cond_broadcast(&f->ready);
}

void bale_feed_deliver(struct bale_stream_feed *f, uint64_t i,
    unsigned char *data, const char *why)
{
	if (why)
		free(data);
	pthread_mutex_lock(&f->lock);
	bale_feed_settle(f, i, why ? NULL : data, why);
	pthread_mutex_unlock(&f->lock);
}

/* Wait (under the lock) until index @i fits, while waiting can help:
 * the first index wanted is read, so a worker will take it.
 * @return 1 if it fits, 0 if it must wait for another pass */
int bale_feed_wait_room(struct bale_stream_feed *f, uint64_t i)
{
	while (!feed_fits(f, i) && !f->aborted &&
	    f->state[f->next] != FEED_EMPTY)
		pthread_cond_wait(&f->room, &f->lock);
	return feed_fits(f, i) && !f->aborted;
}

/* Read the member the stream is at into index @i. */
static void feed_read(struct bale_stream_feed *f, struct bale_tar_stream *ts,
    uint64_t i, uint64_t size)
{
	unsigned char *buf = NULL;
	struct bale_errbuf err;
	const char *why = NULL;

	if (size != f->prefix[i + 1] - f->prefix[i])
		why = "the member changed size since the archive was listed";
	else if (!(buf = malloc(size ? size : 1)))
		why = "no memory for the member";
	else if (bale_tar_stream_read(ts, buf, size, &err) != BALE_OK)
		why = err.msg;
	bale_feed_deliver(f, i, buf, why);
}

/* One pass over one stream. */
struct feed_pass {
	struct bale_stream_feed *f;
	const struct feed_stream *s;
};

/* bale_tar_stream_scan callback. */
static int feed_member(void *ctx, struct bale_tar_stream *ts,
    const struct bale_stream_member *m)
{
	struct feed_pass *p = ctx;
	struct bale_stream_feed *f = p->f;
	uint64_t i;
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
	keep = f->state[i] == FEED_EMPTY && bale_feed_wait_room(f, i);
	if (f->state[i] == FEED_EMPTY && !keep)
		f->missed = 1;
	pthread_mutex_unlock(&f->lock);
	if (keep)
		feed_read(f, ts, i, m->size);
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

/* Under the lock: the index of stream @s's ordinal @o if it is unread,
 * else UINT64_MAX. */
static uint64_t feed_unread_at(const struct bale_stream_feed *f,
    const struct feed_stream *s, uint64_t o)
{
	uint64_t i = f->index_of[s->base + o];

	return i && f->state[i - 1] == FEED_EMPTY ? i - 1 : UINT64_MAX;
}

/* Does stream @s still hold a member to read? */
static int feed_stream_pending(struct bale_stream_feed *f,
    const struct feed_stream *s)
{
	uint64_t o;
	int pending = 0;

	pthread_mutex_lock(&f->lock);
	for (o = 0; !pending && o < s->nord; o++)
		pending = feed_unread_at(f, s, o) != UINT64_MAX;
	pthread_mutex_unlock(&f->lock);
	return pending;
}

/* After a pass over stream @s that ended (@s NULL: over every stream),
 * each index it left unread fails with @why. */
static void feed_fail_rest(struct bale_stream_feed *f,
    const struct feed_stream *s, const char *why)
{
	const struct feed_stream *end = s ? s + 1 : f->streams + f->nstreams;
	uint64_t i, o;

	pthread_mutex_lock(&f->lock);
	for (s = s ? s : f->streams; s < end; s++)
		for (o = 0; o < s->nord; o++)
			if ((i = feed_unread_at(f, s, o)) != UINT64_MAX)
				bale_feed_settle(f, i, NULL, why);
	pthread_mutex_unlock(&f->lock);
}

double bale_feed_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One pass over stream @s: what it cannot give fails with its reason
 * (the other streams go on). BALE_OK, FEED_ALL_READ or BALE_EINTR. */
static int feed_pass(struct bale_stream_feed *f, const struct feed_stream *s)
{
	struct feed_pass p = { f, s };
	struct bale_errbuf err;
	uint64_t met;
	int rc;

	rc = bale_tar_stream_scan(s->fd, feed_member, &p, &met, &err);
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
	double t0 = bale_feed_now();
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
	f->stats.seconds = bale_feed_now() - t0;
	return NULL;
}

/* ---- setting up, taking, tearing down ------------------------------- */

static int feed_alloc(struct bale_stream_feed *f, int packed)
{
	size_t n = f->count ? (size_t)f->count : 1;

	if (packed && !(f->sample_of = calloc(n, sizeof(*f->sample_of))))
		return BALE_ENOMEM;
	f->prefix = calloc(n + 1, sizeof(*f->prefix));
	f->slot = calloc(n, sizeof(*f->slot));
	f->state = calloc(n, 1);
	return f->prefix && f->slot && f->state ?
	    BALE_OK : BALE_ENOMEM;
}

static struct bale_stream_feed *feed_new(int packed, uint64_t first,
    uint64_t n, size_t bound)
{
	struct bale_stream_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->first = first;
	f->count = n - first;
	f->unread = f->count;
	f->bound = bound;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->ready, NULL);
	pthread_cond_init(&f->room, NULL);
	if (feed_alloc(f, packed) != BALE_OK) {
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
    const struct bale_walk *w, const bale_order_t *order, uint64_t first,
    uint64_t n, size_t bound, struct bale_errbuf *err)
{
	struct bale_stream_feed *f;
	const char *format;
	int packed = bale_walk_dataset_source(w, &format) != NULL;
	int rc;

	*out = NULL;
	/* files and members read in place only: nothing to feed, and no
	 * per-sample tables to make (33 bytes a sample) */
	if (first >= n || (!packed && !bale_walk_has_streamed(w)))
		return BALE_OK;
	f = feed_new(packed, first, n, bound);
	rc = f ? bale_feed_map(f, w, order) : BALE_ENOMEM;
	if (rc == BALE_OK && !packed && f->nstreams == 0) {
		bale_stream_feed_free(f, NULL);	/* nothing to feed */
		return BALE_OK;
	}
	if (rc == BALE_OK)
		rc = feed_launch(f, w, packed, err);
	else
		bale_errbuf_set(err, rc, "no memory");
	if (rc != BALE_OK) {
		bale_stream_feed_free(f, NULL);
		return rc;
	}
	*out = f;
	return BALE_OK;
}

int bale_stream_feed_take(struct bale_stream_feed *f, uint64_t pos,
    unsigned char **data, size_t *size, struct bale_errbuf *why)
{
	uint64_t i = pos - f->first;
	int rc = BALE_OK;

	pthread_mutex_lock(&f->lock);
	while (f->state[i] == FEED_EMPTY && !f->aborted)
		pthread_cond_wait(&f->ready, &f->lock);
	if (f->state[i] == FEED_EMPTY) {
		pthread_mutex_unlock(&f->lock);
		return BALE_EINTR;
	}
	if (f->state[i] == FEED_READY) {
		*data = f->slot[i];
		*size = (size_t)(f->prefix[i + 1] - f->prefix[i]);
		f->held -= *size;
	} else {
		rc = bale_errbuf_set(why, BALE_EINPUT, "%s", f->slot[i] ?
		    (const char *)f->slot[i] :
		    "cannot be read (no memory for why)");
		free(f->slot[i]);
	}
	f->slot[i] = NULL;
	f->state[i] = FEED_TAKEN;
	while (f->next < f->count && f->state[f->next] == FEED_TAKEN)
		f->next++;
	pthread_cond_broadcast(&f->room);
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

	if (!f)
		return;
	bale_stream_feed_abort(f);
	if (f->started)
		pthread_join(f->thread, NULL);
	if (stats)
		*stats = f->stats;
	for (i = 0; f->slot && i < f->count; i++)
		free(f->slot[i]);
	bale_reader_free(f->reader);
	free(f->sample_of);
	free(f->streams);
	free(f->index_of);
	free(f->prefix);
	free(f->slot);
	free(f->state);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->ready);
	pthread_cond_destroy(&f->room);
	free(f);
}
