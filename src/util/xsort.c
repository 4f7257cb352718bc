/* xsort.c - records sorted past memory (xsort.h). A record is kept, in
 * a chunk and in a run alike, as its length (four bytes, host order:
 * the file never outlives the process) and its bytes. */
#include "xsort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XSORT_CHUNK ((size_t)8 << 20)
#define XSORT_WINDOW ((size_t)64 << 10)
#define XSORT_HEAD sizeof(uint32_t)

/* One run read front to back through a window. */
struct xsort_reader {
	uint64_t pos;		/* next byte to read from the spill */
	uint64_t end;
	struct bale_buf win;
	size_t at;		/* the next record in @win */
	size_t index;		/* of the run: orders equal records */
	const void *rec;	/* the record read last, in @win */
	size_t len;
};

int bale_xsort_init(struct bale_xsort *x, const char *dir,
    bale_xsort_cmp_fn *cmp, size_t chunk_bytes)
{
	memset(x, 0, sizeof(*x));
	x->cmp = cmp;
	x->chunk = (struct bale_buf)BALE_BUF_INIT;
	x->chunk_max = chunk_bytes ? chunk_bytes : XSORT_CHUNK;
	return bale_spill_init(&x->spill, dir);
}

static int xsort_fail(struct bale_xsort *x, int err)
{
	if (!x->err)
		x->err = err ? err : EIO;
	return -1;
}

static const unsigned char *xsort_chunk_rec(const struct bale_xsort *x,
    size_t at, size_t *len)
{
	uint32_t n;

	memcpy(&n, x->chunk.data + at, XSORT_HEAD);
	*len = n;
	return (const unsigned char *)x->chunk.data + at + XSORT_HEAD;
}

/* Chunk order: the records, then the order they were added in (their
 * offsets grow with it), which makes the sort stable. */
static int xsort_cmp_at(const void *pa, const void *pb, void *arg)
{
	const struct bale_xsort *x = arg;
	size_t a = *(const size_t *)pa;
	size_t b = *(const size_t *)pb;
	size_t na, nb;
	const unsigned char *ra = xsort_chunk_rec(x, a, &na);
	const unsigned char *rb = xsort_chunk_rec(x, b, &nb);
	int c = x->cmp(ra, na, rb, nb);

	return c ? c : (a > b) - (a < b);
}

static void xsort_sort_chunk(struct bale_xsort *x)
{
	if (x->n > 1)
		qsort_r(x->at, x->n, sizeof(*x->at), xsort_cmp_at, x);
}

/* Sort the chunk and write it out as a run; the chunk is then empty. */
static int xsort_write_run(struct bale_xsort *x)
{
	size_t i, len;

	if (bale_grow_array((void **)&x->run_end, &x->capruns, x->nruns + 1,
	    sizeof(*x->run_end)) != 0)
		return xsort_fail(x, ENOMEM);
	xsort_sort_chunk(x);
	for (i = 0; i < x->n && !x->spill.failed; i++) {
		xsort_chunk_rec(x, x->at[i], &len);
		bale_spill_add(&x->spill, x->chunk.data + x->at[i],
		    XSORT_HEAD + len);
	}
	if (x->spill.failed)
		return xsort_fail(x, x->spill.err);
	x->run_end[x->nruns++] = bale_spill_size(&x->spill);
	bale_buf_reset(&x->chunk);
	x->n = 0;
	return 0;
}

int bale_xsort_add(struct bale_xsort *x, const void *p, size_t n)
{
	uint32_t len = (uint32_t)n;

	if (x->err)
		return -1;
	if (n > UINT32_MAX || x->reading)
		return xsort_fail(x, EINVAL);
	if (x->chunk.len && x->chunk.len + XSORT_HEAD + n > x->chunk_max &&
	    xsort_write_run(x) != 0)
		return -1;
	if (bale_grow_array((void **)&x->at, &x->cap, x->n + 1,
	    sizeof(*x->at)) != 0)
		return xsort_fail(x, ENOMEM);
	x->at[x->n++] = x->chunk.len;
	bale_buf_add(&x->chunk, &len, XSORT_HEAD);
	bale_buf_add(&x->chunk, p, n);
	if (x->chunk.failed)
		return xsort_fail(x, ENOMEM);
	x->count++;
	return 0;
}

/* Have at least @need bytes of the run from r->at on, or all it has
 * left. */
static int xsort_want(struct bale_xsort *x, struct xsort_reader *r,
    size_t need)
{
	size_t have = r->win.len - r->at;
	size_t take;

	if (have >= need || r->pos == r->end)
		return 0;
	if (have)
		memmove(r->win.data, r->win.data + r->at, have);
	r->win.len = have;
	r->at = 0;
	take = (need > XSORT_WINDOW ? need : XSORT_WINDOW) - have;
	if (take > r->end - r->pos)
		take = (size_t)(r->end - r->pos);
	bale_buf_zeros(&r->win, take);
	if (r->win.failed)
		return xsort_fail(x, ENOMEM);
	if (bale_spill_pread(&x->spill, r->win.data + have, take, r->pos) != 0)
		return xsort_fail(x, errno);
	r->pos += take;
	return 0;
}

/* Read the run's next record into r->rec; *@more 0 at its end. */
static int xsort_reader_next(struct bale_xsort *x, struct xsort_reader *r,
    int *more)
{
	uint32_t len;

	*more = r->at < r->win.len || r->pos < r->end;
	if (!*more)
		return 0;
	if (xsort_want(x, r, XSORT_HEAD) != 0)
		return -1;
	memcpy(&len, r->win.data + r->at, XSORT_HEAD);
	if (xsort_want(x, r, XSORT_HEAD + len) != 0)
		return -1;
	if (r->win.len - r->at < XSORT_HEAD + len)
		return xsort_fail(x, EIO);	/* the spill lost bytes */
	r->rec = r->win.data + r->at + XSORT_HEAD;
	r->len = len;
	r->at += XSORT_HEAD + len;
	return 0;
}

static int xsort_before(const struct bale_xsort *x,
    const struct xsort_reader *a, const struct xsort_reader *b)
{
	int c = x->cmp(a->rec, a->len, b->rec, b->len);

	return c ? c < 0 : a->index < b->index;
}

/* Restore the heap below slot @i: the run whose record comes first
 * heads it. */
static void xsort_sift(struct bale_xsort *x, size_t i)
{
	struct xsort_reader **h = x->heap;
	struct xsort_reader *t;
	size_t c;

	for (; (c = 2 * i + 1) < x->nheap; i = c) {
		if (c + 1 < x->nheap && xsort_before(x, h[c + 1], h[c]))
			c++;
		if (!xsort_before(x, h[c], h[i]))
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
	}
}

/* Start reading every run, each with its first record. */
static int xsort_start_merge(struct bale_xsort *x)
{
	uint64_t start = 0;
	size_t k;
	int more;

	x->rd = calloc(x->nruns, sizeof(*x->rd));
	x->heap = calloc(x->nruns, sizeof(*x->heap));
	if (!x->rd || !x->heap)
		return xsort_fail(x, ENOMEM);
	for (k = 0; k < x->nruns; k++) {
		x->rd[k].win = (struct bale_buf)BALE_BUF_INIT;
		x->rd[k].pos = start;
		x->rd[k].end = x->run_end[k];
		x->rd[k].index = k;
		start = x->run_end[k];
		if (xsort_reader_next(x, &x->rd[k], &more) != 0)
			return -1;
		if (more)
			x->heap[x->nheap++] = &x->rd[k];
	}
	for (k = x->nheap; k-- > 0;)
		xsort_sift(x, k);
	return 0;
}

int bale_xsort_sort(struct bale_xsort *x)
{
	if (x->err)
		return -1;
	if (x->reading)
		return xsort_fail(x, EINVAL);
	x->reading = 1;
	if (!x->nruns) {	/* one chunk: read where it is */
		xsort_sort_chunk(x);
		return 0;
	}
	if (x->n && xsort_write_run(x) != 0)
		return -1;
	free(x->at);
	x->at = NULL;
	x->cap = 0;
	bale_buf_release(&x->chunk);
	return xsort_start_merge(x);
}

/* Move the merge past the record handed out last: its run reads on. */
static int xsort_merge_advance(struct bale_xsort *x)
{
	int more;

	if (xsort_reader_next(x, x->heap[0], &more) != 0)
		return -1;
	if (!more)
		x->heap[0] = x->heap[--x->nheap];
	xsort_sift(x, 0);
	return 0;
}

int bale_xsort_next(struct bale_xsort *x, const void **p, size_t *n)
{
	if (x->err)
		return -1;
	if (!x->reading)
		return xsort_fail(x, EINVAL);
	if (!x->nruns) {
		if (x->next == x->n)
			return 0;
		*p = xsort_chunk_rec(x, x->at[x->next++], n);
		return 1;
	}
	/* a record handed out stays valid until this call: its run's
	 * window moves on only now */
	if (x->next && x->nheap && xsort_merge_advance(x) != 0)
		return -1;
	if (x->nheap == 0)
		return 0;
	x->next = 1;
	*p = x->heap[0]->rec;
	*n = x->heap[0]->len;
	return 1;
}

void bale_xsort_release(struct bale_xsort *x)
{
	size_t k;

	for (k = 0; x->rd && k < x->nruns; k++)
		bale_buf_release(&x->rd[k].win);
	free(x->rd);
	free(x->heap);
	free(x->at);
	free(x->run_end);
	bale_buf_release(&x->chunk);
	bale_spill_release(&x->spill);
	memset(x, 0, sizeof(*x));
}

int bale_xsort_by_string(const void *a, size_t na, const void *b,
    size_t nb)
{
	(void)na;
	(void)nb;
	return strcmp(a, b);
}

int bale_xsort_by_u64be(const void *a, size_t na, const void *b,
    size_t nb)
{
	(void)na;
	(void)nb;
	return memcmp(a, b, 8);
}

void bale_xsort_put_u64be(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

uint64_t bale_xsort_get_u64be(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}
