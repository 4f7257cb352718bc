/* parquet_meta.h - a Parquet file's footer (its FileMetaData) as bale
 * needs it to read images and labels: the schema's columns (leaves, each
 * with its dotted path and its definition and repetition levels), the
 * row groups and, in each, where every column's pages lie and how they
 * are compressed, and the key-value metadata (where the Hugging Face
 * datasets library keeps its features).
 *
 * The footer is decoded with the limits of thrift_compact.h, and every
 * offset and count is checked against the file before it is kept: a
 * footer that points outside the file, a schema whose children do not
 * add up or a column chunk that names another column than the schema's
 * is refused, saying which.
 */
#ifndef BALE_PARQUET_META_H
#define BALE_PARQUET_META_H

#include "bale_backend_util.h"

#include <stddef.h>
#include <stdint.h>

/* Physical types. */
enum bale_pq_type {
	BALE_PQ_BOOLEAN = 0,
	BALE_PQ_INT32 = 1,
	BALE_PQ_INT64 = 2,
	BALE_PQ_INT96 = 3,
	BALE_PQ_FLOAT = 4,
	BALE_PQ_DOUBLE = 5,
	BALE_PQ_BYTE_ARRAY = 6,
	BALE_PQ_FIXED_LEN_BYTE_ARRAY = 7,
};

/* Page compression codecs. */
enum bale_pq_codec {
	BALE_PQ_UNCOMPRESSED = 0,
	BALE_PQ_SNAPPY = 1,
	BALE_PQ_GZIP = 2,
	BALE_PQ_LZO = 3,
	BALE_PQ_BROTLI = 4,
	BALE_PQ_LZ4 = 5,
	BALE_PQ_ZSTD = 6,
	BALE_PQ_LZ4_RAW = 7,
};

/* The footer's bounds: larger ones are refused as damaged or hostile. */
#define BALE_PQ_FOOTER_MAX ((uint64_t)256 << 20)
#define BALE_PQ_MAX_LEVEL 64	/* nesting of the schema */

/* A column: a leaf of the schema. */
struct bale_pq_leaf {
	char *path;		/* its names joined with '.': "image.bytes" */
	int type;		/* enum bale_pq_type */
	int converted;		/* its converted type, or -1 */
	int max_def;		/* optional and repeated ancestors, itself
				 * included */
	int max_rep;		/* repeated ones */
};

/* A column's pages in one row group. */
struct bale_pq_chunk {
	int codec;		/* enum bale_pq_codec */
	int64_t num_values;
	int64_t inflated;	/* its pages' bytes uncompressed */
	int64_t null_count;	/* its nulls, as its statistics say; -1: not
				 * said */
	uint64_t start;		/* its first page (the dictionary's when it
				 * has one) */
	uint64_t size;		/* its pages' bytes, as stored */
};

struct bale_pq_group {
	int64_t num_rows;
	struct bale_pq_chunk *chunks;	/* one per leaf, in leaf order */
};

struct bale_pq_meta {
	int64_t num_rows;
	struct bale_pq_leaf *leaves;
	size_t nleaves;
	struct bale_pq_group *groups;
	size_t ngroups;
	char **keys;		/* key-value metadata */
	char **values;		/* NULL where a key has none */
	size_t nkv;
};

/** Read the footer of the Parquet file @fd (@size bytes; a descriptor
 *  of bale_store_fd_open()) into @m. @return BALE_OK, BALE_EINPUT (not
 *  Parquet, or damaged: @err says how), BALE_EIO, BALE_ENOMEM */
int bale_pq_meta_read(struct bale_pq_meta *m, int fd, uint64_t size,
    struct bale_errbuf *err);

/** Decode the @n bytes of FileMetaData at @p, of a file of @file_size
 *  bytes whose pages end at @data_end. @return as bale_pq_meta_read() */
int bale_pq_meta_decode(struct bale_pq_meta *m, const void *p, size_t n,
    uint64_t data_end, struct bale_errbuf *err);

/** The value of key @key, or NULL. */
const char *bale_pq_meta_value(const struct bale_pq_meta *m, const char *key);

/** The leaf whose path is @path, or -1. */
long bale_pq_meta_leaf(const struct bale_pq_meta *m, const char *path);

void bale_pq_meta_release(struct bale_pq_meta *m);

#endif
