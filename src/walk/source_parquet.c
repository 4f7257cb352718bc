/* source_parquet.c - Parquet files as the source, as the Hugging Face
 * datasets library writes them (parquet_rows.h): every row with an
 * image is a sample, in file and row order; its label is the label
 * column's, and the class names are those of the ClassLabel in the
 * files' `huggingface` metadata. A row's size is known only once its
 * page is decompressed, so the walk reads every row once to list it,
 * and the feed reads the files again, front to back (several passes
 * only when the output's order is not theirs: --shuffle). */
#include "kind.h"

#include "bale.h"
#include "bale_store.h"
#include "parquet_rows.h"
#include "shard_set.h"
#include "walk_int.h"

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
		rc = !parquet_is(paths[i]) ? bale_errbuf_set(err, BALE_EINVAL,
		    "'%s': not a Parquet file", paths[i]) :
		    parquet_found(s, paths[i]) ? BALE_ENOMEM : 1;
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

/* The JSON array of the label's ClassLabel names in the huggingface
 * metadata of @m, or NULL. */
static const char *parquet_names_json(const struct bale_pq_meta *m,
    const char **end)
{
	const char *hf = bale_pq_meta_value(m, "huggingface");
	const char *v, *vend;

	if (!hf)
		return NULL;
	vend = hf + strlen(hf);
	v = bale_jsonr_find(hf, vend, "info", &vend);
	v = v ? bale_jsonr_find(v, vend, "features", &vend) : NULL;
	v = v ? bale_jsonr_find(v, vend, "label", &vend) : NULL;
	v = v ? bale_jsonr_find(v, vend, "names", &vend) : NULL;
	*end = vend;
	return v && *v == '[' ? v : NULL;
}

/* The class names of file @path (@m) into the walk: the first file's
 * name them, every other file must name the same. */
static int parquet_classes(struct bale_walk *w, const struct bale_pq_meta *m,
    const char *path, int first)
{
	const char *end, *v, *vend;
	const char *cur = parquet_names_json(m, &end);
	size_t k = 0;
	char *name;
	int same = 1;

	while (cur && (v = bale_jsonr_next(&cur, end, &vend)) != NULL) {
		name = bale_jsonr_string(v, vend);
		if (!name)
			return bale_errbuf_set(&w->err, BALE_EINPUT, "walk: "
			    "'%s': a class name of its metadata is not a "
			    "string", path);
		if (first && bale_walk_cover_label(w, (int64_t)k) != BALE_OK) {
			free(name);
			return bale_walk_nomem(w);
		}
		if (first)
			w->classes[k] = name;
		else
			same &= k < w->nclasses && w->classes[k] &&
			    strcmp(w->classes[k], name) == 0;
		if (!first)
			free(name);
		k++;
	}
	if (!first && (!same || k != w->nclasses))
		return bale_errbuf_set(&w->err, BALE_EINPUT, "walk: '%s' names "
		    "other classes than the first file", path);
	return BALE_OK;
}

/* Row @row of file @name (descriptor @fd) into the walk, or noted
 * skipped with why. */
static int parquet_take(struct bale_walk *w, const char *name, int fd,
    const struct bale_pq_row *row, struct bale_buf *path)
{
	struct bale_walk_member m;
	const char *why = NULL;
	int rc;

	bale_buf_reset(path);
	if (row->path && row->path_len)
		bale_buf_add(path, row->path, row->path_len);
	else
		bale_buf_printf(path, "%s/%" PRIu64, name, row->ordinal);
	bale_buf_add(path, "", 1);
	if (path->failed)
		return bale_walk_nomem(w);
	if (!row->bytes)
		why = "no image (null)";
	else if (row->len == 0)
		why = "empty image (0 bytes)";
	else if (!row->has_label)
		why = "no label (null)";
	else if (row->label < 0 || row->label > WALK_MAX_LABEL)
		why = "label outside 0..16777216";
	if (why)
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path->data,
		    why);
	rc = bale_walk_cover_label(w, row->label);
	if (rc != BALE_OK)
		return rc;
	memset(&m, 0, sizeof(m));
	m.kind = &bale_source_parquet;
	m.fd = fd;
	m.offset = row->ordinal;
	m.size = m.csize = row->len;
	rc = bale_walk_add_located(w, path->data, row->label, &m);
	/* rows keep their order: seal as it goes */
	if (rc == BALE_OK && w->nitems >= WALK_SEAL_EVERY)
		rc = bale_walk_seal(w);
	return rc;
}

/* The rows of file @path (@m, open at @fd) into the walk. */
static int parquet_rows(struct bale_walk *w, const char *path, int fd,
    const struct bale_pq_meta *m)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	struct bale_buf scratch = BALE_BUF_INIT;
	struct bale_pq_columns c;
	struct bale_pq_rows r;
	struct bale_pq_row row;
	struct bale_errbuf err;
	int rc = bale_pq_columns_find(m, &c, &err);

	if (rc == BALE_OK && c.label < 0)
		rc = bale_errbuf_set(&err, BALE_EINPUT, "no integer 'label' "
		    "column");
	if (rc != BALE_OK)
		return bale_errbuf_set(&w->err, rc, "walk: '%s': %s", path,
		    err.msg);
	bale_pq_rows_open(&r, fd, m, &c);
	while ((rc = bale_pq_rows_next(&r, &row, &err)) > 0) {
		rc = bale_walk_stopped(w) ? BALE_EINTR :
		    parquet_take(w, name, fd, &row, &scratch);
		if (rc != BALE_OK)
			break;
	}
	bale_pq_rows_close(&r);
	bale_buf_release(&scratch);
	if (rc < 0 && !w->err.rc)
		return bale_errbuf_set(&w->err, rc, "walk: '%s': %s", path,
		    err.msg);
	return rc;
}

static int parquet_file(struct bale_walk *w, const char *path, int first)
{
	struct bale_pq_meta m;
	struct bale_errbuf err;
	uint64_t size = 0;
	int fd;
	int rc = bale_walk_open_file(w, path, &size);

	if (rc != BALE_OK)
		return rc;
	fd = w->archives[w->narchives - 1];
	rc = bale_pq_meta_read(&m, fd, size, &err);
	if (rc != BALE_OK)
		return bale_errbuf_set(&w->err, rc, "walk: '%s': %s", path,
		    err.msg);
	rc = parquet_classes(w, &m, path, first);
	if (rc == BALE_OK)
		rc = parquet_rows(w, path, fd, &m);
	bale_pq_meta_release(&m);
	return rc;
}

static int parquet_scan(const struct bale_source *s, struct bale_walk *w)
{
	size_t i;
	int rc = BALE_OK;

	bale_errbuf_clear(&w->err);
	for (i = 0; rc == BALE_OK && i < s->nfound; i++)
		rc = parquet_file(w, s->found[i], i == 0);
	return rc == BALE_OK ? bale_walk_seal_all(w) : rc;
}

const struct bale_source_kind bale_source_parquet = {
	.name = "parquet",
	.what = "Parquet files",
	.caps = BALE_SOURCE_STREAMED,
	.probe = parquet_probe,
	.scan = parquet_scan,
	.read = NULL,	/* rows come from the feed */
	.stream = bale_pq_stream_pass,
};
