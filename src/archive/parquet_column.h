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
 * A local file's column chunk is mapped, not read: a page is
 * decompressed straight from the page cache, and an uncompressed one
 * is used where it lies (each copy counts: an image dataset is
 * gigabytes of values). An object's chunk is fetched whole in one
 * request when it is not large (a row group's, the datasets library's
 * 100 images), so the columns read side by side do not take turns in
 * the object's one read window.
 */
#ifndef BALE_PARQUET_COLUMN_H
#define BALE_PARQUET_COLUMN_H

#include "parquet_meta.h"
#include "parquet_page.h"
#include "snappy_view.h"

#include <stddef.h>
#include <stdint.h>

/* A value: bytes for BYTE_ARRAY, @i for the integer types. */
struct bale_pq_value {
	const unsigned char *bytes;	/* NULL when read for its length
					 * alone (bale_pq_column_copy()) */
	uint32_t len;
	int64_t i;
	uint64_t at;		/* so read: where its bytes lie in its page */
};

struct bale_pq_column {
	int fd;
	const struct bale_pq_leaf *leaf;
	const struct bale_pq_chunk *chunk;
	uint64_t at, end;	/* the next page, the chunk's end */
	struct bale_pq_page pg;
	unsigned char *raw;	/* a page as stored, read */
	size_t rawcap;
	const unsigned char *stored;	/* the page as stored: @raw, or in
					 * @map */
	unsigned char *body;	/* the page, decompressed */
	size_t bodycap;
	const unsigned char *page;	/* the page's levels and values:
					 * @body, or @stored when they are
					 * not compressed */
	unsigned char *map;	/* a local file's chunk, mapped, or an
				 * object's, fetched (NULL: read by
				 * windows), from file offset @mapoff */
	size_t maplen;
	uint64_t mapoff;
	int fetched;		/* @map is fetched (free), not mapped */
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
	/* lengths only (bale_pq_column_sizes_only()) */
	int sizes_only;
	int sparse;		/* this page's lengths are in @lens, its
				 * Snappy block not decompressed */
	uint64_t vpos;		/* where the next value lies in the block */
	unsigned char *levels;	/* a v1 page's levels, read through it */
	size_t levelscap;
	int inflated;		/* decompressed after all (into @page), for
				 * a copy the view found too costly */
	struct bale_snappy_view view;
};

/** Read the column of @leaf in row group chunk @chunk of the Parquet
 *  file @fd (a descriptor of bale_store_fd_open()). @return BALE_OK, or
 *  BALE_ENOTSUP (a repeated column, a type bale does not read) with
 *  @err set */
int bale_pq_column_open(struct bale_pq_column *c, int fd,
    const struct bale_pq_leaf *leaf, const struct bale_pq_chunk *chunk,
    struct bale_errbuf *err);

/** The next row's value into @v: 1 a value, 0 a null (the field or a
 *  struct above it), or an error (BALE_EINPUT: damaged, cut short;
 *  BALE_EIO, BALE_ENOMEM, BALE_ENOTSUP) with @err set. */
int bale_pq_column_next(struct bale_pq_column *c, struct bale_pq_value *v,
    struct bale_errbuf *err);

/** From now on, where a page of byte arrays tells their lengths without
 *  being decompressed (PLAIN values in a Snappy block, read where it
 *  lies: snappy_view.h), give each value's length alone, its bytes NULL:
 *  what a listing needs of a page of images. Other pages are read as
 *  ever. */
void bale_pq_column_sizes_only(struct bale_pq_column *c);

/** The bytes of @v, the value the last bale_pq_column_next() gave, into
 *  @dst (@v->len bytes): from its page, or through the Snappy block of a
 *  page read for its lengths alone (decompressed then, if that costs
 *  less). @return BALE_OK, or an error (BALE_EINPUT: damaged) with @err
 *  set */
int bale_pq_column_copy(struct bale_pq_column *c,
    const struct bale_pq_value *v, void *dst, struct bale_errbuf *err);

void bale_pq_column_close(struct bale_pq_column *c);

#endif
