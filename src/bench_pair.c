/* bench_pair.c - a raw folder's samples paired with an output's by
 * source path, so bench reads the same images from both even when the
 * pack skipped files of the tree (the folder then holds more, and its
 * index i is another image than the output's) or shuffled them. */
#include "bench.h"
#include "journal.h"
#include "walk.h"

#include <stdlib.h>
#include <string.h>

/* The folder's samples by path: an open-addressed table of index + 1. */
struct pair_index {
	const struct bale_walk *walk;
	size_t *slot;
	size_t mask;
};

static size_t pair_hash(const char *path)
{
	return (size_t)bale_fnv1a(BALE_FNV_INIT, path, strlen(path));
}

static int pair_index_build(struct pair_index *x, const struct bale_walk *w)
{
	size_t n = bale_walk_count(w), cap = 16, i, h;

	while (cap < 2 * n + 2)
		cap *= 2;
	x->walk = w;
	x->mask = cap - 1;
	x->slot = calloc(cap, sizeof(*x->slot));
	if (!x->slot)
		return -1;
	for (i = 0; i < n; i++) {
		h = pair_hash(bale_walk_path(w, i)) & x->mask;
		while (x->slot[h])
			h = (h + 1) & x->mask;
		x->slot[h] = i + 1;
	}
	return 0;
}

/* The folder's index of @path, or -1. */
static long pair_find(const struct pair_index *x, const char *path)
{
	size_t h = pair_hash(path) & x->mask;

	for (; x->slot[h]; h = (h + 1) & x->mask)
		if (strcmp(bale_walk_path(x->walk, x->slot[h] - 1), path) == 0)
			return (long)x->slot[h] - 1;
	return -1;
}

/* Each of the first @k samples of @order in @ref: its path's index in
 * the folder. BALE_ENOENT when one has no path there. */
static int pair_map(struct bale_reader *ref, const char *path,
    const struct pair_index *x, const uint64_t *order, uint64_t k,
    uint64_t *out, struct bale_errbuf *err)
{
	struct bale_blob blob;
	uint64_t j;
	long at;

	for (j = 0; j < k; j++) {
		if (bale_reader_get(ref, order[j], &blob) != BALE_OK)
			return bale_errbuf_set(err, BALE_EIO, "%s",
			    bale_reader_errmsg(ref));
		at = blob.path ? pair_find(x, blob.path) : -1;
		if (at < 0)
			return bale_errbuf_set(err, BALE_ENOENT, "sample %llu "
			    "of '%s' (%s) is not in the folder",
			    (unsigned long long)order[j],
			    path, blob.path ? blob.path :
			    "no source path");
		out[j] = (uint64_t)at;
	}
	return BALE_OK;
}

int bench_pair_folder(const char *folder, const struct bench_target *ref,
    const uint64_t *order, uint64_t k, uint64_t **out,
    struct bale_errbuf *err)
{
	struct pair_index x = { NULL, NULL, 0 };
	struct bale_walk *walk = NULL;
	struct bale_reader *r = NULL;
	int rc;

	*out = malloc((k ? k : 1) * sizeof(**out));
	if (!*out || bale_walk_new(&walk) != BALE_OK ||
	    bale_reader_new(&r) != BALE_OK) {
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
		goto out_free;
	}
	rc = bale_walk_folder(walk, folder);
	if (rc != BALE_OK) {
		bale_errbuf_set(err, rc, "%s", bale_walk_errmsg(walk));
		goto out_free;
	}
	if (pair_index_build(&x, walk) != 0) {
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
		goto out_free;
	}
	rc = bale_reader_open(r, ref->format, ref->path);
	if (rc != BALE_OK)
		bale_errbuf_set(err, rc, "%s", bale_reader_errmsg(r));
	else
		rc = pair_map(r, ref->path, &x, order, k, *out, err);
out_free:
	if (rc != BALE_OK) {
		free(*out);
		*out = NULL;
	}
	free(x.slot);
	bale_reader_free(r);
	bale_walk_free(walk);
	return rc;
}
