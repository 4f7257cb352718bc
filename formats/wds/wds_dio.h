/* wds_dio.h - a shard written past the page cache: O_DIRECT writes of
 * whole aligned buffers, made by a thread of their own while the writer
 * fills the next buffer.
 *
 * Written through the page cache, a shard's bytes are copied into it by
 * the writer thread, which sets a pack's pace, and once a run's output
 * outgrows the memory the kernel must write back and reclaim those pages
 * on the same CPUs as the readers. At ten million samples (48 GB of
 * shards, 24 GB of memory) the copy was a third of the writer thread's
 * time. A direct write costs the CPU nothing but the request; the thread
 * waits for the disk instead of the writer.
 */
#ifndef WDS_DIO_H
#define WDS_DIO_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define BALE_WDS_DIO_BUFS 3
#define BALE_WDS_DIO_BUF ((size_t)1 << 20)	/* bytes, a multiple of
						 * any block size */

struct wds_dio {
	int fd;
	unsigned char *buf[BALE_WDS_DIO_BUFS];
	size_t len[BALE_WDS_DIO_BUFS];
	uint64_t at[BALE_WDS_DIO_BUFS];	/* file offset of each */
	unsigned fill;		/* the buffer the writer fills */
	unsigned next;		/* the next buffer the thread writes */
	unsigned queued;	/* buffers handed over, not yet written */
	uint64_t offset;	/* of the next buffer handed over */
	int err;		/* errno of a failed write, or 0 */
	int closing;
	int running;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
};

/** Write @fd (empty, opened for writing) with O_DIRECT. @return 0; -1
 *  with errno when it cannot (no memory, no thread, or a file system
 *  that refuses O_DIRECT: write it through the page cache then). */
int bale_wds_dio_start(struct wds_dio *d, int fd);

/** The buffer to fill (BALE_WDS_DIO_BUF bytes). */
static inline unsigned char *bale_wds_dio_buf(struct wds_dio *d)
{
	return d->buf[d->fill];
}

/** The length of the file the thread has written so far (0 after a
 *  failed write): what is in the file, not just handed over. */
uint64_t bale_wds_dio_done(struct wds_dio *d);

/** Hand the buffer over, full, and wait for the next one to be free.
 *  @return 0, or -1 with errno when a write failed */
int bale_wds_dio_hand(struct wds_dio *d);

/** Write what is handed over, then the first @n bytes of the buffer
 *  (not a whole one: through the page cache), and stop the thread.
 *  @return 0, or -1 with errno when a write failed */
int bale_wds_dio_end(struct wds_dio *d, size_t n);

/** Stop the thread (what it has not written is lost) and free the
 *  buffers. Safe on a stopped or never started one. */
void bale_wds_dio_release(struct wds_dio *d);

#endif
