/* parquet_walk.c - the rows of one file of a Parquet source, each to
 * the walk's taker (the listing's, the text labels' collector), with the
 * walk's stop and a file's damage told as the walk's error. The images
 * of a row group whose statistics count no null are not read: neither
 * taker needs their bytes, and their sizes are learnt by the feed (the
 * listing then reads the small columns alone: a tenth of the time, and
 * of an object's bytes). */
#include "parquet_walk.h"

#include "bale.h"

int bale_pq_walk_rows(struct bale_walk *w, const struct pq_file *f,
    const struct bale_pq_columns *c, bale_pq_row_fn take, void *ctx)
{
	struct bale_pq_rows r;
	struct bale_pq_row row;
	struct bale_errbuf err;
	int rc;

	bale_pq_rows_open(&r, f->fd, &f->m, c);
	bale_pq_rows_images_unread(&r);
	while ((rc = bale_pq_rows_next(&r, &row, &err)) > 0) {
		rc = bale_walk_stopped(w) ? BALE_EINTR : take(w, f, &row, ctx);
		if (rc != BALE_OK)
			break;
	}
	bale_pq_rows_close(&r);
	if (rc < 0 && !w->err.rc)
		return bale_errbuf_set(&w->err, rc, "walk: '%s': %s", f->path,
		    err.msg);
	return rc;
}
