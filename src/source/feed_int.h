/* feed_int.h - what the two producers of the feed share: stream_feed.c
 * (passes over a compressed tar, and the feed itself) and feed_packed.c
 * (the samples of a packed output, read in output order). */
#ifndef BALE_FEED_INT_H
#define BALE_FEED_INT_H

#include "stream_feed.h"

#include <pthread.h>

enum feed_state {
	FEED_EMPTY,		/* not read yet */
	FEED_READY,		/* bytes in slot[] */
	FEED_FAILED,		/* slot[] says why */
	FEED_TAKEN,
};

/* A pass ends early once every position is read (not an error). */
#define FEED_ALL_READ 1

struct bale_reader;

/* One compressed tar the feed passes over. */
struct feed_stream {
	int fd;
	uint64_t base;		/* where its ordinals start in index_of */
	uint64_t nord;		/* its highest ordinal fed + 1 */
};

struct bale_stream_feed {
	struct feed_stream *streams;	/* compressed tars, in the order
					 * the output first wants them */
	size_t nstreams;
	struct bale_reader *reader;	/* or a packed output's */
	uint64_t *sample_of;	/* packed: index -> sample there; else NULL */
	uint64_t first;		/* output position of index 0 */
	uint64_t count;		/* positions fed */
	uint32_t *index_of;	/* stream base + ordinal -> 1 + index, 0 if
				 * not fed (indexes are positions of a
				 * run's order: BALE_ORDER_MAX at most) */
	uint64_t nordinals;	/* of all streams */
	uint64_t *prefix;	/* bytes of indexes [0, i) */
	size_t bound;
	void **slot;		/* READY: the bytes; FAILED: why (a
				 * string); else NULL */
	unsigned char *state;
	uint64_t next;		/* lowest index not taken */
	uint64_t unread;	/* indexes still FEED_EMPTY */
	uint64_t held;		/* bytes read and not taken */
	int missed;		/* this pass left a member for the next */
	int aborted;
	pthread_mutex_t lock;
	pthread_cond_t ready;	/* a member was read (or failed) */
	pthread_cond_t room;	/* a member was taken */
	pthread_t thread;
	int started;
	struct bale_stream_feed_stats stats;
};

/* Under the lock: record how index @i ended; @why is copied. */
void bale_feed_settle(struct bale_stream_feed *f, uint64_t i,
    unsigned char *data, const char *why);

/* Hand index @i its bytes @data, or fail it with @why (then @data, if
 * any, is freed); takes the lock. */
void bale_feed_deliver(struct bale_stream_feed *f, uint64_t i,
    unsigned char *data, const char *why);

/* Wait (under the lock) until index @i fits, while waiting can help.
 * @return 1 if it fits, 0 if it must wait for another pass */
int bale_feed_wait_room(struct bale_stream_feed *f, uint64_t i);

double bale_feed_now(void);

/* feed_map.c */

/** Fill sample_of (packed) or streams and index_of, the prefix sums and
 *  the positions not fed (taken from the start).
 *  @return BALE_OK or BALE_ENOMEM */
int bale_feed_map(struct bale_stream_feed *f, const struct bale_walk *w,
    const bale_order_t *order);

/* feed_packed.c */

/** Open the feed's reader on the packed output at @path (@format).
 *  @return BALE_OK, or a failure with @err set */
int bale_feed_packed_open(struct bale_stream_feed *f, const char *path,
    const char *format, struct bale_errbuf *err);

/** The thread: read every index in turn. */
void *bale_feed_packed_main(void *arg);

#endif
