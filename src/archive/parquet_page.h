/* parquet_page.h - a Parquet column chunk's pages: each page's header
 * (Thrift, as the footer), its body decompressed (Snappy, gzip, ZSTD or
 * none) into a buffer of the size the header claims, and the
 * RLE/bit-packed hybrid runs its levels and dictionary indices are
 * stored in.
 *
 * Every size is checked before it is used: a header that claims more
 * than the chunk holds, a body that inflates to another size than its
 * header says or past BALE_PQ_PAGE_MAX (a decompression bomb), runs
 * that read past their data: each is refused, saying which.
 */
#ifndef BALE_PARQUET_PAGE_H
#define BALE_PARQUET_PAGE_H

#include "bale_backend_util.h"

#include <stddef.h>
#include <stdint.h>

/* The largest page bale decompresses: images are stored one a value,
 * and a page of them larger than this is damaged or hostile. */
#define BALE_PQ_PAGE_MAX ((uint64_t)1 << 30)

enum bale_pq_page_type {
	BALE_PQ_DATA_PAGE = 0,
	BALE_PQ_INDEX_PAGE = 1,
	BALE_PQ_DICTIONARY_PAGE = 2,
	BALE_PQ_DATA_PAGE_V2 = 3,
};

/* Value encodings bale reads. */
enum bale_pq_encoding {
	BALE_PQ_PLAIN = 0,
	BALE_PQ_PLAIN_DICTIONARY = 2,
	BALE_PQ_RLE = 3,
	BALE_PQ_DELTA_LENGTH_BYTE_ARRAY = 6,
	BALE_PQ_RLE_DICTIONARY = 8,
};

struct bale_pq_page {
	int type;		/* enum bale_pq_page_type */
	uint32_t header_len;	/* bytes of the header itself */
	uint32_t size;		/* its body, uncompressed */
	uint32_t csize;		/* its body, as stored */
	uint32_t num_values;	/* level slots (data), entries (dict) */
	int encoding;		/* of the values */
	/* data page v2: the levels lie before the (compressed) values,
	 * uncompressed */
	uint32_t def_len, rep_len;
	int compressed;		/* v2: the values are compressed */
};

/** Decode the page header at @p (@n bytes at most). @return BALE_OK, or
 *  BALE_EINPUT with @err saying what is wrong */
int bale_pq_page_header(struct bale_pq_page *pg, const void *p, size_t n,
    struct bale_errbuf *err);

/** The @csize bytes at @src, compressed by @codec, into exactly @size
 *  bytes at @dst. @return BALE_OK, BALE_ENOTSUP (a codec bale does not
 *  undo: LZO, Brotli, LZ4), or BALE_EINPUT (damaged, or of another size
 *  than said) with @err set */
int bale_pq_decompress(int codec, const void *src, size_t csize, void *dst,
    size_t size, struct bale_errbuf *err);

/** Could the @csize bytes at @src, compressed by @codec, hold @size
 *  bytes? Asked before room for them is made: Snappy and ZSTD say their
 *  size up front, deflate cannot pass 1032 to 1. @return 1 or 0 */
int bale_pq_decompress_fits(int codec, const void *src, size_t csize,
    size_t size);

/* RLE/bit-packed hybrid runs of @width-bit values. */
struct bale_pq_runs {
	const unsigned char *p, *end;
	int width;
	uint32_t left;		/* values left in the current run */
	int packed;		/* it is bit-packed (else repeated) */
	uint64_t value;		/* a repeated run's value */
	uint32_t bit;		/* a packed run's next bit */
	const unsigned char *run;	/* a packed run's bytes */
};

/** Begin reading runs of @width bits (0..32) in @n bytes at @p. */
void bale_pq_runs_init(struct bale_pq_runs *r, const void *p, size_t n,
    int width);

/** The next value into *@v. @return 0, or -1 (the runs end or are
 *  damaged) */
int bale_pq_runs_next(struct bale_pq_runs *r, uint32_t *v);

/** The bit width of values up to @max (a level's, a dictionary's). */
int bale_pq_bit_width(uint64_t max);

#endif
