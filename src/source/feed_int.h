/* feed_int.h - what the two producers of the feed share: stream_feed.c
 * (passes over a compressed tar, and the feed itself) and feed_packed.c
 * (the samples of a packed output, read in output order).
 *
 * The feed keeps no table a position: what it holds of the positions
 * [next, next + FEED_RING) sits in a ring, filled from the walk as the
 * window reaches them (at ten million samples, tables a position took
 * 290 MB). Only a compressed tar's ordinals map to positions, 4 bytes an
 * ordinal, since a pass meets them in the archive's order. */
#ifndef BALE_FEED_INT_H
#define BALE_FEED_INT_H

#include "clock.h"
#include "stream_member.h"
#include "stream_feed.h"

#include <pthread.h>

enum feed_state {
	FEED_EMPTY,		/* not read yet */
	FEED_READY,		/* bytes in data */
	FEED_FAILED,		/* data says why (NULL: its stream's why) */
	FEED_TAKEN,		/* or read in place: not the feed's */
};

/* A pass ends early once every position is read (not an error). */
#define FEED_ALL_READ 1

/* Positions the ring holds. A compressed tar read out of order takes
 * about (its members / the ones the window holds) passes, so the ring
 * is larger than a window of small members; 2 MiB. */
#define FEED_RING ((uint64_t)65536)

/* A packed output is read once, in output order, and so are streams
 * whose members the output wants in their order (a Parquet file not
 * shuffled, a tar in torchvision's order): the bytes read ahead only
 * have to keep the workers busy (their own window holds the rest), so
 * the feed holds at most this much of them a reader thread (several
 * images each), and at least FEED_AHEAD_MIN. (8 MiB whatever the
 * threads held 6 MiB more at the peak on 2 cores, for no speed.) */
#define FEED_AHEAD_PER_READER ((size_t)1 << 20)
#define FEED_AHEAD_MIN ((size_t)2 << 20)

#define FEED_NO_STREAM UINT32_MAX

struct bale_reader;

/* One archive the feed passes over: a compressed tar, a Parquet file. */
struct feed_stream {
	int fd;
	bale_stream_pass_fn pass;	/* its kind's */
	int arg;		/* and what its members' method holds */
	uint64_t base;		/* where its ordinals start in index_of */
	uint64_t nord;		/* its highest ordinal fed + 1 */
	uint64_t unread;	/* its positions still FEED_EMPTY */
	int failed;		/* a pass ended: every unread position fails */
	char *why;		/* with this (NULL: no memory for it) */
};

/* A position in the ring. */
struct feed_slot {
	void *data;		/* READY: the bytes; FAILED: why, or NULL */
	uint64_t size;		/* its bytes (0: read in place); guessed
				 * until read, when its size was not
				 * listed */
	uint64_t where;		/* its ordinal in its stream, or its sample
				 * in the packed output */
	uint64_t end;		/* bytes of the positions [0, it] */
	uint32_t stream;	/* its stream, or FEED_NO_STREAM */
	uint32_t crc;		/* READY: as the packed output stored it */
	unsigned char has_crc;
	unsigned char state;
	unsigned char guessed;	/* @size is a guess until read */
};

struct bale_stream_feed {
	struct feed_stream *streams;	/* compressed tars, in the order
					 * the output first wants them */
	size_t nstreams;
	size_t *stream_at_fd;	/* 1 + its stream, by fd; 0: none */
	int packed;		/* a packed output's samples, read by: */
	int in_order;		/* the positions fed come in the streams'
				 * order: one pass, whatever the bound */
	struct bale_reader *reader;
	const struct bale_walk *walk;
	struct bale_order order;	/* the run's */
	uint64_t first;		/* output position of index 0 */
	uint64_t count;		/* positions fed */
	uint32_t *index_of;	/* stream base + ordinal -> 1 + index, 0 if
				 * not fed (indexes are positions of a
				 * run's order: BALE_ORDER_MAX at most) */
	uint64_t nordinals;	/* of all streams */
	struct feed_slot *ring;	/* index i at ring[i % FEED_RING] */
	uint64_t mapped;	/* indexes [next, mapped) are in the ring */
	uint64_t mapped_end;	/* bytes of the indexes [0, mapped) */
	uint64_t start;		/* bytes of the indexes [0, next) */
	size_t bound;
	uint64_t next;		/* lowest index not taken */
	uint64_t unread;	/* indexes still FEED_EMPTY */
	uint64_t held;		/* bytes read and not taken */
	unsigned nfailed;	/* streams failed */
	int missed;		/* this pass left a member for the next */
	int aborted;
	pthread_mutex_t lock;
	pthread_cond_t ready;	/* a member was read (or failed) */
	pthread_cond_t room;	/* a member was taken */
	pthread_t thread;
	int started;
	struct bale_stream_feed_stats stats;
};

/* feed_slots.c */

/* Under the lock: index @i's place in the ring, once the ring reaches
 * it (@i < next + FEED_RING). */
struct feed_slot *bale_feed_slot(struct bale_stream_feed *f, uint64_t i);

/* Hand index @i its @size bytes @data (with the checksum @crc the
 * source stored, if not NULL), or fail it with @why (then @data, if any,
 * is freed); takes the lock. */
void bale_feed_deliver(struct bale_stream_feed *f, uint64_t i,
    unsigned char *data, size_t size, const uint32_t *crc, const char *why);

/* Wait (under the lock) until index @i, of @size bytes, fits, while
 * waiting can help: within the window its planned sizes take, and
 * within the bound where its size was a guess until now (the bytes
 * then held count).
 * @return 1 if it fits, 0 if it must wait for another pass */
int bale_feed_wait_room(struct bale_stream_feed *f, uint64_t i,
    uint64_t size);

/* Under the lock: index @i's state (past the ring: not read yet). */
int bale_feed_state(struct bale_stream_feed *f, uint64_t i);

/* Under the lock: move next past the indexes taken (or read in
 * place). */
void bale_feed_advance(struct bale_stream_feed *f);


/* feed_map.c */

/** Number the compressed tars and map their ordinals to indexes, and
 *  count the indexes fed (every one, from a packed output).
 *  @return BALE_OK or BALE_ENOMEM */
int bale_feed_map(struct bale_stream_feed *f);

/** Under the lock: bring the indexes up to @i (at most next +
 *  FEED_RING - 1) into the ring, from the walk. */
void bale_feed_map_to(struct bale_stream_feed *f, uint64_t i);

/* feed_packed.c */

/** Open the feed's reader on the packed output at @path (@format).
 *  @return BALE_OK, or a failure with @err set */
int bale_feed_packed_open(struct bale_stream_feed *f, const char *path,
    const char *format, struct bale_errbuf *err);

/** The thread: read every index in turn. */
void *bale_feed_packed_main(void *arg);

#endif
