/* feed_packed.c - the samples of a packed output read as the source,
 * fed in output order by one reader: the backends' readers are one per
 * thread, and the bytes go straight into memory the workers then own. */
#include "feed_int.h"

#include "bale.h"
#include "bale_backend_util.h"

#include <stdlib.h>

int bale_feed_packed_open(struct bale_stream_feed *f, const char *path,
    const char *format, struct bale_errbuf *err)
{
	int rc;

	if (bale_reader_new(&f->reader) != BALE_OK)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	rc = bale_reader_open(f->reader, format, path);
	if (rc == BALE_ENOMEM)
		return bale_errbuf_set(err, rc, "no memory");
	if (rc != BALE_OK)
		return bale_errbuf_set(err, BALE_EINPUT, "'%s': %s", path,
		    bale_reader_errmsg(f->reader));
	return BALE_OK;
}

/* bale_reader_set_dest: the sample's own malloc'd memory. */
static void *feed_packed_dest(void *ctx, size_t size)
{
	unsigned char **buf = ctx;

	*buf = malloc(size ? size : 1);
	return *buf;
}

/* Read index @i (its turn has come, or it fits the bound): @sample of
 * the packed output, of @want bytes, as the walk listed it. */
static void feed_packed_read(struct bale_stream_feed *f, uint64_t i,
    uint64_t sample, uint64_t want)
{
	unsigned char *buf = NULL;
	const char *why = NULL;
	struct bale_blob b;
	int rc;

	bale_reader_set_dest(f->reader, feed_packed_dest, &buf);
	rc = bale_reader_get(f->reader, sample, &b);
	if (rc == BALE_ENOMEM)
		why = "no memory for the sample";
	else if (rc != BALE_OK)
		why = bale_reader_errmsg(f->reader);
	else if (b.size != want)
		why = "the sample changed size since the output was listed";
	bale_feed_deliver(f, i, buf, (size_t)want, rc == BALE_OK &&
	    b.has_crc32 ? &b.crc32 : NULL, why);
}

void *bale_feed_packed_main(void *arg)
{
	struct bale_stream_feed *f = arg;
	double t0 = bale_clock_now();
	struct feed_slot *s;
	uint64_t sample = 0;
	uint64_t want = 0;
	uint64_t i;
	int go = 1;
	int fed;

	f->stats.passes = 1;
	for (i = 0; go && i < f->count; i++) {
		pthread_mutex_lock(&f->lock);
		go = bale_feed_wait_room(f, i, 0);	/* sizes listed */
		fed = 0;
		if (go) {
			s = bale_feed_slot(f, i);
			fed = s->state == FEED_EMPTY;
			sample = s->where;
			want = s->size;
		}
		pthread_mutex_unlock(&f->lock);
		if (fed)
			feed_packed_read(f, i, sample, want);
	}
	f->stats.seconds = bale_clock_now() - t0;
	return NULL;
}
