/* parquet_floor.c - what packing Parquet files costs at the least, with
 * bale's own reader (pages read and decompressed, the image column
 * only), for bench/parquet_pack.sh:
 *
 *   parquet_floor FILE.parquet...
 *	the images read and each touched, nothing else done with them
 *	(no copy, no checksum, no write): a pack's reading alone;
 *   parquet_floor -w OUT.tar FILE.parquet...
 *	the least pack on two threads: one reads the images and copies
 *	each into a reused 4 MiB ring, the other checksums each and
 *	writes it behind a tar header, a megabyte of them a write (no
 *	workers, no allocation a row, no index, no journal).
 *
 * Prints the seconds taken. Built by bench/parquet_pack.sh against
 * build/libbale_core.a. */
#include "bale.h"
#include "bale_store.h"
#include "parquet_meta.h"
#include "parquet_rows.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define RING ((size_t)4 << 20)
#define SKIP 0xffffffffu	/* a record's length: go to the ring's start */
#define GATHER 21		/* images a write takes at most, */
#define GATHERED ((size_t)1 << 20)	/* and bytes */

static volatile unsigned floor_sink;	/* so no read is optimised away */

/* The ring between the two threads: records of a 4-byte length and the
 * bytes, never wrapping. */
static struct {
	unsigned char data[RING];
	size_t head, tail;	/* bytes put, taken (never wound back) */
	int done;
	pthread_mutex_t lock;
	pthread_cond_t moved;
} ring = { .lock = PTHREAD_MUTEX_INITIALIZER,
	.moved = PTHREAD_COND_INITIALIZER };

static double floor_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Move the ring's head or tail (@end) on by @n, waking the other. */
static void ring_move(size_t *end, size_t n)
{
	pthread_mutex_lock(&ring.lock);
	*end += n;
	pthread_cond_broadcast(&ring.moved);
	pthread_mutex_unlock(&ring.lock);
}

/* Put @len bytes at @p into the ring, once there is room. */
static void ring_put(const unsigned char *p, uint32_t len)
{
	size_t need = 4 + (size_t)len, at, skip;

	pthread_mutex_lock(&ring.lock);
	for (;;) {
		at = ring.head % RING;
		skip = at + need > RING ? RING - at : 0;
		if (ring.head + skip + need - ring.tail <= RING)
			break;
		pthread_cond_wait(&ring.moved, &ring.lock);
	}
	pthread_mutex_unlock(&ring.lock);
	if (skip >= 4)
		memset(ring.data + at, 0xff, 4);
	at = skip ? 0 : at;
	memcpy(ring.data + at, &len, 4);
	memcpy(ring.data + at + 4, p, len);
	ring_move(&ring.head, skip + need);
}

/* The next record from the writer's cursor *@cur (at or past the
 * tail), waiting for one; 0 at the end. */
static int ring_take(size_t *cur, size_t *at, uint32_t *len)
{
	for (;;) {
		pthread_mutex_lock(&ring.lock);
		while (ring.head == *cur && !ring.done)
			pthread_cond_wait(&ring.moved, &ring.lock);
		if (ring.head == *cur) {
			pthread_mutex_unlock(&ring.lock);
			return 0;
		}
		pthread_mutex_unlock(&ring.lock);
		*at = *cur % RING;
		if (RING - *at >= 4)
			memcpy(len, ring.data + *at, 4);
		if (RING - *at >= 4 && *len != SKIP)
			return 1;
		*cur += RING - *at;
	}
}

/* A ustar header for member @n of @len bytes into @h. */
static void floor_header(unsigned char *h, unsigned n, uint32_t len)
{
	unsigned sum = 0;
	int i;

	memset(h, 0, 512);
	snprintf((char *)h, 100, "%08u.jpg", n);
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	snprintf((char *)h + 124, 12, "%011o", (unsigned)len);
	memcpy(h + 136, "00000000000", 12);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

/* Write the @n pieces gathered at @iov, then let the ring's tail go
 * to @cur. */
static void floor_write(int fd, struct iovec *iov, int n, size_t cur)
{
	if (n && writev(fd, iov, n) < 0)
		perror("parquet_floor: write");
	ring_move(&ring.tail, cur - ring.tail);
}

/* The writing thread: each record checksummed and written behind a tar
 * header, padded to 512 bytes, a megabyte of them in one writev (as
 * bale's wds writer gathers them). */
static void *floor_writer(void *arg)
{
	static const unsigned char zeros[512];
	static unsigned char headers[GATHER][512];
	struct iovec iov[3 * GATHER];
	int fd = *(const int *)arg;
	size_t at, cur = 0, bytes = 0;
	unsigned n = 0;
	uint32_t len;
	int k = 0;

	while (ring_take(&cur, &at, &len)) {
		floor_sink += bale_crc32(ring.data + at + 4, len);
		floor_header(headers[k / 3], n++, len);
		iov[k] = (struct iovec){ headers[k / 3], 512 };
		iov[k + 1] = (struct iovec){ ring.data + at + 4, len };
		iov[k + 2] = (struct iovec){ (void *)zeros,
		    (512 - len % 512) % 512 };
		k += 3;
		cur += 4 + (size_t)len;
		bytes += len;
		if (k == 3 * GATHER || bytes >= GATHERED) {
			floor_write(fd, iov, k, cur);
			k = 0;
			bytes = 0;
		}
	}
	floor_write(fd, iov, k, cur);
	return NULL;
}

/* Each image of file @path to @take (NULL: touched only). */
static int floor_file(const char *path,
    void (*take)(const unsigned char *, uint32_t))
{
	struct bale_pq_columns c;
	struct bale_pq_rows r;
	struct bale_pq_meta m;
	struct bale_pq_row row;
	struct bale_errbuf err;
	uint64_t size;
	int fd = bale_store_fd_open(path, &size, &err);
	int rc;

	if (fd < 0 || bale_pq_meta_read(&m, fd, size, &err) != BALE_OK ||
	    bale_pq_columns_find(&m, NULL, NULL, &c, &err) != BALE_OK) {
		fprintf(stderr, "parquet_floor: %s: %s\n", path, err.msg);
		return -1;
	}
	c.path = c.label = -1;	/* the images alone */
	bale_pq_rows_open(&r, fd, &m, &c);
	while ((rc = bale_pq_rows_next(&r, &row, &err)) > 0) {
		if (take)
			take(row.bytes, row.len);
		else
			floor_sink += row.len ? row.bytes[row.len - 1] : 0;
	}
	if (rc < 0)
		fprintf(stderr, "parquet_floor: %s: %s\n", path, err.msg);
	bale_pq_rows_close(&r);
	bale_pq_meta_release(&m);
	bale_store_fd_close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	double t0 = floor_now();
	int piped = argc > 2 && strcmp(argv[1], "-w") == 0;
	int out = piped ? open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644) :
	    -1;
	pthread_t writer;
	int i, rc = 0;

	if (piped && (out < 0 || pthread_create(&writer, NULL, floor_writer,
	    &out) != 0)) {
		perror("parquet_floor");
		return 1;
	}
	for (i = piped ? 3 : 1; rc == 0 && i < argc; i++)
		rc = floor_file(argv[i], piped ? ring_put : NULL);
	if (piped) {
		pthread_mutex_lock(&ring.lock);
		ring.done = 1;
		pthread_cond_broadcast(&ring.moved);
		pthread_mutex_unlock(&ring.lock);
		pthread_join(writer, NULL);
		close(out);
	}
	printf("%.3f\n", floor_now() - t0);
	return rc != 0;
}
