/* parquet_column.c - a column's values, a row at a time
 * (parquet_column.h). */
#include "parquet_column.h"

#include "bale.h"
#include "bale_store.h"
#include "le.h"

#include <stdlib.h>
#include <string.h>

/* A page header is read with this much after it, at most. */
#define COLUMN_HEADER_MAX ((size_t)64 << 10)
/* A column chunk of an object of this size or more (images), up to the
 * most, is fetched whole, in one request, and its pages read from
 * memory: the columns of a row group are read side by side, and sharing
 * the object's one read window they would each refill it. A smaller one
 * (labels, paths; a small file) stays with the window, which the
 * scan's growing reads serve best; a larger one is read by windows. */
#define COLUMN_FETCH_MIN ((size_t)1 << 20)
#define COLUMN_FETCH_MAX ((size_t)32 << 20)

static int column_damaged(struct bale_errbuf *err, const char *why)
{
	return bale_errbuf_set(err, BALE_EINPUT, "damaged Parquet column: %s",
	    why);
}

/* ---- DELTA_BINARY_PACKED (the lengths of DELTA_LENGTH_BYTE_ARRAY) ------ */

static int delta_varint(const unsigned char **p, const unsigned char *end,
    uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -1;
		*v |= (uint64_t)(**p & 0x7f) << shift;
		if (!(*(*p)++ & 0x80))
			return 0;
	}
	return -1;
}

static uint64_t delta_unzigzag(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

/* Miniblock @m of a block: @per values of @w bits at *@p, each added to
 * the last with @min_delta, into c->lens. */
static int delta_miniblock(struct bale_pq_column *c, const unsigned char **p,
    const unsigned char *end, uint32_t per, int w, uint64_t min_delta,
    uint64_t *last, uint64_t total)
{
	uint64_t bytes = (uint64_t)per * (uint64_t)w / 8, bit = 0, v;
	uint32_t k;
	int b;

	if (w > 64 || bytes > (uint64_t)(end - *p))
		return -1;
	for (k = 0; k < per && c->nlens < total; k++) {
		for (v = 0, b = 0; b < w; b++, bit++)
			v |= (uint64_t)(((*p)[bit / 8] >> (bit % 8)) & 1) << b;
		*last += min_delta + v;
		if (*last > UINT32_MAX)
			return -1;
		c->lens[c->nlens++] = (uint32_t)*last;
	}
	*p += bytes;
	return 0;
}

/* The lengths at *@p, at most @most of them; *@p moves past them. */
static int delta_lengths(struct bale_pq_column *c, const unsigned char **p,
    const unsigned char *end, uint32_t most)
{
	uint64_t block, minis, total, first, min_delta, per, last;
	const unsigned char *widths;
	uint64_t m;

	c->nlens = c->nextlen = 0;
	if (delta_varint(p, end, &block) || delta_varint(p, end, &minis) ||
	    delta_varint(p, end, &total) || delta_varint(p, end, &first))
		return -1;
	if (block == 0 || block % 128 || minis == 0 || block % minis ||
	    (block / minis) % 32 || total > most)
		return -1;
	if (bale_grow_array((void **)&c->lens, &c->caplens,
	    (size_t)total + 1, sizeof(*c->lens)) != 0)
		return -2;
	per = block / minis;
	last = delta_unzigzag(first);
	if (total > 0) {
		if (last > UINT32_MAX)
			return -1;
		c->lens[c->nlens++] = (uint32_t)last;
	}
	while (c->nlens < total) {
		if (delta_varint(p, end, &min_delta) != 0 ||
		    minis > (uint64_t)(end - *p))
			return -1;
		min_delta = delta_unzigzag(min_delta);
		widths = *p;
		*p += minis;
		for (m = 0; m < minis && c->nlens < total; m++)
			if (delta_miniblock(c, p, end, (uint32_t)per,
			    widths[m], min_delta, &last, total) != 0)
				return -1;
	}
	return 0;
}

/* ---- plain values ---------------------------------------------------- */

/* The next PLAIN value of the column's type at *@p. */
static int plain_value(const struct bale_pq_leaf *leaf,
    const unsigned char **p, const unsigned char *end,
    struct bale_pq_value *v)
{
	size_t need = leaf->type == BALE_PQ_INT64 ? 8 : 4;
	uint32_t lo;

	if ((size_t)(end - *p) < need)
		return -1;
	if (leaf->type == BALE_PQ_INT64) {
		v->i = (int64_t)bale_le64(*p);
		*p += 8;
		return 0;
	}
	lo = bale_le32(*p);
	*p += 4;
	if (leaf->type == BALE_PQ_INT32) {
		v->i = (int32_t)lo;
		return 0;
	}
	/* a byte array: its length, its bytes */
	if (lo > (size_t)(end - *p))
		return -1;
	v->bytes = *p;
	v->len = lo;
	*p += lo;
	return 0;
}

/* ---- pages ---------------------------------------------------------- */

/* Up to @n bytes at @off (inside the chunk), *@got of them, at *@p:
 * in the chunk fetched (not copied), or read by the file's scan into
 * c->raw. */
static int column_view(struct bale_pq_column *c, size_t n, uint64_t off,
    const unsigned char **p, size_t *got, struct bale_errbuf *err)
{
	uint64_t left = c->end - off;

	if (c->in_memory) {
		*got = left < n ? (size_t)left : n;
		*p = c->fetched + (off - c->chunk->start);
		return BALE_OK;
	}
	if (bale_grow(&c->raw, &c->rawcap, n ? n : 1) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	*p = c->raw;
	return bale_store_fd_scan_within(c->fd, c->raw, n, off, c->end, got,
	    err);
}

/* The page at c->at: its header, then its body as stored (c->stored). */
static int column_read_page(struct bale_pq_column *c, struct bale_errbuf *err)
{
	size_t n = c->end - c->at < COLUMN_HEADER_MAX ?
	    (size_t)(c->end - c->at) : COLUMN_HEADER_MAX, got = 0;
	const unsigned char *p = NULL;
	int rc;

	rc = column_view(c, n, c->at, &p, &got, err);
	if (rc != BALE_OK)
		return rc;
	rc = bale_pq_page_header(&c->pg, p, got, err);
	if (rc != BALE_OK)
		return rc;
	if ((uint64_t)c->pg.header_len + c->pg.csize > c->end - c->at)
		return column_damaged(err, "a page runs past its chunk");
	c->at += c->pg.header_len;
	/* a scan's read: an object's window (not past the chunk), which
	 * read the header, most often holds the body too */
	rc = column_view(c, c->pg.csize, c->at, &c->stored, &got, err);
	if (rc == BALE_OK && got != c->pg.csize)
		return column_damaged(err, "the file ends inside a page");
	c->at += c->pg.csize;
	return rc;
}

/* The body decompressed into c->body: a v2 page's levels are stored as
 * they are, before its (maybe compressed) values. */
static int column_inflate(struct bale_pq_column *c, struct bale_errbuf *err)
{
	const struct bale_pq_page *pg = &c->pg;
	size_t lv = pg->type == BALE_PQ_DATA_PAGE_V2 ? (size_t)pg->def_len +
	    pg->rep_len : 0;
	int codec = pg->type == BALE_PQ_DATA_PAGE_V2 && !pg->compressed ?
	    BALE_PQ_UNCOMPRESSED : c->chunk->codec;

	if (!bale_pq_decompress_fits(codec, c->stored + lv, pg->csize - lv,
	    pg->size - lv))
		return column_damaged(err, "a page whose values cannot be the "
		    "size its header says");
	if (bale_grow(&c->body, &c->bodycap, pg->size ? pg->size : 1) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	memcpy(c->body, c->stored, lv);
	return bale_pq_decompress(codec, c->stored + lv, pg->csize - lv,
	    c->body + lv, pg->size - lv, err);
}

/* A dictionary page: its PLAIN values, kept. */
static int column_dictionary(struct bale_pq_column *c,
    struct bale_errbuf *err)
{
	const unsigned char *p, *end;
	uint32_t i;

	if (c->entries || (c->pg.encoding != BALE_PQ_PLAIN &&
	    c->pg.encoding != BALE_PQ_PLAIN_DICTIONARY))
		return column_damaged(err, "a second or unknown dictionary");
	if (c->pg.num_values > c->pg.size)	/* a byte a value at least */
		return column_damaged(err, "a dictionary longer than its "
		    "page");
	c->dict = malloc(c->pg.size ? c->pg.size : 1);
	c->entries = calloc(c->pg.num_values ? c->pg.num_values : 1,
	    sizeof(*c->entries));
	if (!c->dict || !c->entries)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	memcpy(c->dict, c->body, c->pg.size);
	p = c->dict;
	end = c->dict + c->pg.size;
	for (i = 0; i < c->pg.num_values; i++)
		if (plain_value(c->leaf, &p, end, &c->entries[i]) != 0)
			return column_damaged(err, "a dictionary value runs "
			    "past its page");
	c->nentries = c->pg.num_values;
	return BALE_OK;
}

/* A data page: its definition levels, then where its values start. */
static int column_data_page(struct bale_pq_column *c,
    struct bale_errbuf *err)
{
	const unsigned char *p = c->body, *end = c->body + c->pg.size;
	int width = bale_pq_bit_width((uint64_t)c->leaf->max_def);
	uint32_t len;
	int rc;

	if (c->pg.type == BALE_PQ_DATA_PAGE_V2) {
		bale_pq_runs_init(&c->def, p + c->pg.rep_len, c->pg.def_len,
		    width);
		p += c->pg.rep_len + c->pg.def_len;
	} else if (c->leaf->max_def > 0) {
		if (end - p < 4 || bale_le32(p) > (size_t)(end - p - 4))
			return column_damaged(err, "levels past their page");
		len = bale_le32(p);
		bale_pq_runs_init(&c->def, p + 4, len, width);
		p += 4 + len;
	}
	c->dict_page = c->pg.encoding == BALE_PQ_PLAIN_DICTIONARY ||
	    c->pg.encoding == BALE_PQ_RLE_DICTIONARY;
	if (c->dict_page) {
		if (!c->entries || p >= end || *p > 32)
			return column_damaged(err, "dictionary indices without "
			    "a dictionary");
		bale_pq_runs_init(&c->idx, p + 1, (size_t)(end - p - 1), *p);
	} else if (c->pg.encoding == BALE_PQ_DELTA_LENGTH_BYTE_ARRAY &&
	    c->leaf->type == BALE_PQ_BYTE_ARRAY) {
		rc = delta_lengths(c, &p, end, c->pg.num_values);
		if (rc == -2)
			return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
		if (rc != 0)
			return column_damaged(err, "bad DELTA_LENGTH lengths");
	} else if (c->pg.encoding != BALE_PQ_PLAIN) {
		return bale_errbuf_set(err, BALE_ENOTSUP, "Parquet values "
		    "encoded with encoding %d are not read", c->pg.encoding);
	}
	c->vp = p;
	c->vend = end;
	c->left = c->pg.num_values;
	return BALE_OK;
}

/* The next page with values (dictionaries are kept on the way). */
static int column_next_page(struct bale_pq_column *c,
    struct bale_errbuf *err)
{
	int rc;

	do {
		if (c->at >= c->end)
			return column_damaged(err, "fewer values than rows");
		rc = column_read_page(c, err);
		if (rc == BALE_OK && c->pg.type != BALE_PQ_INDEX_PAGE)
			rc = column_inflate(c, err);
		if (rc == BALE_OK && c->pg.type == BALE_PQ_DICTIONARY_PAGE)
			rc = column_dictionary(c, err);
		if (rc != BALE_OK)
			return rc;
	} while (c->pg.type != BALE_PQ_DATA_PAGE &&
	    c->pg.type != BALE_PQ_DATA_PAGE_V2);
	return column_data_page(c, err);
}

/* An object's chunk, when not large, fetched whole into c->fetched. */
static int column_fetch(struct bale_pq_column *c, struct bale_errbuf *err)
{
	uint64_t n = c->end - c->at;
	int rc;

	if (!bale_store_fd_remote(c->fd) || n < COLUMN_FETCH_MIN ||
	    n > COLUMN_FETCH_MAX)
		return BALE_OK;
	if (bale_grow(&c->fetched, &c->fetchcap, (size_t)n) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	rc = bale_store_fd_pread(c->fd, c->fetched, (size_t)n, c->at, err);
	c->in_memory = rc == BALE_OK;
	return rc;
}

int bale_pq_column_open(struct bale_pq_column *c, int fd,
    const struct bale_pq_leaf *leaf, const struct bale_pq_chunk *chunk,
    struct bale_errbuf *err)
{
	memset(c, 0, sizeof(*c));
	return bale_pq_column_reopen(c, fd, leaf, chunk, err);
}

/* A fresh column in @c, with the buffers of the one it held: fetching
 * a row group's chunk into new memory each time cost as much in page
 * faults as the copies it spared (its pages are read in place). */
static void column_recycle(struct bale_pq_column *c)
{
	struct bale_pq_column kept = *c;

	free(kept.dict);
	free(kept.entries);
	memset(c, 0, sizeof(*c));
	c->fetched = kept.fetched;
	c->fetchcap = kept.fetchcap;
	c->raw = kept.raw;
	c->rawcap = kept.rawcap;
	c->body = kept.body;
	c->bodycap = kept.bodycap;
	c->lens = kept.lens;
	c->caplens = kept.caplens;
}

int bale_pq_column_reopen(struct bale_pq_column *c, int fd,
    const struct bale_pq_leaf *leaf, const struct bale_pq_chunk *chunk,
    struct bale_errbuf *err)
{
	column_recycle(c);
	c->fd = fd;
	c->leaf = leaf;
	c->chunk = chunk;
	c->at = chunk->start;
	c->end = chunk->start + chunk->size;
	if (leaf->max_rep > 0)
		return bale_errbuf_set(err, BALE_ENOTSUP, "'%s': a repeated "
		    "column (a list) is not read", leaf->path);
	if (leaf->type != BALE_PQ_BYTE_ARRAY && leaf->type != BALE_PQ_INT32 &&
	    leaf->type != BALE_PQ_INT64)
		return bale_errbuf_set(err, BALE_ENOTSUP, "'%s': a column of "
		    "type %d is not read (images are bytes, labels integers)",
		    leaf->path, leaf->type);
	return column_fetch(c, err);
}

/* A present value of the page, by its encoding. */
static int column_value(struct bale_pq_column *c, struct bale_pq_value *v,
    struct bale_errbuf *err)
{
	uint32_t k;

	if (c->dict_page) {
		if (bale_pq_runs_next(&c->idx, &k) != 0 || k >= c->nentries)
			return column_damaged(err, "a dictionary index out of "
			    "its dictionary");
		*v = c->entries[k];
		return 1;
	}
	if (c->pg.encoding == BALE_PQ_DELTA_LENGTH_BYTE_ARRAY) {
		if (c->nextlen >= c->nlens ||
		    c->lens[c->nextlen] > (size_t)(c->vend - c->vp))
			return column_damaged(err, "values past their page");
		v->bytes = c->vp;
		v->len = c->lens[c->nextlen++];
		c->vp += v->len;
		return 1;
	}
	return plain_value(c->leaf, &c->vp, c->vend, v) == 0 ? 1 :
	    column_damaged(err, "values past their page");
}

int bale_pq_column_next(struct bale_pq_column *c, struct bale_pq_value *v,
    struct bale_errbuf *err)
{
	uint32_t def = 0;
	int rc;

	memset(v, 0, sizeof(*v));
	while (c->left == 0) {
		rc = column_next_page(c, err);
		if (rc != BALE_OK)
			return rc;
	}
	c->left--;
	if (c->leaf->max_def > 0 && bale_pq_runs_next(&c->def, &def) != 0)
		return column_damaged(err, "definition levels cut short");
	if (def > (uint32_t)c->leaf->max_def)
		return column_damaged(err, "a level above its column's");
	if (def < (uint32_t)c->leaf->max_def)
		return 0;	/* null, here or above */
	return column_value(c, v, err);
}

void bale_pq_column_close(struct bale_pq_column *c)
{
	free(c->fetched);
	free(c->raw);
	free(c->body);
	free(c->dict);
	free(c->entries);
	free(c->lens);
	memset(c, 0, sizeof(*c));
}
