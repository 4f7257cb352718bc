/* parquet_column.h - one column's values in one row group, a row at a
 * time: its pages read in turn (parquet_page.h), their definition
 * levels telling a value from a null, the values PLAIN, dictionary
 * encoded (PLAIN_DICTIONARY, RLE_DICTIONARY) or, for byte arrays,
 * DELTA_LENGTH_BYTE_ARRAY. Columns of repeated fields are not read
 * (bale's columns are images, paths and labels).
 *
 * A byte array handed over points into the column's page (or its
 * dictionary) and stays valid until the next call.
 *
 * An object's chunk is fetched whole in one request when it is not
 * large (a row group of the datasets library's 100 images is ~11 MB),
 * so the columns a listing reads side by side do not take turns in the
 * object's one read window.
 */
#ifndef BALE_PARQUET_COLUMN_H
#define BALE_PARQUET_COLUMN_H

#include "parquet_meta.h"
#include "parquet_page.h"

#include <stddef.h>
#include <stdint.h>

/* A value: bytes for BYTE_ARRAY, @i for the integer types. */
struct bale_pq_value {
	const unsigned char *bytes;
	uint32_t len;
	int64_t i;
};

struct bale_pq_column {
	int fd;
	const struct bale_pq_leaf *leaf;
	const struct bale_pq_chunk *chunk;
	uint64_t at, end;	/* the next page, the chunk's end */
	struct bale_pq_page pg;
	unsigned char *fetched;	/* an object's chunk, fetched whole, */
	size_t fetchcap;
	int in_memory;		/* when it is (else read by the file's
				 * scan) */
	unsigned char *raw;	/* a page as the scan read it */
	size_t rawcap;
	const unsigned char *stored;	/* the page as stored: in @raw, or
					 * in @fetched */
	unsigned char *body;	/* the page, decompressed */
	size_t bodycap;
	uint32_t left;		/* level slots left in the page */
	struct bale_pq_runs def;
	const unsigned char *vp, *vend;	/* its values */
	/* dictionary encoded values: their indices */
	int dict_page;		/* the page's values index the dictionary */
	struct bale_pq_runs idx;
	/* the dictionary: n values, byte arrays at offsets into @dict */
	unsigned char *dict;
	struct bale_pq_value *entries;
	uint32_t nentries;
	/* DELTA_LENGTH_BYTE_ARRAY: the page's lengths */
	uint32_t *lens;
	size_t nlens, caplens, nextlen;
};

/** Read the column of @leaf in row group chunk @chunk of the Parquet
 *  file @fd (a descriptor of bale_store_fd_open()). @return BALE_OK, or
 *  BALE_ENOTSUP (a repeated column, a type bale does not read) with
 *  @err set */
int bale_pq_column_open(struct bale_pq_column *c, int fd,
    const struct bale_pq_leaf *leaf, const struct bale_pq_chunk *chunk,
    struct bale_errbuf *err);

/** bale_pq_column_open() of column @c read before (or zeroed): the
 *  memory of its pages, and of a chunk fetched whole, is used again (a
 *  file's row groups one after another). */
int bale_pq_column_reopen(struct bale_pq_column *c, int fd,
    const struct bale_pq_leaf *leaf, const struct bale_pq_chunk *chunk,
    struct bale_errbuf *err);

/** The next row's value into @v: 1 a value, 0 a null (the field or a
 *  struct above it), or an error (BALE_EINPUT: damaged, cut short;
 *  BALE_EIO, BALE_ENOMEM, BALE_ENOTSUP) with @err set. */
int bale_pq_column_next(struct bale_pq_column *c, struct bale_pq_value *v,
    struct bale_errbuf *err);

void bale_pq_column_close(struct bale_pq_column *c);

#endif
