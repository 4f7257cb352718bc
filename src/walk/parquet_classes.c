/* parquet_classes.c - the class names of a Parquet source: the
 * ClassLabel names of the Hugging Face metadata, in their order (the
 * labels index them as they are), or, when the label column holds class
 * names as text, every name it holds, sorted by code point as
 * torchvision sorts class folders (a label is then its name's index):
 * the label columns are read once more for them, alone. */
#include "parquet_walk.h"

#include "bale.h"

#include <stdlib.h>
#include <string.h>

/* The JSON array of the label's ClassLabel names in the huggingface
 * metadata of @m, or NULL. */
static const char *classes_names_json(const struct bale_pq_meta *m,
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

/* The ClassLabel names of file @f into the walk: the first file's name
 * them, every other file must name the same. */
static int classes_named(struct bale_walk *w, const struct pq_file *f,
    int first)
{
	const char *end, *v, *vend;
	const char *cur = classes_names_json(&f->m, &end);
	size_t k = 0;
	char *name;
	int same = 1;

	while (cur && (v = bale_jsonr_next(&cur, end, &vend)) != NULL) {
		name = bale_jsonr_string(v, vend);
		if (!name)
			return bale_errbuf_set(&w->err, BALE_EINPUT, "walk: "
			    "'%s': a class name of its metadata is not a "
			    "string", f->path);
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
		    "other classes than the first file", f->path);
	return BALE_OK;
}

/* Text @p (@len bytes) against class name @name, by code point. */
static int classes_cmp(const unsigned char *p, uint32_t len,
    const char *name)
{
	size_t n = strlen(name);
	int c = memcmp(p, name, len < n ? len : n);

	if (c == 0 && len != n)
		return len < n ? -1 : 1;
	return c;
}

/* Where text @p (@len bytes) is or belongs among the walk's sorted
 * names; *@found says which. */
static size_t classes_search(const struct bale_walk *w,
    const unsigned char *p, uint32_t len, int *found)
{
	size_t lo = 0, hi = w->nclasses, mid;
	int c;

	*found = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = classes_cmp(p, len, w->classes[mid]);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int64_t bale_pq_walk_label(const struct bale_walk *w,
    const unsigned char *text, uint32_t len)
{
	int found;
	size_t at = classes_search(w, text, len, &found);

	return found ? (int64_t)at : -1;
}

/* Text label @p (@len bytes) among the walk's names, in its place. */
static int classes_add(struct bale_walk *w, const unsigned char *p,
    uint32_t len)
{
	int found;
	size_t at = classes_search(w, p, len, &found);
	char *name;

	if (found || memchr(p, 0, len))	/* a NUL: named by no class */
		return BALE_OK;
	if (w->nclasses >= (size_t)WALK_MAX_LABEL)
		return bale_errbuf_set(&w->err, BALE_EINPUT, "walk: over "
		    "%lld classes named", (long long)WALK_MAX_LABEL);
	name = strndup((const char *)p, len);
	if (!name || bale_walk_cover_label(w, (int64_t)w->nclasses) !=
	    BALE_OK) {
		free(name);
		return bale_walk_nomem(w);
	}
	memmove(&w->classes[at + 1], &w->classes[at],
	    (w->nclasses - 1 - at) * sizeof(*w->classes));
	w->classes[at] = name;
	return BALE_OK;
}

/* bale_pq_walk_rows: a row's text label among the walk's names. */
static int classes_take(struct bale_walk *w, const struct pq_file *f,
    const struct bale_pq_row *row, void *ctx)
{
	(void)f;
	(void)ctx;
	return row->has_label ? classes_add(w, row->label_text,
	    row->label_len) : BALE_OK;
}

/* The names file @f's label column holds, into the walk's. */
static int classes_of_texts(struct bale_walk *w, const struct pq_file *f)
{
	struct bale_pq_columns only = { -1, -1, f->c.label, 1 };

	return bale_pq_walk_rows(w, f, &only, classes_take, NULL);
}

int bale_pq_walk_classes(struct bale_walk *w, struct pq_file *files,
    size_t n)
{
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < n; i++)
		if ((files[i].c.label < 0) != (files[0].c.label < 0))
			rc = bale_errbuf_set(&w->err, BALE_EINPUT, "walk: '%s' "
			    "has %s label column, '%s' %s: a dataset is "
			    "labelled or not (pack them apart)", files[i].path,
			    files[i].c.label < 0 ? "no" : "a", files[0].path,
			    files[0].c.label < 0 ? "none" : "one");
		else if (files[i].c.label_text != files[0].c.label_text)
			rc = bale_errbuf_set(&w->err, BALE_EINPUT, "walk: '%s' "
			    "labels its rows otherwise than '%s' (text or "
			    "numbers)", files[i].path, files[0].path);
	if (n && files[0].c.label < 0)	/* unlabelled: no classes */
		return rc;
	for (i = 0; rc == BALE_OK && i < n; i++)
		rc = files[0].c.label_text ? classes_of_texts(w, &files[i]) :
		    classes_named(w, &files[i], i == 0);
	return rc;
}
