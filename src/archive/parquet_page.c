/* parquet_page.c - page headers, bodies and level runs, checked
 * (parquet_page.h). Field ids are parquet.thrift's. */
#include "parquet_page.h"

#include "bale.h"
#include "parquet_meta.h"
#include "thrift_compact.h"

#include <snappy-c.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* ---- the header ------------------------------------------------------- */

/* A 32-bit count or size field, not negative. */
static int page_u32(struct bale_thrift *t, uint8_t type, uint32_t *out)
{
	int64_t v;

	if (bale_thrift_int(t, type, &v) != 0)
		return -1;
	if (v < 0 || v > INT32_MAX)
		return bale_thrift_fail(t, "a page size or count out of range");
	*out = (uint32_t)v;
	return 0;
}

/* A page header being read. */
struct page_read {
	struct bale_thrift *t;
	struct bale_pq_page *pg;
	int v2;			/* in its DataPageHeaderV2 */
	int subs;		/* page-kind headers met */
};

/* DataPageHeader, DictionaryPageHeader or DataPageHeaderV2: the fields
 * bale needs share their ids where they overlap (1: values, 2 or 4:
 * encoding). */
static int page_sub_field(void *ctx, int16_t id, uint8_t type)
{
	struct page_read *k = ctx;
	struct bale_pq_page *pg = k->pg;
	uint32_t u = 0;
	int64_t b = 0;
	int rc;

	if (id == 1)
		return page_u32(k->t, type, &pg->num_values);
	if ((id == 2 && !k->v2) || (id == 4 && k->v2)) {
		rc = page_u32(k->t, type, &u);
		pg->encoding = (int)u;
		return rc;
	}
	if (id == 5 && k->v2)
		return page_u32(k->t, type, &pg->def_len);
	if (id == 6 && k->v2)
		return page_u32(k->t, type, &pg->rep_len);
	if (id == 7 && k->v2) {
		rc = bale_thrift_int(k->t, type, &b);
		pg->compressed = b != 0;
		return rc;
	}
	return bale_thrift_skip(k->t, type);
}

static int page_field(void *ctx, int16_t id, uint8_t type)
{
	struct page_read *k = ctx;
	struct bale_pq_page *pg = k->pg;
	uint32_t u = 0;
	int rc;

	if (id == 1) {
		rc = page_u32(k->t, type, &u);
		pg->type = (int)u;
		return rc;
	}
	if (id == 2)
		return page_u32(k->t, type, &pg->size);
	if (id == 3)
		return page_u32(k->t, type, &pg->csize);
	if ((id == 5 || id == 7 || id == 8) && type == BALE_THRIFT_STRUCT &&
	    !k->subs++) {
		k->v2 = id == 8;
		return bale_thrift_struct(k->t, page_sub_field, k);
	}
	return bale_thrift_skip(k->t, type);
}

int bale_pq_page_header(struct bale_pq_page *pg, const void *p, size_t n,
    struct bale_errbuf *err)
{
	struct bale_thrift t;
	struct page_read k = { &t, pg, 0, 0 };

	memset(pg, 0, sizeof(*pg));
	pg->type = -1;
	pg->compressed = 1;
	bale_thrift_init(&t, p, n);
	if (bale_thrift_struct(&t, page_field, &k) != 0)
		return bale_errbuf_set(err, BALE_EINPUT, "damaged Parquet page "
		    "header: %s", t.why ? t.why : "");
	pg->header_len = (uint32_t)bale_thrift_used(&t, p);
	if (pg->type < BALE_PQ_DATA_PAGE || pg->type > BALE_PQ_DATA_PAGE_V2)
		return bale_errbuf_set(err, BALE_EINPUT, "damaged Parquet page "
		    "header: no page type");
	if (pg->size > BALE_PQ_PAGE_MAX)
		return bale_errbuf_set(err, BALE_EINPUT, "a Parquet page "
		    "claims %u bytes (over 1 GiB: a bomb?)", pg->size);
	if (pg->type == BALE_PQ_DATA_PAGE_V2 &&
	    ((uint64_t)pg->def_len + pg->rep_len > pg->csize ||
	    (uint64_t)pg->def_len + pg->rep_len > pg->size))
		return bale_errbuf_set(err, BALE_EINPUT, "damaged Parquet page "
		    "header: its levels are longer than the page");
	return BALE_OK;
}

/* ---- bodies ------------------------------------------------------------ */

static int page_wrong_size(struct bale_errbuf *err, const char *codec)
{
	return bale_errbuf_set(err, BALE_EINPUT, "a %s Parquet page does not "
	    "hold the bytes its header says", codec);
}

static int page_snappy(const void *src, size_t csize, void *dst,
    size_t size, struct bale_errbuf *err)
{
	size_t len = 0;

	if (snappy_uncompressed_length(src, csize, &len) != SNAPPY_OK ||
	    len != size)
		return page_wrong_size(err, "Snappy");
	if (snappy_uncompress(src, csize, dst, &len) != SNAPPY_OK ||
	    len != size)
		return bale_errbuf_set(err, BALE_EINPUT, "damaged Snappy data "
		    "in a Parquet page");
	return BALE_OK;
}

static int page_gzip(const void *src, size_t csize, void *dst,
    size_t size, struct bale_errbuf *err)
{
	z_stream z;
	int zrc;

	memset(&z, 0, sizeof(z));
	if (csize > UINT32_MAX || size > UINT32_MAX ||
	    inflateInit2(&z, 15 + 32) != Z_OK)	/* gzip or zlib header */
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	z.next_in = (unsigned char *)(uintptr_t)src;
	z.avail_in = (uInt)csize;
	z.next_out = dst;
	z.avail_out = (uInt)size;
	zrc = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (zrc != Z_STREAM_END)
		return zrc == Z_BUF_ERROR && z.avail_out == 0 ?
		    page_wrong_size(err, "gzip") : bale_errbuf_set(err,
		    BALE_EINPUT, "damaged gzip data in a Parquet page");
	return z.avail_out == 0 ? BALE_OK : page_wrong_size(err, "gzip");
}

static int page_zstd(const void *src, size_t csize, void *dst,
    size_t size, struct bale_errbuf *err)
{
	unsigned long long want = ZSTD_getFrameContentSize(src, csize);
	size_t got;

	if (want == ZSTD_CONTENTSIZE_ERROR)
		return bale_errbuf_set(err, BALE_EINPUT, "damaged ZSTD data in "
		    "a Parquet page");
	if (want != ZSTD_CONTENTSIZE_UNKNOWN && want != size)
		return page_wrong_size(err, "ZSTD");
	/* never more than @size: a frame that says less is caught above */
	got = ZSTD_decompress(dst, size, src, csize);
	if (ZSTD_isError(got))
		return bale_errbuf_set(err, BALE_EINPUT, "damaged ZSTD data in "
		    "a Parquet page: %s", ZSTD_getErrorName(got));
	return got == size ? BALE_OK : page_wrong_size(err, "ZSTD");
}

/* The most deflate can give from a byte. */
#define PAGE_DEFLATE_RATIO 1032

int bale_pq_decompress_fits(int codec, const void *src, size_t csize,
    size_t size)
{
	unsigned long long zs;
	size_t len = 0;

	switch (codec) {
	case BALE_PQ_UNCOMPRESSED:
		return csize == size;
	case BALE_PQ_SNAPPY:
		return snappy_uncompressed_length(src, csize, &len) ==
		    SNAPPY_OK && len == size;
	case BALE_PQ_GZIP:
		return size / PAGE_DEFLATE_RATIO <= csize;
	case BALE_PQ_ZSTD:
		zs = ZSTD_getFrameContentSize(src, csize);
		return zs == size || (zs == ZSTD_CONTENTSIZE_UNKNOWN &&
		    size / PAGE_DEFLATE_RATIO <= csize);
	default:
		return 1;	/* refused when it is undone */
	}
}

int bale_pq_decompress(int codec, const void *src, size_t csize, void *dst,
    size_t size, struct bale_errbuf *err)
{
	switch (codec) {
	case BALE_PQ_UNCOMPRESSED:
		if (csize != size)
			return page_wrong_size(err, "stored");
		if (size)
			memcpy(dst, src, size);
		return BALE_OK;
	case BALE_PQ_SNAPPY:
		return page_snappy(src, csize, dst, size, err);
	case BALE_PQ_GZIP:
		return page_gzip(src, csize, dst, size, err);
	case BALE_PQ_ZSTD:
		return page_zstd(src, csize, dst, size, err);
	default:
		return bale_errbuf_set(err, BALE_ENOTSUP, "Parquet pages "
		    "compressed with codec %d (LZO, Brotli or LZ4) are not "
		    "read", codec);
	}
}

/* ---- level and index runs ---------------------------------------------- */

int bale_pq_bit_width(uint64_t max)
{
	int w = 0;

	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

void bale_pq_runs_init(struct bale_pq_runs *r, const void *p, size_t n,
    int width)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->end = r->p + n;
	r->width = width;
}

/* The next run's header, and a repeated run's value. */
static int runs_start(struct bale_pq_runs *r)
{
	uint64_t head = 0, bytes;
	unsigned shift = 0;
	size_t i, vb = ((size_t)r->width + 7) / 8;

	do {
		if (r->p >= r->end || shift > 35)
			return -1;
		head |= (uint64_t)(*r->p & 0x7f) << shift;
		shift += 7;
	} while (*r->p++ & 0x80);
	r->packed = head & 1;
	if (r->packed) {	/* groups of 8 values, @width bytes each */
		bytes = (head >> 1) * (uint64_t)r->width;
		if (head >> 1 == 0 || bytes > (uint64_t)(r->end - r->p))
			return -1;
		r->left = (uint32_t)((head >> 1) * 8);
		r->run = r->p;
		r->bit = 0;
		r->p += bytes;
		return 0;
	}
	if (head >> 1 == 0 || head >> 1 > UINT32_MAX ||
	    vb > (size_t)(r->end - r->p))
		return -1;
	r->left = (uint32_t)(head >> 1);
	r->value = 0;
	for (i = 0; i < vb; i++)
		r->value |= (uint64_t)r->p[i] << (8 * i);
	r->p += vb;
	return 0;
}

int bale_pq_runs_next(struct bale_pq_runs *r, uint32_t *v)
{
	uint64_t bits = 0;
	int k;

	if (r->width < 0 || r->width > 32)
		return -1;
	if (r->left == 0 && runs_start(r) != 0)
		return -1;
	r->left--;
	if (!r->packed) {
		if (r->value >> r->width)	/* wider than its width */
			return -1;
		*v = (uint32_t)r->value;
		return 0;
	}
	for (k = 0; k < r->width; k++, r->bit++)	/* least bit first */
		bits |= (uint64_t)((r->run[r->bit / 8] >> (r->bit % 8)) & 1) <<
		    k;
	*v = (uint32_t)bits;
	return 0;
}
