/* parquet_floor.c - what reading the images out of Parquet files costs
 * alone: bale's own reader (pages read and decompressed, the image
 * column only), each row's bytes touched and nothing else done with
 * them (no copy, no checksum, no write). A pack must do this and write
 * the same bytes, so this time is the floor of a pack on one core
 * beside its writer (bench/parquet_pack.sh).
 *
 *   parquet_floor FILE.parquet...	prints "SECONDS ROWS BYTES"
 *
 * Built by bench/parquet_pack.sh against build/libbale_core.a. */
#include "bale_store.h"
#include "parquet_meta.h"
#include "parquet_rows.h"

#include <stdio.h>
#include <time.h>

static volatile unsigned floor_sink;	/* so no read is optimised away */

static double floor_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Read every image of file @path, adding to *@rows and *@bytes. */
static int floor_file(const char *path, uint64_t *rows, uint64_t *bytes)
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
		(*rows)++;
		*bytes += row.len;
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
	uint64_t rows = 0, bytes = 0;
	int i;

	for (i = 1; i < argc; i++)
		if (floor_file(argv[i], &rows, &bytes) != 0)
			return 1;
	printf("%.3f %llu %llu\n", floor_now() - t0, (unsigned long long)rows,
	    (unsigned long long)bytes);
	return 0;
}
