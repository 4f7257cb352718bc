/* fuzz_parquet.c - what a hostile Parquet file could hold. The first
 * byte chooses (by its value mod 3): a footer, decoded with its pages
 * said to end at a bound the next four bytes give, whatever it decodes
 * to holding together (every column chunk inside that bound, every
 * leaf's levels within the schema's nesting, the row groups' rows the
 * file's); a page: its header, its body decompressed by the codec the
 * next byte names (never past the size the header says), then read as
 * level runs of the width the byte after gives; a whole file: every
 * value of every column bale reads, row by row, and the rows as a pack
 * reads them. */
#include "parquet_column.h"
#include "parquet_rows.h"
#include "parquet_meta.h"
#include "parquet_page.h"
#include "scratch.h"

#include "bale_store.h"

#include "bale.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(const struct bale_pq_meta *m, uint64_t data_end)
{
	const struct bale_pq_chunk *c;
	int64_t rows = 0;
	size_t g, i;

	for (i = 0; i < m->nleaves; i++)
		if (m->leaves[i].max_def > BALE_PQ_MAX_LEVEL ||
		    m->leaves[i].max_rep > m->leaves[i].max_def ||
		    !m->leaves[i].path)
			abort();
	for (g = 0; g < m->ngroups; g++) {
		rows += m->groups[g].num_rows;
		for (i = 0; i < m->nleaves; i++) {
			c = &m->groups[g].chunks[i];
			if (c->start > data_end || c->size > data_end -
			    c->start)
				abort();
		}
	}
	if (rows != m->num_rows)
		abort();
}

static void fuzz_footer(const uint8_t *data, size_t size)
{
	struct bale_pq_meta m;
	struct bale_errbuf err;
	uint64_t data_end;

	if (size < 4)
		return;
	data_end = (uint64_t)data[0] << 24 | (uint64_t)data[1] << 16 |
	    (uint64_t)data[2] << 8 | data[3];
	if (bale_pq_meta_decode(&m, data + 4, size - 4, data_end, &err) !=
	    BALE_OK)
		return;
	fuzz_check(&m, data_end);
	bale_pq_meta_release(&m);
}

static void fuzz_page(const uint8_t *data, size_t size)
{
	struct bale_pq_page pg;
	struct bale_pq_runs r;
	struct bale_errbuf err;
	unsigned char *body;
	uint32_t i, v;

	if (size < 2 || bale_pq_page_header(&pg, data + 2, size - 2, &err) !=
	    BALE_OK || pg.header_len + (uint64_t)pg.csize > size - 2 ||
	    pg.size > (1u << 20))
		return;
	body = malloc(pg.size ? pg.size : 1);
	if (!body)
		return;
	if (bale_pq_decompress(data[0] % 8, data + 2 + pg.header_len,
	    pg.csize, body, pg.size, &err) == BALE_OK) {
		bale_pq_runs_init(&r, body, pg.size, data[1] % 33);
		for (i = 0; i < pg.num_values && i < (1u << 20); i++)
			if (bale_pq_runs_next(&r, &v) != 0)
				break;
	}
	free(body);
}

/* Every row of every column of row group @g (rows bounded). */
static void fuzz_group(int fd, const struct bale_pq_meta *m, size_t g)
{
	struct bale_pq_column c;
	struct bale_pq_value v;
	struct bale_errbuf err;
	int64_t r;
	size_t k;

	for (k = 0; k < m->nleaves; k++) {
		if (bale_pq_column_open(&c, fd, &m->leaves[k],
		    &m->groups[g].chunks[k], &err) == BALE_OK)
			for (r = 0; r < m->groups[g].num_rows && r < 100000;
			    r++)
				if (bale_pq_column_next(&c, &v, &err) < 0)
					break;
		bale_pq_column_close(&c);
	}
}

/* The feed's pass: each row's image bytes, as a packing run reads them
 * (a sum of them keeps the reads from being left out). */
static int fuzz_row(void *ctx, struct bale_tar_stream *s,
    const struct bale_stream_member *m)
{
	unsigned *sum = ctx;
	uint64_t i;

	(void)s;
	for (i = 0; i < m->size; i++)
		*sum += m->bytes[i];
	return BALE_OK;
}

static void fuzz_file(const uint8_t *data, size_t size)
{
	struct bale_pq_columns c;
	struct bale_pq_meta m;
	struct bale_errbuf err;
	unsigned sum = 0;
	uint64_t n, met;
	size_t g;
	int fd;

	fuzz_scratch_put("x.parquet", data, size);
	fd = bale_store_fd_open(fuzz_scratch_path("x.parquet"), &n, &err);
	if (fd < 0)
		return;
	if (bale_pq_meta_read(&m, fd, n, &err) == BALE_OK) {
		for (g = 0; g < m.ngroups; g++)
			fuzz_group(fd, &m, g);
		if (bale_pq_columns_find(&m, NULL, NULL, &c, &err) == BALE_OK)
			(void)bale_pq_stream_pass(fd, (int)c.image, fuzz_row,
			    NULL, &sum, &met, &err);
		bale_pq_meta_release(&m);
	}
	bale_store_fd_close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] % 3 == 1)
		fuzz_page(data + 1, size - 1);
	else if (data[0] % 3 == 2)
		fuzz_file(data + 1, size - 1);
	else
		fuzz_footer(data + 1, size - 1);
	return 0;
}
