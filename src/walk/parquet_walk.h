/* parquet_walk.h - what the files of the Parquet source share
 * (source_parquet.c lists the rows, parquet_classes.c names the
 * classes, parquet_walk.c reads a file's rows for both). */
#ifndef BALE_PARQUET_WALK_H
#define BALE_PARQUET_WALK_H

#include "parquet_rows.h"
#include "walk_int.h"

/* One Parquet file of the source, open for the walk's life. */
struct pq_file {
	const char *path;
	int fd;
	struct bale_pq_meta m;
	struct bale_pq_columns c;
	uint64_t stamp;		/* its rows' (bale_walk_member.file_stamp) */
	uint64_t size_guess;	/* its images' average size */
};

/** Takes a row of file @f: BALE_OK, or the walk's error. */
typedef int (*bale_pq_row_fn)(struct bale_walk *w, const struct pq_file *f,
    const struct bale_pq_row *row, void *ctx);

/** Each row of file @f, read from columns @c, to @take, until the walk
 *  is stopped. @return BALE_OK, or the walk's error (a damaged file
 *  named in it) */
int bale_pq_walk_rows(struct bale_walk *w, const struct pq_file *f,
    const struct bale_pq_columns *c, bale_pq_row_fn take, void *ctx);

/** The classes of @n files into the walk: the ClassLabel names in their
 *  `huggingface` metadata (every file naming the same), or, where the
 *  label column holds text, the names its rows hold, sorted as
 *  torchvision sorts class folders; none where the files have no label
 *  column (all must have one, or none). @return BALE_OK or the walk's
 *  error */
int bale_pq_walk_classes(struct bale_walk *w, struct pq_file *files,
    size_t n);

/** The label a text label names: its class's index, or -1. */
int64_t bale_pq_walk_label(const struct bale_walk *w,
    const unsigned char *text, uint32_t len);

#endif
