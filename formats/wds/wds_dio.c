/* wds_dio.c - O_DIRECT shard writes on a thread (see wds_dio.h). */
#include "wds_dio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define WDS_DIO_ALIGN 4096	/* the largest logical block in use */

/* Turn O_DIRECT on (@on) or off for @fd. @return 0, or -1 with errno */
static int wds_dio_direct(int fd, int on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? flags | O_DIRECT : flags & ~O_DIRECT);
}

/* pwrite(2) all of @n bytes at @at. A file system that takes O_DIRECT
 * at open but not for these writes (EINVAL) has the file turned back to
 * the page cache, and the write made again. @return 0 or an errno */
static int wds_dio_pwrite(int fd, const unsigned char *p, size_t n,
    uint64_t at)
{
	ssize_t put;

	while (n > 0) {
		put = pwrite(fd, p, n, (off_t)at);
		if (put < 0 && errno == EINTR)
			continue;
		if (put < 0 && errno == EINVAL &&
		    (fcntl(fd, F_GETFL) & O_DIRECT) &&
		    wds_dio_direct(fd, 0) == 0)
			continue;
		if (put <= 0)
			return put < 0 ? errno : EIO;
		p += put;
		n -= (size_t)put;
		at += (uint64_t)put;
	}
	return 0;
}

static void *wds_dio_thread(void *arg)
{
	struct wds_dio *d = arg;
	unsigned i;
	int failed;
	int err;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (!d->queued && !d->closing)
			pthread_cond_wait(&d->changed, &d->lock);
		if (!d->queued)
			break;
		i = d->next;
		failed = d->err;
		pthread_mutex_unlock(&d->lock);
		/* after a failure the rest is dropped: the shard is lost */
		err = failed ? 0 : wds_dio_pwrite(d->fd, d->buf[i], d->len[i],
		    d->at[i]);
		pthread_mutex_lock(&d->lock);
		if (err && !d->err)
			d->err = err;
		d->next = (i + 1) % BALE_WDS_DIO_BUFS;
		d->queued--;
		pthread_cond_broadcast(&d->changed);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static int wds_dio_buffers(struct wds_dio *d)
{
	void *p;
	unsigned i;

	for (i = 0; i < BALE_WDS_DIO_BUFS; i++) {
		if (d->buf[i])
			continue;
		if (posix_memalign(&p, WDS_DIO_ALIGN, BALE_WDS_DIO_BUF) != 0)
			return -1;
		d->buf[i] = p;
	}
	return 0;
}

int bale_wds_dio_start(struct wds_dio *d, int fd)
{
	if (wds_dio_buffers(d) != 0) {
		errno = ENOMEM;
		return -1;
	}
	if (wds_dio_direct(fd, 1) != 0)
		return -1;
	d->fd = fd;
	d->fill = d->next = d->queued = 0;
	d->offset = 0;
	d->err = 0;
	d->closing = 0;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->changed, NULL);
	errno = pthread_create(&d->thread, NULL, wds_dio_thread, d);
	if (errno != 0) {
		pthread_mutex_destroy(&d->lock);
		pthread_cond_destroy(&d->changed);
		wds_dio_direct(fd, 0);
		return -1;
	}
	d->running = 1;
	return 0;
}

uint64_t bale_wds_dio_done(struct wds_dio *d)
{
	uint64_t done;

	pthread_mutex_lock(&d->lock);
	/* the thread leaves next at a buffer until it is written */
	done = d->err ? 0 : d->queued ? d->at[d->next] : d->offset;
	pthread_mutex_unlock(&d->lock);
	return done;
}

int bale_wds_dio_hand(struct wds_dio *d)
{
	int err;

	pthread_mutex_lock(&d->lock);
	d->len[d->fill] = BALE_WDS_DIO_BUF;
	d->at[d->fill] = d->offset;
	d->offset += BALE_WDS_DIO_BUF;
	d->queued++;
	d->fill = (d->fill + 1) % BALE_WDS_DIO_BUFS;
	pthread_cond_broadcast(&d->changed);
	/* the buffer to fill next is free once fewer than all are queued */
	while (d->queued == BALE_WDS_DIO_BUFS)
		pthread_cond_wait(&d->changed, &d->lock);
	err = d->err;
	pthread_mutex_unlock(&d->lock);
	errno = err;
	return err ? -1 : 0;
}

/* Wait until the thread wrote all it was handed, and stop it. */
static int wds_dio_stop(struct wds_dio *d)
{
	int err;

	if (!d->running)
		return 0;
	pthread_mutex_lock(&d->lock);
	d->closing = 1;
	pthread_cond_broadcast(&d->changed);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->changed);
	d->running = 0;
	err = d->err;
	return err;
}

int bale_wds_dio_end(struct wds_dio *d, size_t n)
{
	int err = wds_dio_stop(d);

	/* the tail is not a whole block: through the page cache */
	if (!err && wds_dio_direct(d->fd, 0) != 0)
		err = errno;
	if (!err && n)
		err = wds_dio_pwrite(d->fd, d->buf[d->fill], n, d->offset);
	errno = err;
	return err ? -1 : 0;
}

void bale_wds_dio_release(struct wds_dio *d)
{
	unsigned i;

	if (d->running) {
		pthread_mutex_lock(&d->lock);
		d->err = ECANCELED;	/* what is queued is not written */
		pthread_mutex_unlock(&d->lock);
		wds_dio_stop(d);
	}
	for (i = 0; i < BALE_WDS_DIO_BUFS; i++) {
		free(d->buf[i]);
		d->buf[i] = NULL;
	}
}
