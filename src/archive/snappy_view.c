/* snappy_view.c - a Snappy block read where it lies (snappy_view.h).
 *
 * The format: the output's length as a varint, then tags. A tag's low
 * two bits say what it is: 00 a literal (its length - 1 in the upper six
 * bits, or, from 60 on, in the 1 to 4 bytes after), 01 a copy of 4 to
 * 11 bytes reaching back up to 2047 (11 bits: three in the tag, a byte
 * after), 10 and 11 copies of 1 to 64 bytes reaching back by the 2 or 4
 * bytes after.
 *
 * An output byte in a copy is the byte its distance before it: in a
 * copy of length L reaching back D from output place O, byte O + i is
 * byte O - D + i % D, always before the copy, so following copies back
 * ends at a literal. A block could make that chain as long as its runs:
 * reads spend from a budget, and one that runs out fails as if the
 * block had too many runs (the caller decompresses instead). */
#include "snappy_view.h"

#include <stdlib.h>
#include <string.h>

/* The preamble: the output's length, below 2^32. */
static int view_preamble(const unsigned char **p, const unsigned char *end,
    uint64_t *size)
{
	unsigned shift;

	*size = 0;
	for (shift = 0; shift < 35 && *p < end; shift += 7) {
		*size |= (uint64_t)(**p & 0x7f) << shift;
		if (!(*(*p)++ & 0x80))
			return *size <= UINT32_MAX ? 0 : -1;
	}
	return -1;
}

/* @k bytes at @p, little-endian. */
static uint64_t view_le(const unsigned char *p, size_t k)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < k; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A literal's run from its tag's upper bits @hi, *@p after the tag. */
static int view_literal(const unsigned char *src, const unsigned char **p,
    const unsigned char *end, unsigned hi, struct bale_snappy_run *r)
{
	uint64_t len = hi;
	size_t k;

	if (hi >= 60) {
		k = hi - 59;
		if ((size_t)(end - *p) < k)
			return -1;
		len = view_le(*p, k);
		*p += k;
	}
	len++;
	if (len > (uint64_t)(end - *p) || len > UINT32_MAX)
		return -1;
	r->literal = 1;
	r->from = (uint64_t)(*p - src);
	r->len = (uint32_t)len;
	*p += len;
	return 0;
}

/* The tag at *@p into @r (all but r->out); *@p moves past it. */
static int view_tag(const unsigned char *src, const unsigned char **p,
    const unsigned char *end, struct bale_snappy_run *r)
{
	unsigned tag = *(*p)++;
	size_t k = (tag & 3) == 1 ? 1 : (tag & 3) == 2 ? 2 : 4;

	if ((tag & 3) == 0)
		return view_literal(src, p, end, tag >> 2, r);
	if ((size_t)(end - *p) < k)
		return -1;
	r->literal = 0;
	if ((tag & 3) == 1) {
		r->len = 4 + ((tag >> 2) & 7);
		r->from = (uint64_t)(tag >> 5) << 8 | **p;
	} else {
		r->len = 1 + (tag >> 2);
		r->from = view_le(*p, k);
	}
	*p += k;
	return 0;
}

int bale_snappy_view_open(struct bale_snappy_view *v, const void *src,
    size_t n, size_t max_runs)
{
	const unsigned char *p = src, *end = p + n;
	size_t room = max_runs < n ? max_runs : n;
	struct bale_snappy_run *runs = v->runs;
	struct bale_snappy_run r;
	uint64_t out = 0;

	/* room for the most runs this block may have: one allocation, kept
	 * for the next block (not one a run) */
	if (v->cap < room || !runs) {
		free(runs);
		runs = malloc((room ? room : 1) * sizeof(*runs));
		v->cap = runs ? room : 0;
	}
	room = v->cap;
	memset(v, 0, sizeof(*v));
	v->runs = runs;
	v->cap = room;
	v->src = src;
	v->n = n;
	if (!runs)
		return BALE_SNAPPY_VIEW_NOMEM;
	if (view_preamble(&p, end, &v->size) != 0)
		return BALE_SNAPPY_VIEW_BAD;
	while (p < end) {
		if (v->nruns >= max_runs)
			return BALE_SNAPPY_VIEW_MANY;
		if (view_tag(src, &p, end, &r) != 0 ||
		    (!r.literal && (r.from == 0 || r.from > out)) ||
		    r.len > v->size - out)
			return BALE_SNAPPY_VIEW_BAD;
		r.out = out;
		v->runs[v->nruns++] = r;
		out += r.len;
	}
	v->budget = 64 * (v->nruns + 1024);
	return out == v->size ? 0 : BALE_SNAPPY_VIEW_BAD;
}

static int view_holds(const struct bale_snappy_run *r, uint64_t pos)
{
	return r->out <= pos && pos - r->out < r->len;
}

/* The run holding output byte @pos (< v->size). */
static size_t view_find(const struct bale_snappy_view *v, size_t hint,
    uint64_t pos)
{
	size_t lo = 0, hi = v->nruns, mid;

	if (hint < v->nruns && view_holds(&v->runs[hint], pos))
		return hint;
	if (hint + 1 < v->nruns && view_holds(&v->runs[hint + 1], pos))
		return hint + 1;
	while (hi - lo > 1) {	/* the last run starting at or before */
		mid = lo + (hi - lo) / 2;
		if (v->runs[mid].out <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Output byte @pos, in a copy: followed back to its literal. @return it,
 * or -1 when the budget is spent */
static int view_copied_byte(struct bale_snappy_view *v, size_t k,
    uint64_t pos)
{
	const struct bale_snappy_run *r = &v->runs[k];

	while (!r->literal) {
		if (v->budget == 0)
			return -1;
		v->budget--;
		pos = r->out - r->from + (pos - r->out) % r->from;
		k = view_find(v, k ? k - 1 : 0, pos);
		r = &v->runs[k];
	}
	return v->src[r->from + (pos - r->out)];
}

/* @n bytes of copy run @r from output place @pos into @d, the read
 * having begun at output place @start into @d - (@pos - @start): a byte
 * whose source this read wrote already is taken from there (as a
 * decompressor copies), one before it followed back. @return 0, or
 * BALE_SNAPPY_VIEW_MANY */
static int view_copy(struct bale_snappy_view *v, size_t k, uint64_t start,
    uint64_t pos, unsigned char *d, size_t n)
{
	uint64_t from = v->runs[k].from;
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		if (pos + i - from >= start) {
			d[i] = d[(int64_t)i - (int64_t)from];
			continue;
		}
		b = view_copied_byte(v, k, pos + i);
		if (b < 0)
			return BALE_SNAPPY_VIEW_MANY;
		d[i] = (unsigned char)b;
	}
	return 0;
}

int bale_snappy_view_read(struct bale_snappy_view *v, uint64_t pos,
    void *dst, size_t len)
{
	unsigned char *d = dst;
	const struct bale_snappy_run *r;
	uint64_t start = pos;
	size_t n;

	if (pos > v->size || len > v->size - pos)
		return BALE_SNAPPY_VIEW_BAD;
	while (len) {
		v->hint = view_find(v, v->hint, pos);
		r = &v->runs[v->hint];
		n = r->out + r->len - pos < len ? (size_t)(r->out + r->len -
		    pos) : len;
		if (r->literal)
			memcpy(d, v->src + r->from + (pos - r->out), n);
		else if (view_copy(v, v->hint, start, pos, d, n) != 0)
			return BALE_SNAPPY_VIEW_MANY;
		d += n;
		pos += n;
		len -= n;
	}
	return 0;
}

void bale_snappy_view_release(struct bale_snappy_view *v)
{
	free(v->runs);
	memset(v, 0, sizeof(*v));
}
