/* test_parquet_page.c - the pages of the committed Parquet fixtures
 * (three writers' ways: Snappy pages v1, ZSTD v1, gzip v2): every column
 * chunk walks page by page to its end, each body inflates to the size
 * its header says, the data pages hold the chunk's values, and the
 * images column gives 40 JPEG files (SOI to EOI) behind their levels.
 * Level runs as the format's own example packs them; bodies that lie
 * about their size (a bomb: refused before room is made for it),
 * damaged data, codecs bale does not undo and headers claiming too
 * much are refused. */
#include "check.h"
#include "parquet_meta.h"
#include "parquet_page.h"

#include "bale.h"
#include "bale_store.h"
#include "le.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static const char *fixtures;

struct file {
	unsigned char *data;
	size_t size;
	struct bale_pq_meta m;
};

static void load(struct file *f, const char *name)
{
	char *path = bale_strfmt("%s/%s", fixtures, name);
	struct bale_errbuf err;
	uint64_t size;
	int fd = bale_store_fd_open(path, &size, &err);

	CHECK(fd >= 0);
	CHECK_EQ(BALE_OK, bale_pq_meta_read(&f->m, fd, size, &err));
	bale_store_fd_close(fd);
	f->data = (unsigned char *)bale_file_read_all(path, &f->size);
	CHECK(f->data != NULL);
	free(path);
}

/* A JPEG file from start to end. */
static int is_jpeg(const unsigned char *p, uint32_t n)
{
	return n > 4 && p[0] == 0xff && p[1] == 0xd8 && p[n - 2] == 0xff &&
	    p[n - 1] == 0xd9;
}

/* The PLAIN images of a data page's values (after its levels), as many
 * as its levels say are there: each a JPEG. @return how many */
static int page_images(const unsigned char *body, size_t n,
    const struct bale_pq_page *pg, int v2, int max_def)
{
	struct bale_pq_runs r;
	const unsigned char *p = body, *end = body + n;
	uint32_t i, def, len, present = 0;
	int jpegs = 0;

	if (v2) {
		bale_pq_runs_init(&r, p, pg->def_len, bale_pq_bit_width(
		    (uint64_t)max_def));
		p += pg->def_len + pg->rep_len;
	} else {
		len = bale_le32(p);
		bale_pq_runs_init(&r, p + 4, len, bale_pq_bit_width(
		    (uint64_t)max_def));
		p += 4 + len;
	}
	for (i = 0; i < pg->num_values; i++)
		if (bale_pq_runs_next(&r, &def) == 0 &&
		    def == (uint32_t)max_def)
			present++;
	for (i = 0; i < present && end - p >= 4; i++) {
		len = bale_le32(p);
		if (len > (size_t)(end - p - 4))
			break;
		jpegs += is_jpeg(p + 4, len);
		p += 4 + len;
	}
	return jpegs;
}

/* Walk every chunk of @name page by page; count the images of the
 * PLAIN image column's pages. */
static void test_walk(const char *name)
{
	struct file f;
	struct bale_errbuf err;
	struct bale_pq_page pg;
	const struct bale_pq_chunk *c;
	long img;
	uint64_t at, end, values;
	unsigned char *body;
	size_t g, k, levels;
	int jpegs = 0, plain = 1;

	load(&f, name);
	img = bale_pq_meta_leaf(&f.m, "image.bytes");
	for (g = 0; g < f.m.ngroups; g++)
		for (k = 0; k < f.m.nleaves; k++) {
			c = &f.m.groups[g].chunks[k];
			at = c->start;
			end = c->start + c->size;
			values = 0;
			while (at < end) {
				CHECK_EQ(BALE_OK, bale_pq_page_header(&pg,
				    f.data + at, (size_t)(end - at), &err));
				CHECK(pg.header_len + (uint64_t)pg.csize <=
				    end - at);
				if (pg.header_len + (uint64_t)pg.csize >
				    end - at)
					break;
				body = malloc(pg.size ? pg.size : 1);
				levels = pg.type == BALE_PQ_DATA_PAGE_V2 ?
				    pg.def_len + pg.rep_len : 0;
				memcpy(body, f.data + at + pg.header_len,
				    levels);
				CHECK_EQ(BALE_OK, pg.type ==
				    BALE_PQ_DATA_PAGE_V2 && !pg.compressed ?
				    bale_pq_decompress(0,
				    f.data + at + pg.header_len + levels,
				    pg.csize - levels, body + levels,
				    pg.size - levels, &err) :
				    bale_pq_decompress(c->codec, f.data + at +
				    pg.header_len + levels, pg.csize - levels,
				    body + levels, pg.size - levels, &err));
				if (pg.type != BALE_PQ_DICTIONARY_PAGE)
					values += pg.num_values;
				if ((long)k == img && pg.type !=
				    BALE_PQ_DICTIONARY_PAGE) {
					plain &= pg.encoding == BALE_PQ_PLAIN;
					jpegs += page_images(body, pg.size, &pg,
					    pg.type == BALE_PQ_DATA_PAGE_V2, 2);
				}
				free(body);
				at += pg.header_len + pg.csize;
			}
			CHECK_EQ(end, at);
			CHECK_EQ(c->num_values, values);
		}
	if (plain)	/* DuckDB's v2 stores them DELTA_LENGTH */
		CHECK_EQ(40, jpegs);
	free(f.data);
	bale_pq_meta_release(&f.m);
}

/* The format's own example: 0..7 bit-packed at width 3, then a run. */
static void test_runs(void)
{
	static const unsigned char packed[] = { 0x03, 0x88, 0xc6, 0xfa,
	    0x0a, 0x03 };
	struct bale_pq_runs r;
	uint32_t v, i;

	bale_pq_runs_init(&r, packed, sizeof(packed), 3);
	for (i = 0; i < 8; i++) {
		CHECK_EQ(0, bale_pq_runs_next(&r, &v));
		CHECK_EQ(i, v);
	}
	for (i = 0; i < 5; i++) {
		CHECK_EQ(0, bale_pq_runs_next(&r, &v));
		CHECK_EQ(3, v);
	}
	CHECK_EQ(-1, bale_pq_runs_next(&r, &v));
	/* a packed run longer than its bytes; a value wider than its width */
	bale_pq_runs_init(&r, packed, 3, 3);
	CHECK_EQ(-1, bale_pq_runs_next(&r, &v));
	bale_pq_runs_init(&r, (const unsigned char[]){ 0x02, 0x09 }, 2, 3);
	CHECK_EQ(-1, bale_pq_runs_next(&r, &v));
	CHECK_EQ(2, bale_pq_bit_width(2));
	CHECK_EQ(0, bale_pq_bit_width(0));
}

/* Bodies that lie: a small claim for a large inflate (a bomb), damage,
 * a codec not read, a header claiming over 1 GiB. */
static void test_lies(void)
{
	static unsigned char zeros[1 << 20], out[4096];
	unsigned char z[8192], big_header[] = { 0x15, 0x00, 0x15, 0x80, 0x80,
	    0x80, 0x80, 0x10, 0x15, 0x02, 0x00 };
	struct bale_pq_page pg;
	struct bale_errbuf err;
	uLongf zn = sizeof(z);
	size_t n;

	CHECK_EQ(Z_OK, compress2(z, &zn, zeros, sizeof(zeros), 9));
	/* asked before room is made: 1 MiB from a few bytes of deflate is
	 * possible, 1 GiB is not; stored bytes are their own size */
	CHECK_EQ(1, bale_pq_decompress_fits(BALE_PQ_GZIP, z, zn,
	    sizeof(zeros)));
	CHECK_EQ(0, bale_pq_decompress_fits(BALE_PQ_GZIP, z, zn, 1u << 30));
	CHECK_EQ(0, bale_pq_decompress_fits(BALE_PQ_UNCOMPRESSED, z, 10, 11));
	CHECK_EQ(BALE_EINPUT, bale_pq_decompress(BALE_PQ_GZIP, z, zn, out,
	    sizeof(out), &err));
	CHECK(strstr(err.msg, "does not hold") != NULL);
	n = ZSTD_compress(z, sizeof(z), zeros, sizeof(zeros), 3);
	CHECK(!ZSTD_isError(n));
	CHECK_EQ(BALE_EINPUT, bale_pq_decompress(BALE_PQ_ZSTD, z, n, out,
	    sizeof(out), &err));
	z[n / 2] ^= 0xff;
	CHECK_EQ(BALE_EINPUT, bale_pq_decompress(BALE_PQ_SNAPPY, z, n, out,
	    sizeof(out), &err));
	CHECK_EQ(BALE_ENOTSUP, bale_pq_decompress(BALE_PQ_BROTLI, z, n, out,
	    sizeof(out), &err));
	CHECK_EQ(BALE_EINPUT, bale_pq_decompress(BALE_PQ_UNCOMPRESSED, z, 10,
	    out, 11, &err));
	/* type 0, 2^31 bytes uncompressed, 1 stored */
	CHECK_EQ(BALE_EINPUT, bale_pq_page_header(&pg, big_header,
	    sizeof(big_header), &err));
	CHECK_EQ(BALE_EINPUT, bale_pq_page_header(&pg, big_header, 4, &err));
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_parquet_page FIXTURES\n");
		return 2;
	}
	fixtures = argv[1];
	test_walk("hf-snappy.parquet");
	test_walk("duckdb-zstd.parquet");
	test_walk("duckdb-gzip-v2.parquet");
	test_runs();
	test_lies();
	return CHECK_DONE();
}
