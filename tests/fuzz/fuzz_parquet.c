/* fuzz_parquet.c - what a hostile Parquet file could hold. The first
 * byte chooses (by its value mod 3): a footer, decoded with its pages
 * said to end at a bound the next four bytes give, whatever it decodes
 * to holding together (every column chunk inside that bound, every
 * leaf's levels within the schema's nesting, the row groups' rows the
 * file's); a page: its header, its body decompressed by the codec the
 * next byte names (never past the size the header says), then read as
 * level runs of the width the byte after gives, and a Snappy body also
 * read where it lies (snappy_view.h), which must agree with the
 * decompression: the same bytes, or refused alike; a whole file: every
 * value of every column bale reads, row by row, byte arrays also for
 * their lengths alone as a listing reads them (the same rows, nulls and
 * lengths, and the same bytes copied out where they lie), and the rows
 * as a pack reads them. */
#include "parquet_column.h"
#include "parquet_rows.h"
#include "parquet_meta.h"
#include "parquet_page.h"
#include "scratch.h"
#include "snappy_view.h"

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

/* A Snappy body read where it lies, against its decompression (@ok,
 * into @body): the same bytes, or refused alike. */
static void fuzz_view(const unsigned char *src, size_t n,
    const unsigned char *body, size_t size, int ok)
{
	struct bale_snappy_view v;
	unsigned char *out = malloc(size ? size : 1);
	int rc;

	memset(&v, 0, sizeof(v));
	rc = bale_snappy_view_open(&v, src, n, n);
	if (rc == BALE_SNAPPY_VIEW_NOMEM || !out)
		goto done;
	if ((rc == 0 && v.size == size) != ok)
		abort();
	if (ok && bale_snappy_view_read(&v, 0, out, size) == 0 &&
	    memcmp(out, body, size) != 0)
		abort();
done:
	bale_snappy_view_release(&v);
	free(out);
}

static void fuzz_page(const uint8_t *data, size_t size)
{
	struct bale_pq_page pg;
	struct bale_pq_runs r;
	struct bale_errbuf err;
	unsigned char *body;
	uint32_t i, v;
	int ok;

	if (size < 2 || bale_pq_page_header(&pg, data + 2, size - 2, &err) !=
	    BALE_OK || pg.header_len + (uint64_t)pg.csize > size - 2 ||
	    pg.size > (1u << 20))
		return;
	body = malloc(pg.size ? pg.size : 1);
	if (!body)
		return;
	ok = bale_pq_decompress(data[0] % 8, data + 2 + pg.header_len,
	    pg.csize, body, pg.size, &err) == BALE_OK;
	if (data[0] % 8 == BALE_PQ_SNAPPY)
		fuzz_view(data + 2 + pg.header_len, pg.csize, body, pg.size,
		    ok);
	if (ok) {
		bale_pq_runs_init(&r, body, pg.size, data[1] % 33);
		for (i = 0; i < pg.num_values && i < (1u << 20); i++)
			if (bale_pq_runs_next(&r, &v) != 0)
				break;
	}
	free(body);
}

/* Value @w of the lengths-only read @s, copied out, is @v's bytes (a
 * page found damaged only now is said, not compared). */
static void fuzz_same_bytes(struct bale_pq_column *s,
    const struct bale_pq_value *w, const struct bale_pq_value *v)
{
	unsigned char *buf = malloc(w->len ? w->len : 1);
	struct bale_errbuf err;

	if (buf && bale_pq_column_copy(s, w, buf, &err) == BALE_OK &&
	    w->len && memcmp(buf, v->bytes, w->len) != 0)
		abort();
	free(buf);
}

/* Every row of column @k of row group @g (rows bounded), and again for
 * the lengths alone: a value there, a null there, the same length. */
static void fuzz_column(int fd, const struct bale_pq_meta *m, size_t g,
    size_t k)
{
	struct bale_pq_column c, s;
	struct bale_pq_value v, w;
	struct bale_errbuf err;
	int rc = BALE_OK, rs = BALE_OK;
	int64_t r;

	memset(&c, 0, sizeof(c));
	memset(&s, 0, sizeof(s));
	if (bale_pq_column_open(&c, fd, &m->leaves[k], &m->groups[g].chunks[k],
	    &err) != BALE_OK || bale_pq_column_open(&s, fd, &m->leaves[k],
	    &m->groups[g].chunks[k], &err) != BALE_OK)
		goto done;
	bale_pq_column_sizes_only(&s);
	for (r = 0; r < m->groups[g].num_rows && r < 100000; r++) {
		rc = bale_pq_column_next(&c, &v, &err);
		rs = bale_pq_column_next(&s, &w, &err);
		if (rc < 0 || rs < 0)
			break;
		if (rc != rs || (rc == 1 && v.len != w.len))
			abort();
		if (rc == 1 && m->leaves[k].type == BALE_PQ_BYTE_ARRAY)
			fuzz_same_bytes(&s, &w, &v);
	}
	/* a page refused whole by one, value by value by the other, may
	 * fail at another row: only a value both gave must agree */
done:
	bale_pq_column_close(&c);
	bale_pq_column_close(&s);
}

/* Every row of every column of row group @g (rows bounded). */
static void fuzz_group(int fd, const struct bale_pq_meta *m, size_t g)
{
	size_t k;

	for (k = 0; k < m->nleaves; k++)
		fuzz_column(fd, m, g, k);
}

/* The feed's pass: each row's image bytes, as a packing run reads them
 * (a sum of them keeps the reads from being left out). */
static int fuzz_row(void *ctx, struct bale_tar_stream *s,
    const struct bale_stream_member *m)
{
	unsigned *sum = ctx;
	unsigned char *buf = malloc(m->size ? m->size : 1);
	const unsigned char *p = m->bytes;
	struct bale_errbuf err;
	uint64_t i;

	(void)s;
	if (!buf)
		return BALE_ENOMEM;
	if (m->copy && m->copy(m->copy_arg, buf, &err) != BALE_OK)
		m = NULL;	/* a damaged page, said */
	else if (m->copy)
		p = buf;
	for (i = 0; m && i < m->size; i++)
		*sum += p[i];
	free(buf);
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
