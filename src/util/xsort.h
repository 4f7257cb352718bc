/* xsort.h - records sorted past memory: gathered a chunk at a time, each
 * full chunk sorted and written to an unlinked file as a run, the runs
 * merged as they are read back. Memory is one chunk and a small window
 * per run, whatever the count. The sort is stable: records that compare
 * equal come back in the order they were added. */
#ifndef BALE_XSORT_H
#define BALE_XSORT_H

#include "bale_backend_util.h"

#include <stddef.h>
#include <stdint.h>

/* Order of records @a (@na bytes) and @b (@nb bytes), as strcmp. */
typedef int bale_xsort_cmp_fn(const void *a, size_t na, const void *b,
    size_t nb);

struct xsort_reader;

struct bale_xsort {
	bale_xsort_cmp_fn *cmp;
	struct bale_buf chunk;	/* records gathered: length, bytes */
	size_t *at;		/* each one's offset in @chunk */
	size_t n;
	size_t cap;
	size_t chunk_max;	/* bytes that make a chunk full */
	struct bale_spill spill;	/* the runs, end to end */
	uint64_t *run_end;	/* where each run ends in the spill */
	size_t nruns;
	size_t capruns;
	uint64_t count;		/* records added */
	struct xsort_reader *rd;	/* reading: one per run */
	struct xsort_reader **heap;
	size_t nheap;
	size_t next;		/* reading one chunk: the next record */
	int reading;
	int err;		/* errno of the first failure, sticky */
};

/** Ready to gather records; runs go to an unlinked file in @dir once a
 *  chunk passes @chunk_bytes (0: 8 MiB). @return 0, or -1 without
 *  memory */
int bale_xsort_init(struct bale_xsort *x, const char *dir,
    bale_xsort_cmp_fn *cmp, size_t chunk_bytes);
/** Add a record of @n bytes. @return 0, or -1 with x->err */
int bale_xsort_add(struct bale_xsort *x, const void *p, size_t n);
/** No more records: sorted, ready to be read. @return 0, or -1 with
 *  x->err */
int bale_xsort_sort(struct bale_xsort *x);
/** The next record in order, valid until the next call. @return 1, 0
 *  at the end, or -1 with x->err */
int bale_xsort_next(struct bale_xsort *x, const void **p, size_t *n);
void bale_xsort_release(struct bale_xsort *x);

/* Comparators for records that begin with what orders them. */

/** A NUL-terminated string first (a path): bytewise, as strcmp. */
int bale_xsort_by_string(const void *a, size_t na, const void *b,
    size_t nb);
/** Eight bytes first, a big-endian number (an ordinal). */
int bale_xsort_by_u64be(const void *a, size_t na, const void *b,
    size_t nb);

/** @v as eight big-endian bytes at @p, and back. */
void bale_xsort_put_u64be(unsigned char *p, uint64_t v);
uint64_t bale_xsort_get_u64be(const unsigned char *p);

#endif
