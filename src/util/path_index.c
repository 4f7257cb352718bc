/* path_index.c - which of n paths is this one (path_index.h). */
#include "path_index.h"

#include "hash.h"

#include <stdlib.h>
#include <string.h>

static size_t path_hash(const char *path)
{
	return (size_t)bale_fnv1a(BALE_FNV_INIT, path, strlen(path));
}

int bale_path_index_build(struct bale_path_index *x, size_t n,
    bale_path_of_fn *path_of, const void *ctx)
{
	size_t cap = 16, i, h;
	const char *path;

	while (cap < 2 * n + 2)
		cap *= 2;
	x->path_of = path_of;
	x->ctx = ctx;
	x->mask = cap - 1;
	x->slot = calloc(cap, sizeof(*x->slot));
	if (!x->slot)
		return -1;
	for (i = 0; i < n; i++) {
		path = path_of(ctx, i, &x->scratch);
		if (!path)
			return -1;
		h = path_hash(path) & x->mask;
		while (x->slot[h])
			h = (h + 1) & x->mask;
		x->slot[h] = i + 1;
	}
	return 0;
}

long bale_path_index_find(struct bale_path_index *x, const char *path)
{
	size_t h = path_hash(path) & x->mask;
	const char *at;

	for (; x->slot[h]; h = (h + 1) & x->mask) {
		at = x->path_of(x->ctx, x->slot[h] - 1, &x->scratch);
		if (!at)
			return -2;
		if (strcmp(at, path) == 0)
			return (long)x->slot[h] - 1;
	}
	return -1;
}

void bale_path_index_release(struct bale_path_index *x)
{
	free(x->slot);
	x->slot = NULL;
	bale_buf_release(&x->scratch);
}
