/* outputs.c - the outputs in a folder, and which of them a reader of
 * one takes: one dataset's outputs in several formats hold the same
 * samples, and the format that reads fastest at random is taken. */
#include "bale.h"
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_store.h"
#include "registry.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int outputs_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add @path (NULL: no memory) to *@paths. */
static int outputs_add(char ***paths, size_t *n, char *path)
{
	char **v = path ? realloc(*paths, (*n + 1) * sizeof(*v)) : NULL;

	if (!v) {
		free(path);
		return BALE_ENOMEM;
	}
	*paths = v;
	v[(*n)++] = path;
	return BALE_OK;
}

/* Is @name, in folder @dir, an output (of @format, if not NULL)? Names
 * that start with a dot are bale's working folders (a replacement's
 * staging, an update's delta) or hidden: never an output. */
static int outputs_take(const char *dir, const char *name,
    const char *format, char **path)
{
	size_t len = strlen(dir);
	const char *f;

	*path = NULL;
	if (name[0] == '.')
		return BALE_OK;
	/* in a remote store a probe costs requests: only the names bale
	 * gives its outputs are probed, not every shard beside them */
	if (!bale_store_is_local(dir) && !bale_registry_by_suffix(name))
		return BALE_OK;
	*path = bale_strfmt("%s%s%s", dir, len && dir[len - 1] == '/' ? "" :
	    "/", name);
	if (!*path)
		return BALE_ENOMEM;
	f = bale_output_format(*path);
	if (!f || (format && strcmp(f, format) != 0)) {
		free(*path);
		*path = NULL;
	}
	return BALE_OK;
}

/* Where a folder's listing gathers its outputs. */
struct outputs_walk {
	const char *dir;
	const char *format;
	char **paths;
	size_t n;
};

static int outputs_entry(void *arg, const char *name, int is_dir)
{
	struct outputs_walk *w = arg;
	char *path;
	int rc;

	(void)is_dir;
	rc = outputs_take(w->dir, name, w->format, &path);
	return rc == BALE_OK && path ? outputs_add(&w->paths, &w->n, path) :
	    rc;
}

int bale_outputs_in(const char *dir, const char *format, char ***paths,
    size_t *n)
{
	struct outputs_walk w = { dir, format, NULL, 0 };
	struct bale_errbuf err;
	int rc = bale_store_list(dir, outputs_entry, &w, &err);

	*paths = NULL;
	*n = 0;
	if (rc != BALE_OK) {
		bale_outputs_free(w.paths, w.n);
		return rc == BALE_ENOMEM ? rc : BALE_ENOENT;
	}
	if (w.n > 1)
		qsort(w.paths, w.n, sizeof(char *), outputs_cmp);
	*paths = w.paths;
	*n = w.n;
	return BALE_OK;
}

void bale_outputs_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

/* The dataset name of output @path: its file name less its format's
 * suffix ("data" of "out/data.lmdb"), @len bytes from *@base. */
static size_t outputs_dataset_name(const char *path, const char **base)
{
	const char *format = bale_output_format(path);
	const struct bale_backend *be = format ? bale_backend_find(format) :
	    NULL;
	size_t n, k = be && be->suffix ? strlen(be->suffix) : 0;

	*base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	n = strlen(*base);
	return k && n > k && strcmp(*base + n - k, be->suffix) == 0 ? n - k : n;
}

/* The rank readers take @path's format by (struct bale_backend
 * read_rank; unranked and unknown last, and in an object store a format
 * that reads local files only). */
static unsigned outputs_rank(const char *path)
{
	const char *f = bale_output_format(path);
	const struct bale_backend *be = f ? bale_backend_find(f) : NULL;

	if (be && !(be->caps & BALE_CAP_REMOTE) && !bale_store_is_local(path))
		return UINT_MAX;
	return be && be->read_rank ? be->read_rank : UINT_MAX;
}

/* The first of @paths whose format ranks lowest. */
static size_t outputs_preferred(const char *const *paths, size_t n)
{
	size_t i, best = 0;
	unsigned r, best_rank = UINT_MAX;

	for (i = 0; i < n; i++) {
		r = outputs_rank(paths[i]);
		if (r < best_rank) {
			best = i;
			best_rank = r;
		}
	}
	return best;
}

long bale_output_pick(const char *const *paths, size_t n, char *name,
    size_t cap)
{
	const char *first, *base;
	size_t len, i;

	if (n == 0)
		return -1;
	len = outputs_dataset_name(paths[0], &first);
	for (i = 1; i < n; i++)
		if (outputs_dataset_name(paths[i], &base) != len ||
		    strncmp(base, first, len) != 0)
			return -1;
	if (name && cap)
		snprintf(name, cap, "%.*s", (int)len, first);
	return (long)outputs_preferred(paths, n);
}
