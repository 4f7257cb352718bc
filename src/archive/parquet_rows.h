/* parquet_rows.h - the rows of a Parquet file as bale takes a dataset
 * from it, front to back: each row's image bytes, its label and the path
 * it names. The Hugging Face layout: an `image` struct of `bytes` and
 * `path`, an integer `label`; a flat binary column serves as the image
 * where there is no struct.
 */
#ifndef BALE_PARQUET_ROWS_H
#define BALE_PARQUET_ROWS_H

#include "parquet_column.h"
#include "parquet_meta.h"
#include "stream_member.h"

#include <stdint.h>

/* The columns a dataset is read from: leaf indices, -1 for none. */
struct bale_pq_columns {
	long image;
	long path;
	long label;
	int label_text;		/* the label column holds class names */
};

/** The columns of @m: the image's bytes (@image, a column or a struct
 *  whose "bytes" it is; NULL: "image.bytes", else the one binary column
 *  that is not text), its path (the struct's "path") and the label
 *  (@label; NULL: "label" where there is one: an integer column, or a
 *  text one naming classes). @return BALE_OK, or BALE_EINPUT with @err
 *  saying why (no such column, one of another type, or several binary
 *  columns to choose from) */
int bale_pq_columns_find(const struct bale_pq_meta *m, const char *image,
    const char *label, struct bale_pq_columns *c, struct bale_errbuf *err);

/* A row. */
struct bale_pq_row {
	uint64_t ordinal;	/* rows before it in the file */
	const unsigned char *bytes;	/* the image's: NULL when null or
					 * unread */
	uint32_t len;
	int unread;		/* the image is there, not read (its size
				 * is learnt when it is: images_unread) */
	const unsigned char *path;	/* NULL: none */
	uint32_t path_len;
	int has_label;
	int64_t label;		/* an integer label's */
	const unsigned char *label_text;	/* a text label's */
	uint32_t label_len;
};

/* A file's rows, read in turn. */
struct bale_pq_rows {
	int fd;
	const struct bale_pq_meta *m;
	struct bale_pq_columns c;
	int images_unread;	/* leave a group's images unread when its
				 * statistics say none is null */
	size_t group;		/* the row group being read, + 1 */
	int64_t left;		/* its rows not read yet */
	uint64_t ordinal;
	struct bale_pq_column col[3];	/* image, path, label */
	int open[3];
};

/** Read the rows of the Parquet file @fd, whose footer is @m, from
 *  columns @c. */
void bale_pq_rows_open(struct bale_pq_rows *r, int fd,
    const struct bale_pq_meta *m, const struct bale_pq_columns *c);

/** After bale_pq_rows_open(): rows of a row group whose image column's
 *  statistics count no null come without their images (row.unread),
 *  which are not read (a listing that needs no image's size reads only
 *  the small columns). */
void bale_pq_rows_images_unread(struct bale_pq_rows *r);

/** The next row into @row (its bytes valid until the next call): 1, 0 at
 *  the end, or an error (BALE_EINPUT: damaged; BALE_ENOTSUP, BALE_EIO,
 *  BALE_ENOMEM) with @err set. */
int bale_pq_rows_next(struct bale_pq_rows *r, struct bale_pq_row *row,
    struct bale_errbuf *err);

/** Why row @row's image cannot be a sample (null, empty), or NULL (an
 *  image left unread is judged when it is read). */
const char *bale_pq_row_refusal(const struct bale_pq_row *row);

/** Between row groups: 1 with the next one's first row and row count
 *  in *@first and *@n, 0 inside a group or past the last. */
int bale_pq_rows_at_group(const struct bale_pq_rows *r, uint64_t *first,
    uint64_t *n);

/** Pass over the row group bale_pq_rows_at_group() told, unread. */
void bale_pq_rows_skip_group(struct bale_pq_rows *r);

void bale_pq_rows_close(struct bale_pq_rows *r);

/** A pass over the Parquet file @fd for the feed (bale_stream_pass_fn):
 *  each row a member (its image in leaf @image, as the listing found
 *  it; a null one refused), its ordinal the row's, its bytes the
 *  image's; a row group none of whose rows @wants is not read. */
int bale_pq_stream_pass(int fd, int image, bale_stream_member_fn fn,
    bale_stream_wants_fn wants, void *ctx, uint64_t *met,
    struct bale_errbuf *err);

#endif
