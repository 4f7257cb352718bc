/* parquet_rows.c - a Parquet file's rows, column by column in step: the
 * image's, the path's and the label's column readers of one row group
 * at a time (parquet_column.c), the next group's opened when one ends. */
#include "parquet_rows.h"

#include "bale.h"
#include "bale_store.h"

#include <stdlib.h>
#include <string.h>

enum { ROW_IMAGE, ROW_PATH, ROW_LABEL, ROW_COLUMNS };

/* Is leaf @l a column of bytes (not text)? */
static int columns_is_binary(const struct bale_pq_leaf *l)
{
	return l->type == BALE_PQ_BYTE_ARRAY && l->converted != 0 &&
	    l->max_rep == 0;	/* 0: UTF8 */
}

static int columns_is_text(const struct bale_pq_leaf *l)
{
	return l->type == BALE_PQ_BYTE_ARRAY && l->converted == 0 &&
	    l->max_rep == 0;
}

static int columns_is_integer(const struct bale_pq_leaf *l)
{
	return (l->type == BALE_PQ_INT32 || l->type == BALE_PQ_INT64) &&
	    l->max_rep == 0;
}

/* The one binary leaf of @m, -1 for none, -2 for several. */
static long columns_only_binary(const struct bale_pq_meta *m)
{
	long found = -1;
	size_t i;

	for (i = 0; i < m->nleaves; i++)
		if (columns_is_binary(&m->leaves[i]))
			found = found == -1 ? (long)i : -2;
	return found;
}

/* The image column named @name (NULL: the default), into c->image. */
static int columns_image(const struct bale_pq_meta *m, const char *name,
    struct bale_pq_columns *c, struct bale_errbuf *err)
{
	char *bytes;

	if (!name) {
		c->image = bale_pq_meta_leaf(m, "image.bytes");
		if (c->image < 0)
			c->image = columns_only_binary(m);
		if (c->image == -2)
			return bale_errbuf_set(err, BALE_EINPUT, "several "
			    "binary columns and no 'image' struct: which holds "
			    "the images?");
		if (c->image < 0 || !columns_is_binary(&m->leaves[c->image]))
			return bale_errbuf_set(err, BALE_EINPUT, "no column of "
			    "image bytes (an 'image' struct of 'bytes' and "
			    "'path', or one binary column)");
		return BALE_OK;
	}
	c->image = bale_pq_meta_leaf(m, name);
	if (c->image < 0) {	/* a struct named: its bytes */
		bytes = bale_strfmt("%s.bytes", name);
		if (!bytes)
			return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
		c->image = bale_pq_meta_leaf(m, bytes);
		free(bytes);
	}
	if (c->image < 0)
		return bale_errbuf_set(err, BALE_EINPUT, "no column '%s'",
		    name);
	if (!columns_is_binary(&m->leaves[c->image]))
		return bale_errbuf_set(err, BALE_EINPUT, "column '%s' does not "
		    "hold bytes", m->leaves[c->image].path);
	return BALE_OK;
}

/* The path beside image column c->image: the struct's "path". */
static long columns_path(const struct bale_pq_meta *m, long image)
{
	const char *leaf = m->leaves[image].path;
	size_t n = strlen(leaf);
	char *path;
	long k;

	if (n < 6 || strcmp(leaf + n - 6, ".bytes") != 0)
		return -1;
	path = bale_strfmt("%.*s.path", (int)(n - 6), leaf);
	k = path ? bale_pq_meta_leaf(m, path) : -1;
	free(path);
	return k >= 0 && columns_is_text(&m->leaves[k]) ? k : -1;
}

int bale_pq_columns_find(const struct bale_pq_meta *m, const char *image,
    const char *label, struct bale_pq_columns *c, struct bale_errbuf *err)
{
	int rc = columns_image(m, image, c, err);
	long k;

	if (rc != BALE_OK)
		return rc;
	c->path = columns_path(m, c->image);
	k = bale_pq_meta_leaf(m, label ? label : "label");
	if (label && k < 0)
		return bale_errbuf_set(err, BALE_EINPUT, "no column '%s'",
		    label);
	c->label_text = k >= 0 && columns_is_text(&m->leaves[k]);
	if (label && !c->label_text && !columns_is_integer(&m->leaves[k]))
		return bale_errbuf_set(err, BALE_EINPUT, "column '%s' holds "
		    "neither integers nor class names", label);
	c->label = k >= 0 && (columns_is_integer(&m->leaves[k]) ||
	    c->label_text) ? k : -1;
	return BALE_OK;
}

void bale_pq_rows_open(struct bale_pq_rows *r, int fd,
    const struct bale_pq_meta *m, const struct bale_pq_columns *c)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->m = m;
	r->c = *c;
}

void bale_pq_rows_images_unread(struct bale_pq_rows *r)
{
	r->images_unread = 1;
}

/* Between row groups the columns keep their memory for the next. */
static void rows_close_group(struct bale_pq_rows *r)
{
	memset(r->open, 0, sizeof(r->open));
}

/* Open the next row group's columns. @return 1, 0 past the last, or an
 * error */
static int rows_next_group(struct bale_pq_rows *r, struct bale_errbuf *err)
{
	const long leaf[ROW_COLUMNS] = { r->c.image, r->c.path, r->c.label };
	const struct bale_pq_group *g;
	int k, rc;

	rows_close_group(r);
	if (r->group >= r->m->ngroups)
		return 0;
	g = &r->m->groups[r->group++];
	r->left = g->num_rows;
	for (k = 0; k < ROW_COLUMNS; k++) {
		if (leaf[k] < 0 || (k == ROW_IMAGE && r->images_unread &&
		    g->chunks[leaf[k]].null_count == 0))
			continue;
		rc = bale_pq_column_reopen(&r->col[k], r->fd,
		    &r->m->leaves[leaf[k]], &g->chunks[leaf[k]], err);
		if (rc != BALE_OK)
			return rc;
		r->open[k] = 1;
	}
	return 1;
}

/* Column @k's value of the row into @v: 1, 0 null or no such column,
 * or an error. */
static int rows_value(struct bale_pq_rows *r, int k, struct bale_pq_value *v,
    struct bale_errbuf *err)
{
	memset(v, 0, sizeof(*v));
	return r->open[k] ? bale_pq_column_next(&r->col[k], v, err) : 0;
}

int bale_pq_rows_next(struct bale_pq_rows *r, struct bale_pq_row *row,
    struct bale_errbuf *err)
{
	struct bale_pq_value v[ROW_COLUMNS];
	int got[ROW_COLUMNS];
	int k, rc;

	while (r->left <= 0) {
		rc = rows_next_group(r, err);
		if (rc <= 0)
			return rc;
	}
	for (k = 0; k < ROW_COLUMNS; k++) {
		got[k] = rows_value(r, k, &v[k], err);
		if (got[k] < 0)
			return got[k];
	}
	r->left--;
	memset(row, 0, sizeof(*row));
	row->ordinal = r->ordinal++;
	row->unread = !r->open[ROW_IMAGE];
	if (got[ROW_IMAGE]) {
		row->bytes = v[ROW_IMAGE].bytes ? v[ROW_IMAGE].bytes :
		    (const unsigned char *)"";
		row->len = v[ROW_IMAGE].len;
	}
	if (got[ROW_PATH]) {
		row->path = v[ROW_PATH].bytes;
		row->path_len = v[ROW_PATH].len;
	}
	row->has_label = got[ROW_LABEL];
	row->label = v[ROW_LABEL].i;
	if (got[ROW_LABEL] && r->c.label_text) {
		row->label_text = v[ROW_LABEL].bytes ? v[ROW_LABEL].bytes :
		    (const unsigned char *)"";
		row->label_len = v[ROW_LABEL].len;
	}
	return 1;
}

const char *bale_pq_row_refusal(const struct bale_pq_row *row)
{
	if (row->unread)
		return NULL;
	if (!row->bytes)
		return "no image (null)";
	if (row->len == 0)
		return "empty image (0 bytes)";
	return NULL;
}

int bale_pq_rows_at_group(const struct bale_pq_rows *r, uint64_t *first,
    uint64_t *n)
{
	if (r->left > 0 || r->group >= r->m->ngroups)
		return 0;
	*first = r->ordinal;
	*n = (uint64_t)r->m->groups[r->group].num_rows;
	return 1;
}

void bale_pq_rows_skip_group(struct bale_pq_rows *r)
{
	r->ordinal += (uint64_t)r->m->groups[r->group].num_rows;
	r->group++;
}

void bale_pq_rows_close(struct bale_pq_rows *r)
{
	int k;

	for (k = 0; k < ROW_COLUMNS; k++)	/* zeroed, or read */
		bale_pq_column_close(&r->col[k]);
	rows_close_group(r);
}

/* Pass over the row groups ahead none of whose rows @wants. */
static void stream_skip_unwanted(struct bale_pq_rows *r,
    bale_stream_wants_fn wants, void *ctx, uint64_t *met)
{
	uint64_t first, n;

	while (wants && bale_pq_rows_at_group(r, &first, &n) &&
	    !wants(ctx, first, n)) {
		bale_pq_rows_skip_group(r);
		*met += n;
	}
}

int bale_pq_stream_pass(int fd, int image, bale_stream_member_fn fn,
    bale_stream_wants_fn wants, void *ctx, uint64_t *met,
    struct bale_errbuf *err)
{
	struct bale_stream_member mb;
	struct bale_pq_columns c;
	struct bale_pq_rows r;
	struct bale_pq_meta m;
	struct bale_pq_row row;
	int rc;

	*met = 0;
	rc = bale_pq_meta_read(&m, fd, bale_store_fd_size(fd), err);
	if (rc != BALE_OK)
		return rc;
	if (image < 0 || (size_t)image >= m.nleaves ||
	    !columns_is_binary(&m.leaves[image])) {	/* changed since */
		bale_pq_meta_release(&m);
		return bale_errbuf_set(err, BALE_EINPUT, "its image column is "
		    "not where the listing found it (did the file change?)");
	}
	c = (struct bale_pq_columns){ image, -1, -1, 0 };
	bale_pq_rows_open(&r, fd, &m, &c);
	for (;;) {
		stream_skip_unwanted(&r, wants, ctx, met);
		rc = bale_pq_rows_next(&r, &row, err);
		if (rc <= 0)
			break;
		(*met)++;
		memset(&mb, 0, sizeof(mb));
		mb.name = "";
		mb.kind = BALE_TAR_FILE;
		mb.size = row.len;
		mb.ordinal = row.ordinal;
		mb.bytes = row.bytes;
		/* the listing skipped it, unless it left it unread */
		mb.refused = bale_pq_row_refusal(&row);
		rc = fn(ctx, NULL, &mb);
		if (rc != BALE_OK)
			break;
	}
	bale_pq_rows_close(&r);
	bale_pq_meta_release(&m);
	return rc;
}
