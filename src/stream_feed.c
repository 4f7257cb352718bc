/* stream_feed.c - one thread passes over a compressed tar and hands its
 * members to the workers in a sliding window of their output order. */
#include "feed_int.h"

#include "bale.h"
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
void feed_settle(struct bale_stream_feed *f, uint64_t i,
    unsigned char *data, const char *why)
{
	if (why) {
		f->why[i] = strdup(why);
		f->state[i] = FEED_FAILED;
	} else {
		f->data[i] = data;
		f->state[i] = FEED_READY;
		f->held += f->prefix[i + 1] - f->prefix[i];
		if (f->held > f->stats.peak_bytes)
			f->stats.peak_bytes = f->held;
	}
	f->unread--;
	pthread_cond_broadcast(&f->ready);
}

void feed_deliver(struct bale_stream_feed *f, uint64_t i,
    unsigned char *data, const char *why)
{
	if (why)
		free(data);
	pthread_mutex_lock(&f->lock);
	feed_settle(f, i, why ? NULL : data, why);
	pthread_mutex_unlock(&f->lock);
}

/* Wait (under the lock) until index @i fits, while waiting can help:
 * the first index wanted is read, so a worker will take it.
 * @return 1 if it fits, 0 if it must wait for another pass */
int feed_wait_room(struct bale_stream_feed *f, uint64_t i)
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
	feed_deliver(f, i, buf, why);
}

/* bale_tar_stream_scan callback. */
static int feed_member(void *ctx, struct bale_tar_stream *ts,
    const struct bale_stream_member *m)
{
	struct bale_stream_feed *f = ctx;
	uint64_t i;
	int keep;
	int rc;

	if (m->damage || m->ordinal >= f->nordinals ||
	    !f->index_of[m->ordinal])
		return BALE_OK;
	i = f->index_of[m->ordinal] - 1;
	pthread_mutex_lock(&f->lock);
	if (f->aborted || f->unread == 0) {
		rc = f->aborted ? BALE_EINTR : FEED_ALL_READ;
		pthread_mutex_unlock(&f->lock);
		return rc;
	}
	keep = f->state[i] == FEED_EMPTY && feed_wait_room(f, i);
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

/* After a pass that ended: every index still unread fails with @why. */
static void feed_fail_rest(struct bale_stream_feed *f, const char *why)
{
	uint64_t i;

	pthread_mutex_lock(&f->lock);
	for (i = 0; i < f->count && f->unread > 0; i++)
		if (f->state[i] == FEED_EMPTY)
			feed_settle(f, i, NULL, why);
	pthread_mutex_unlock(&f->lock);
}

double feed_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *feed_main(void *arg)
{
	struct bale_stream_feed *f = arg;
	struct bale_errbuf err;
	double t0 = feed_now();
	uint64_t met;
	int rc = BALE_OK;

	while (rc == BALE_OK && feed_more(f)) {
		f->missed = 0;
		f->stats.passes++;
		rc = bale_tar_stream_scan(f->fd, feed_member, f, &met, &err);
		if (rc == FEED_ALL_READ || rc == BALE_EINTR)
			break;
		if (rc != BALE_OK)
			feed_fail_rest(f, err.msg);
		else if (!f->missed)
			feed_fail_rest(f, "not found when the archive was read "
			    "again (did it change?)");
	}
	f->stats.seconds = feed_now() - t0;
	return NULL;
}

/* ---- setting up, taking, tearing down ------------------------------- */

/* The one archive fd of the streamed samples (-1: none), and the highest
 * ordinal + 1 in *@nord. */
static int feed_find_stream(const struct bale_walk *w, uint64_t *nord,
    int *fd, struct bale_errbuf *err)
{
	struct bale_walk_member m;
	size_t i;

	*fd = -1;
	*nord = 0;
	for (i = 0; i < bale_walk_count(w); i++) {
		if (!bale_walk_member(w, i, &m) ||
		    m.method != BALE_WALK_STREAMED)
			continue;
		if (*fd >= 0 && m.fd != *fd)
			return bale_errbuf_set(err, BALE_ENOTSUP, "several "
			    "compressed archives in one run are not read yet");
		*fd = m.fd;
		if (m.offset + 1 > *nord)
			*nord = m.offset + 1;
	}
	return BALE_OK;
}

static int feed_alloc(struct bale_stream_feed *f, int packed)
{
	size_t nord = f->nordinals ? (size_t)f->nordinals : 1;
	size_t n = f->count ? (size_t)f->count : 1;

	if (packed && !(f->sample_of = calloc(n, sizeof(*f->sample_of))))
		return BALE_ENOMEM;
	f->index_of = calloc(nord, sizeof(*f->index_of));
	f->prefix = calloc(n + 1, sizeof(*f->prefix));
	f->data = calloc(n, sizeof(*f->data));
	f->why = calloc(n, sizeof(*f->why));
	f->state = calloc(n, 1);
	return f->index_of && f->prefix && f->data && f->why && f->state ?
	    BALE_OK : BALE_ENOMEM;
}

/* Map stream ordinals to indexes (or indexes to a packed output's
 * samples), sum the sizes in output order. */
static void feed_map(struct bale_stream_feed *f, const struct bale_walk *w,
    const uint64_t *order)
{
	struct bale_walk_member m;
	uint64_t i;

	for (i = 0; i < f->count; i++) {
		bale_walk_member(w, (size_t)order[f->first + i], &m);
		if (f->sample_of)
			f->sample_of[i] = m.offset;
		else
			f->index_of[m.offset] = i + 1;
		f->prefix[i + 1] = f->prefix[i] + m.size;
	}
}

static struct bale_stream_feed *feed_new(int fd, int packed, uint64_t nord,
    uint64_t first, uint64_t n, size_t bound)
{
	struct bale_stream_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->fd = fd;
	f->first = first;
	f->count = n - first;
	f->unread = f->count;
	f->nordinals = nord;
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

/* Set up for the walk's one packed output or compressed tar, then start
 * the thread that reads it. */
static int feed_launch(struct bale_stream_feed *f, const struct bale_walk *w,
    const uint64_t *order, int packed, struct bale_errbuf *err)
{
	const char *format;
	const char *path = bale_walk_dataset_source(w, &format);
	int rc = BALE_OK;

	feed_map(f, w, order);
	if (packed)
		rc = feed_packed_open(f, path, format, err);
	if (rc != BALE_OK)
		return rc;
	if (pthread_create(&f->thread, NULL, packed ? feed_packed_main :
	    feed_main, f) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "cannot start the "
		    "thread that reads the source");
	f->started = 1;
	return BALE_OK;
}

int bale_stream_feed_start(struct bale_stream_feed **out,
    const struct bale_walk *w, const uint64_t *order, uint64_t first,
    uint64_t n, size_t bound, struct bale_errbuf *err)
{
	struct bale_stream_feed *f;
	const char *format;
	int packed = bale_walk_dataset_source(w, &format) != NULL;
	uint64_t nord = 0;
	int fd = -1;
	int rc;

	*out = NULL;
	rc = packed ? BALE_OK : feed_find_stream(w, &nord, &fd, err);
	if (rc != BALE_OK || (fd < 0 && !packed) || first >= n)
		return rc;
	f = feed_new(fd, packed, nord, first, n, bound);
	if (!f)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	rc = feed_launch(f, w, order, packed, err);
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
		*data = f->data[i];
		*size = (size_t)(f->prefix[i + 1] - f->prefix[i]);
		f->data[i] = NULL;
		f->held -= *size;
	} else {
		rc = bale_errbuf_set(why, BALE_EINPUT, "%s", f->why[i] ?
		    f->why[i] : "cannot be read (no memory for why)");
		free(f->why[i]);
		f->why[i] = NULL;
	}
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
	for (i = 0; f->data && i < f->count; i++)
		free(f->data[i]);
	for (i = 0; f->why && i < f->count; i++)
		free(f->why[i]);
	bale_reader_free(f->reader);
	free(f->sample_of);
	free(f->index_of);
	free(f->prefix);
	free(f->data);
	free(f->why);
	free(f->state);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->ready);
	pthread_cond_destroy(&f->room);
	free(f);
}
