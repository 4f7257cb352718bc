/* parquet_column.c - a column's values, a row at a time
 * (parquet_column.h). */
#include "parquet_column.h"

#include "bale.h"
#include "bale_store.h"
#include "le.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A page header is read with this much after it, at most. */
#define COLUMN_HEADER_MAX ((size_t)64 << 10)
/* A column chunk of an object up to this size is fetched whole, in one
 * request, and its pages read from memory: the columns of a row group
 * are read side by side, and sharing the object's one read window they
 * would each refill it. (A larger one is read by windows.) */
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

/* The page at c->at in the mapping: its header, its body where it
 * lies. */
static int column_mapped_page(struct bale_pq_column *c,
    struct bale_errbuf *err)
{
	const unsigned char *at = c->map + (c->at - c->mapoff);
	size_t n = c->end - c->at < COLUMN_HEADER_MAX ?
	    (size_t)(c->end - c->at) : COLUMN_HEADER_MAX;
	int rc = bale_pq_page_header(&c->pg, at, n, err);

	if (rc != BALE_OK)
		return rc;
	if ((uint64_t)c->pg.header_len + c->pg.csize > c->end - c->at)
		return column_damaged(err, "a page runs past its chunk");
	c->stored = at + c->pg.header_len;
	c->at += (uint64_t)c->pg.header_len + c->pg.csize;
	return BALE_OK;
}

/* The page at c->at: its header, then its body as stored (c->stored):
 * mapped, or read into c->raw. */
static int column_read_page(struct bale_pq_column *c, struct bale_errbuf *err)
{
	size_t n = c->end - c->at < COLUMN_HEADER_MAX ?
	    (size_t)(c->end - c->at) : COLUMN_HEADER_MAX, got;
	int rc;

	if (c->map)
		return column_mapped_page(c, err);
	if (bale_grow(&c->raw, &c->rawcap, n) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	c->stored = c->raw;
	rc = bale_store_fd_scan_within(c->fd, c->raw, n, c->at, c->end, &got,
	    err);
	if (rc != BALE_OK)
		return rc;
	rc = bale_pq_page_header(&c->pg, c->raw, got, err);
	if (rc != BALE_OK)
		return rc;
	if ((uint64_t)c->pg.header_len + c->pg.csize > c->end - c->at)
		return column_damaged(err, "a page runs past its chunk");
	c->at += c->pg.header_len;
	if (bale_grow(&c->raw, &c->rawcap, c->pg.csize ? c->pg.csize : 1) !=
	    0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	c->stored = c->raw;
	/* a scan's read: an object's window (not past the chunk), which
	 * read the header, most often holds the body too */
	rc = c->pg.csize ? bale_store_fd_scan_within(c->fd, c->raw,
	    c->pg.csize, c->at, c->end, &got, err) : BALE_OK;
	if (rc == BALE_OK && c->pg.csize && got != c->pg.csize)
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
	if (codec == BALE_PQ_UNCOMPRESSED && pg->csize == pg->size) {
		c->page = c->stored;	/* used where it lies */
		return BALE_OK;
	}
	if (bale_grow(&c->body, &c->bodycap, pg->size ? pg->size : 1) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	c->page = c->body;
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
	memcpy(c->dict, c->page, c->pg.size);
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
	const unsigned char *p = c->page, *end = c->page + c->pg.size;
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

/* The levels of a data page v1 whose block @c->view holds: their bytes
 * read into c->levels (c->body may yet take the page decompressed).
 * @return the values' place in the block, or 0 when the page is better
 * decompressed (or damaged: that says why) */
static uint64_t sparse_levels(struct bale_pq_column *c, int width)
{
	unsigned char le[4];
	uint32_t len;

	if (c->leaf->max_def == 0)
		return 0;	/* no levels: the values start the block */
	if (bale_snappy_view_read(&c->view, 0, le, 4) != 0)
		return 0;
	len = bale_le32(le);
	if (len > 8 * (uint64_t)c->pg.num_values + 64 ||
	    bale_grow(&c->levels, &c->levelscap, len ? len : 1) != 0 ||
	    bale_snappy_view_read(&c->view, 4, c->levels, len) != 0)
		return 0;
	bale_pq_runs_init(&c->def, c->levels, len, width);
	return 4 + (uint64_t)len;
}

/* How many of the page's values are there (not null), from a copy of
 * its levels. @return -1 when they run short */
static int64_t sparse_present(const struct bale_pq_column *c)
{
	struct bale_pq_runs def = c->def;
	uint32_t i, level;
	int64_t n = 0;

	if (c->leaf->max_def == 0)
		return c->pg.num_values;
	for (i = 0; i < c->pg.num_values; i++) {
		if (bale_pq_runs_next(&def, &level) != 0)
			return -1;
		n += level == (uint32_t)c->leaf->max_def;
	}
	return n;
}

/* Each present value's length, from @pos on in the block, into c->lens.
 * @return 0, or -1 to decompress the page instead */
static int sparse_lengths(struct bale_pq_column *c, uint64_t pos, int64_t n)
{
	unsigned char le[4];
	uint32_t len;
	int64_t i;

	if (bale_grow_array((void **)&c->lens, &c->caplens,
	    (size_t)n ? (size_t)n : 1, sizeof(*c->lens)) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (bale_snappy_view_read(&c->view, pos, le, 4) != 0)
			return -1;
		len = bale_le32(le);
		pos += 4;
		if (len > c->view.size - pos)
			return -1;
		c->lens[i] = len;
		pos += len;
	}
	c->nlens = (size_t)n;
	c->nextlen = 0;
	return 0;
}

/* A page of PLAIN byte arrays in a Snappy block, read for its values'
 * lengths alone (c->sizes_only), the block left where it lies. @return
 * BALE_OK (c->sparse), 1 when it is to be decompressed instead (another
 * kind of page, too many copies in its block, or damage, which the
 * decompression then names), or BALE_ENOMEM */
static int column_sparse_page(struct bale_pq_column *c,
    struct bale_errbuf *err)
{
	const struct bale_pq_page *pg = &c->pg;
	int v2 = pg->type == BALE_PQ_DATA_PAGE_V2;
	size_t lv = v2 ? (size_t)pg->def_len + pg->rep_len : 0;
	int width = bale_pq_bit_width((uint64_t)c->leaf->max_def);
	uint64_t pos = 0;
	int64_t present;
	int rc;

	if (!c->sizes_only || c->leaf->type != BALE_PQ_BYTE_ARRAY ||
	    pg->encoding != BALE_PQ_PLAIN || c->chunk->codec !=
	    BALE_PQ_SNAPPY || (pg->type != BALE_PQ_DATA_PAGE && !v2) ||
	    (v2 && !pg->compressed) || lv > pg->csize)
		return 1;
	rc = bale_snappy_view_open(&c->view, c->stored + lv, pg->csize - lv,
	    (pg->csize - lv) / 16 + 64);
	if (rc == BALE_SNAPPY_VIEW_NOMEM)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	if (rc != 0 || c->view.size != pg->size - lv)
		return 1;
	if (v2)
		bale_pq_runs_init(&c->def, c->stored + pg->rep_len,
		    pg->def_len, width);
	else if (!(pos = sparse_levels(c, width)) && c->leaf->max_def > 0)
		return 1;
	present = sparse_present(c);
	if (present < 0 || sparse_lengths(c, pos, present) != 0)
		return 1;
	c->sparse = 1;
	c->vpos = pos;
	c->dict_page = 0;
	c->left = pg->num_values;
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
		c->sparse = 0;
		c->inflated = 0;
		rc = column_read_page(c, err);
		if (rc != BALE_OK)
			return rc;
		rc = column_sparse_page(c, err);
		if (rc != 1)
			return rc;	/* its lengths alone, or an error */
		rc = BALE_OK;
		if (c->pg.type != BALE_PQ_INDEX_PAGE)
			rc = column_inflate(c, err);
		if (rc == BALE_OK && c->pg.type == BALE_PQ_DICTIONARY_PAGE)
			rc = column_dictionary(c, err);
		if (rc != BALE_OK)
			return rc;
	} while (c->pg.type != BALE_PQ_DATA_PAGE &&
	    c->pg.type != BALE_PQ_DATA_PAGE_V2);
	return column_data_page(c, err);
}

/* Fetch the chunk [c->at, c->end) of an object whole, when it is small
 * enough (COLUMN_FETCH_MAX), into c->map. @return BALE_OK (fetched or
 * left to windows), or the request's error */
static int column_fetch(struct bale_pq_column *c, struct bale_errbuf *err)
{
	size_t n = (size_t)(c->end - c->at);
	int rc;

	if (c->end - c->at > COLUMN_FETCH_MAX)
		return BALE_OK;
	c->map = malloc(n ? n : 1);
	if (!c->map)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	c->fetched = 1;
	c->mapoff = c->at;
	c->maplen = n;
	rc = n ? bale_store_fd_pread(c->fd, c->map, n, c->at, err) : BALE_OK;
	if (rc != BALE_OK) {
		free(c->map);
		c->map = NULL;
	}
	return rc;
}

/* Map the chunk [c->at, c->end) of a local file (left to reads when it
 * cannot be), or fetch an object's. @return BALE_OK or an error */
static int column_map(struct bale_pq_column *c, struct bale_errbuf *err)
{
	uint64_t unit = (uint64_t)sysconf(_SC_PAGESIZE);
	void *m;

	if (c->end <= c->at || c->end - c->at > SIZE_MAX / 2)
		return BALE_OK;
	if (bale_store_fd_remote(c->fd))
		return column_fetch(c, err);
	c->mapoff = c->at - c->at % unit;
	c->maplen = (size_t)(c->end - c->mapoff);
	m = mmap(NULL, c->maplen, PROT_READ, MAP_SHARED, c->fd,
	    (off_t)c->mapoff);
	if (m == MAP_FAILED)
		return BALE_OK;
	madvise(m, c->maplen, MADV_SEQUENTIAL);
	c->map = m;
	return BALE_OK;
}

int bale_pq_column_open(struct bale_pq_column *c, int fd,
    const struct bale_pq_leaf *leaf, const struct bale_pq_chunk *chunk,
    struct bale_errbuf *err)
{
	memset(c, 0, sizeof(*c));
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
	return column_map(c, err);
}

void bale_pq_column_sizes_only(struct bale_pq_column *c)
{
	c->sizes_only = 1;
}

/* A present value of the page, by its encoding. */
static int column_value(struct bale_pq_column *c, struct bale_pq_value *v,
    struct bale_errbuf *err)
{
	uint32_t k;

	if (c->sparse) {	/* its length alone, and where it lies */
		if (c->nextlen >= c->nlens)
			return column_damaged(err, "fewer values than levels");
		v->len = c->lens[c->nextlen++];
		v->at = c->vpos + 4;
		c->vpos += 4 + (uint64_t)v->len;
		return 1;
	}
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

int bale_pq_column_copy(struct bale_pq_column *c,
    const struct bale_pq_value *v, void *dst, struct bale_errbuf *err)
{
	size_t lv = c->pg.type == BALE_PQ_DATA_PAGE_V2 ?
	    (size_t)c->pg.def_len + c->pg.rep_len : 0;
	int rc;

	if (!c->sparse) {
		if (v->len)
			memcpy(dst, v->bytes, v->len);
		return BALE_OK;
	}
	if (!c->inflated) {
		rc = bale_snappy_view_read(&c->view, v->at, dst, v->len);
		if (rc == 0)
			return BALE_OK;
		if (rc != BALE_SNAPPY_VIEW_MANY)
			return column_damaged(err, "values past their page");
		rc = column_inflate(c, err);	/* cheaper now */
		if (rc != BALE_OK)
			return rc;
		c->inflated = 1;
	}
	memcpy(dst, c->page + lv + v->at, v->len);
	return BALE_OK;
}

void bale_pq_column_close(struct bale_pq_column *c)
{
	if (c->map && c->fetched)
		free(c->map);
	else if (c->map)
		munmap(c->map, c->maplen);
	bale_snappy_view_release(&c->view);
	free(c->raw);
	free(c->body);
	free(c->levels);
	free(c->dict);
	free(c->entries);
	free(c->lens);
	memset(c, 0, sizeof(*c));
}
