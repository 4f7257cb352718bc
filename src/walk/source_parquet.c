/* source_parquet.c - Parquet files as the source, as the Hugging Face
 * datasets library writes them (parquet_rows.h): every row with an
 * image is a sample, in file and row order; its label is the label
 * column's (the class names: parquet_classes.c). The walk lists the
 * rows from their small columns (paths, labels), leaving the images
 * unread where the statistics promise no null image (parquet_walk.c):
 * such a row's size is learnt by the feed, which reads the files front
 * to back (several passes only when the output's order is not theirs:
 * --shuffle; the row groups a --part does not pack are not read) and
 * plans its memory with the file's average image meanwhile. */
#include "kind.h"

#include "bale.h"
#include "bale_store.h"
#include "parquet_walk.h"
#include "shard_set.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const struct bale_source_kind bale_source_parquet;

/* A Parquet file's name: *.parquet. */
static int parquet_is_name(const char *name)
{
	size_t len = strlen(name);

	return len >= 8 && strcasecmp(name + len - 8, ".parquet") == 0;
}

/* Is @path a Parquet file: named *.parquet, its first bytes "PAR1"?
 * (The name first: other sources, objects in a store above all, are
 * not opened for a look.) */
static int parquet_is(const char *path)
{
	unsigned char head[4];
	struct bale_errbuf why;
	uint64_t size;
	size_t got = 0;
	int fd;
	int is;

	if (!parquet_is_name(path))
		return 0;
	fd = bale_store_fd_open(path, &size, &why);
	if (fd < 0)
		return 0;
	is = bale_store_fd_scan(fd, head, sizeof(head), 0, &got, &why) ==
	    BALE_OK && got == sizeof(head) && memcmp(head, "PAR1", 4) == 0;
	bale_store_fd_close(fd);
	return is;
}

/* Add @path to the files found. @return 0, or -1 without memory */
static int parquet_found(struct bale_source *s, const char *path)
{
	char *copy = strdup(path);
	char **more = copy ? realloc(s->found, (s->nfound + 1) *
	    sizeof(*s->found)) : NULL;

	if (!more) {
		free(copy);
		return -1;
	}
	s->found = more;
	s->found[s->nfound++] = copy;
	return 0;
}

/* A file of a set @src names, into s->found. @return 1; 0 when it is
 * not named as Parquet (a brace pattern names any files: not ours);
 * BALE_EINVAL (so named, but not Parquet) or BALE_ENOMEM with @err */
static int parquet_take_named(struct bale_source *s, const char *path,
    struct bale_errbuf *err)
{
	if (!parquet_is_name(path))
		return 0;
	if (!parquet_is(path))
		return bale_errbuf_set(err, BALE_EINVAL, "'%s': not a Parquet "
		    "file", path);
	return parquet_found(s, path) ? BALE_ENOMEM : 1;
}

/* The Parquet files SRC argument @src names (itself, a folder of them,
 * a pattern) into s->found. @return 1, 0 when it names none, or an
 * error */
static int parquet_expand(struct bale_source *s, const char *src,
    struct bale_errbuf *err)
{
	char **paths;
	size_t n, i;
	int rc = bale_file_set(src, parquet_is_name, &paths, &n, err);

	if (rc < 0)
		return rc;
	if (rc == 0)
		return parquet_is(src) ? (parquet_found(s, src) ? BALE_ENOMEM :
		    1) : 0;
	for (i = 0; i < n && rc == 1; i++)
		rc = parquet_take_named(s, paths[i], err);
	bale_shard_set_free(paths, n);
	return rc;
}

static int parquet_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err)
{
	size_t i;
	int rc = 1;

	(void)self;
	for (i = 0; rc == 1 && i < s->npaths; i++) {
		rc = parquet_expand(s, s->paths[i], err);
		if (rc == 0 && i > 0)
			rc = bale_errbuf_set(err, BALE_EINVAL, "'%s': several "
			    "sources must all be Parquet files", s->paths[i]);
	}
	if (rc == BALE_ENOMEM)
		bale_errbuf_set(err, rc, "no memory");
	if (rc != 1) {	/* none found: nothing kept */
		bale_shard_set_free(s->found, s->nfound);
		s->found = NULL;
		s->nfound = 0;
	}
	return s->npaths ? rc : 0;
}

/* The label of @row: its number, or its text's class (-1: none), or
 * BALE_LABEL_NONE in a file without a label column. */
static int64_t parquet_label(const struct bale_walk *w,
    const struct pq_file *f, const struct bale_pq_row *row)
{
	if (f->c.label < 0 || !row->has_label)
		return BALE_LABEL_NONE;
	if (f->c.label_text)
		return bale_pq_walk_label(w, row->label_text, row->label_len);
	return row->label;
}

/* Row @row of file @f's path into @path: image.path, else FILE/ROW. */
static void parquet_row_path(struct bale_buf *path, const struct pq_file *f,
    const struct bale_pq_row *row)
{
	const char *slash;

	bale_buf_reset(path);
	if (row->path && row->path_len) {
		bale_buf_add(path, row->path, row->path_len);
	} else {
		slash = strrchr(f->path, '/');
		bale_buf_printf(path, "%s/%" PRIu64, slash ? slash + 1 :
		    f->path, row->ordinal);
	}
	bale_buf_add(path, "", 1);
}

/* Why row @row of file @f (its label @label) cannot be a sample for its
 * label, or NULL. */
static const char *parquet_label_refusal(const struct pq_file *f,
    const struct bale_pq_row *row, int64_t label)
{
	if (f->c.label < 0)	/* no label column: no row has one */
		return NULL;
	if (!row->has_label)
		return "no label (null)";
	if (f->c.label_text)
		return label < 0 ? "its label names no class" : NULL;
	/* -1: the datasets library's missing ClassLabel, kept as none */
	if (label < BALE_LABEL_NONE || label > WALK_MAX_LABEL)
		return "label outside -1..16777216";
	return NULL;
}

/* bale_pq_walk_rows: row @row of file @f into the walk, or noted
 * skipped with why; with a list file, kept for its lines to pick (the
 * list gives the labels). @path_buf: scratch for the row's path. */
static int parquet_take(struct bale_walk *w, const struct pq_file *f,
    const struct bale_pq_row *row, void *path_buf)
{
	struct bale_buf *path = path_buf;
	int64_t label = parquet_label(w, f, row);
	const char *why = bale_pq_row_refusal(row);
	struct bale_walk_member m;
	int rc;

	parquet_row_path(path, f, row);
	if (path->failed)
		return bale_walk_nomem(w);
	memset(&m, 0, sizeof(m));
	m.kind = &bale_source_parquet;
	m.fd = f->fd;
	m.method = (int)f->c.image;	/* for the feed's passes */
	m.offset = row->ordinal;
	m.size = m.csize = row->len;	/* 0 when unread */
	m.size_guess = f->size_guess;
	m.file_stamp = f->stamp;
	if (w->listed)
		return bale_walk_keep_candidate(w, path->data, why ? NULL : &m,
		    why);
	if (!why)
		why = parquet_label_refusal(f, row, label);
	if (why)
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path->data,
		    why);
	rc = bale_walk_cover_label(w, label);
	if (rc == BALE_OK)
		rc = bale_walk_add_located(w, path->data, label, &m);
	/* rows keep their order: seal as it goes */
	if (rc == BALE_OK && w->nitems >= WALK_SEAL_EVERY)
		rc = bale_walk_seal(w);
	return rc;
}

/* The rows of file @f into the walk. */
static int parquet_rows(struct bale_walk *w, const struct pq_file *f)
{
	struct bale_buf scratch = BALE_BUF_INIT;
	int rc = bale_pq_walk_rows(w, f, &f->c, parquet_take, &scratch);

	bale_buf_release(&scratch);
	return rc;
}

/* File @f's stamp, taken before it is read: its path, size and what
 * changes with its bytes (a modification time, an ETag), hashed; never
 * 0. An update packs the rows of a file whose stamp moved again. */
static int parquet_stamp(struct bale_walk *w, struct pq_file *f)
{
	struct bale_store_stat st;
	struct bale_errbuf err;
	char *text;
	int rc = bale_store_stat(f->path, &st, &err);

	if (rc != BALE_OK)
		return bale_errbuf_set(&w->err, rc, "walk: %s", err.msg);
	text = bale_strfmt("%s\n%" PRIu64 "\n%s", f->path, st.size, st.tag);
	if (!text)
		return bale_walk_nomem(w);
	f->stamp = bale_walk_stamp(text) | 1;
	free(text);
	return BALE_OK;
}

/* What an image of file @m (its column @image) takes on average, as
 * its chunks' uncompressed bytes say (at least 1). */
static uint64_t parquet_size_guess(const struct bale_pq_meta *m, long image)
{
	uint64_t bytes = 0, add;
	size_t g;

	for (g = 0; g < m->ngroups; g++) {
		add = (uint64_t)m->groups[g].chunks[image].inflated;
		bytes += add < UINT64_MAX - bytes ? add : UINT64_MAX - bytes;
	}	/* (saturated: a lying footer) */
	if (m->num_rows <= 0 || bytes < (uint64_t)m->num_rows)
		return 1;
	return bytes / (uint64_t)m->num_rows;
}

/* Open file @f->path for the walk, its footer and columns read. */
static int parquet_open(struct bale_walk *w, struct pq_file *f)
{
	struct bale_errbuf err;
	uint64_t size = 0;
	int rc = bale_walk_open_file(w, f->path, &size);

	if (rc != BALE_OK)
		return rc;
	f->fd = w->archives[w->narchives - 1];
	rc = bale_pq_meta_read(&f->m, f->fd, size, &err);
	if (rc != BALE_OK)
		return bale_errbuf_set(&w->err, rc, "walk: '%s': %s", f->path,
		    err.msg);
	rc = bale_pq_columns_find(&f->m, w->image_column, w->label_column,
	    &f->c, &err);
	if (rc != BALE_OK)
		return bale_errbuf_set(&w->err, rc, "walk: '%s': %s", f->path,
		    err.msg);
	f->size_guess = parquet_size_guess(&f->m, f->c.image);
	return BALE_OK;
}

/* With a list file: its lines pick rows by path, with its labels. */
static int parquet_listed_start(const struct bale_source *s,
    struct bale_walk *w)
{
	w->listed = s->list != NULL;
	w->unlisted = "listed, but no row of the Parquet files has this path";
	return w->listed ? bale_walk_listed_start(w) : BALE_OK;
}

/* Open the source's files into @files, *@n of them: those an update
 * knows unchanged are left unopened, out of @files (their rows stay as
 * the output has them), unless a list file picks rows (its lines must
 * find them all). */
static int parquet_open_all(const struct bale_source *s, struct bale_walk *w,
    struct pq_file *files, size_t *n)
{
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < s->nfound; i++) {
		files[*n].path = s->found[i];
		rc = parquet_stamp(w, &files[*n]);
		if (rc != BALE_OK || (!w->listed &&
		    bale_walk_file_unchanged(w, files[*n].stamp)))
			continue;
		rc = parquet_open(w, &files[(*n)++]);	/* released even
							 * when it fails */
	}
	return rc;
}

static int parquet_scan(const struct bale_source *s, struct bale_walk *w)
{
	struct pq_file *files = calloc(s->nfound ? s->nfound : 1,
	    sizeof(*files));
	size_t i, n = 0;
	int rc;

	bale_errbuf_clear(&w->err);
	rc = files ? parquet_listed_start(s, w) : bale_walk_nomem(w);
	if (rc == BALE_OK)
		rc = parquet_open_all(s, w, files, &n);
	if (rc == BALE_OK && !w->listed)
		rc = bale_pq_walk_classes(w, files, n);
	for (i = 0; rc == BALE_OK && i < n; i++)
		rc = parquet_rows(w, &files[i]);
	if (rc == BALE_OK && w->listed)
		rc = bale_walk_list_members(w, s->list);
	for (i = 0; i < n; i++)
		bale_pq_meta_release(&files[i].m);
	free(files);
	return rc == BALE_OK ? bale_walk_seal_all(w) : rc;
}

const struct bale_source_kind bale_source_parquet = {
	.name = "parquet",
	.what = "Parquet files",
	.caps = BALE_SOURCE_LISTABLE | BALE_SOURCE_STREAMED |
	    BALE_SOURCE_STAMPED | BALE_SOURCE_FILE_ROWS |
	    BALE_SOURCE_COLUMNS,
	.probe = parquet_probe,
	.scan = parquet_scan,
	.read = NULL,	/* rows come from the feed */
	.stream = bale_pq_stream_pass,
};
