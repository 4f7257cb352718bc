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

	while (cap < 2 * n + 2)
		cap *= 2;
	x->path_of = path_of;
	x->ctx = ctx;
	x->mask = cap - 1;
	x->slot = calloc(cap, sizeof(*x->slot));
	if (!x->slot)
		return -1;
	for (i = 0; i < n; i++) {
		h = path_hash(path_of(ctx, i)) & x->mask;
		while (x->slot[h])
			h = (h + 1) & x->mask;
		x->slot[h] = i + 1;
	}
	return 0;
}

long bale_path_index_find(const struct bale_path_index *x, const char *path)
{
	size_t h = path_hash(path) & x->mask;

	for (; x->slot[h]; h = (h + 1) & x->mask)
		if (strcmp(x->path_of(x->ctx, x->slot[h] - 1), path) == 0)
			return (long)x->slot[h] - 1;
	return -1;
}

void bale_path_index_release(struct bale_path_index *x)
{
	free(x->slot);
	x->slot = NULL;
}
