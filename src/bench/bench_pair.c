/* bench_pair.c - a raw folder's samples paired with an output's by
 * source path, so bench reads the same images from both even when the
 * pack skipped files of the tree (the folder then holds more, and its
 * index i is another image than the output's) or shuffled them. */
#include "bench.h"
#include "path_index.h"
#include "walk.h"

#include "bale_store.h"

#include <stdlib.h>
#include <string.h>

static const char *pair_walk_path(const void *walk, size_t i,
    struct bale_buf *scratch)
{
	return bale_walk_path(walk, i, scratch);
}

/* The folder's paths, indexed: walked on disk, listed in a store. */
static int pair_index(const char *folder, struct bale_walk *walk,
    struct bale_path_index *x, struct bale_errbuf *err)
{
	int rc = bale_store_is_local(folder) ?
	    bale_walk_folder(walk, folder) :
	    bale_walk_bucket(walk, folder, NULL);

	if (rc != BALE_OK)
		return bale_errbuf_set(err, rc, "%s", bale_walk_errmsg(walk));
	if (bale_path_index_build(x, bale_walk_count(walk), pair_walk_path,
	    walk) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	return BALE_OK;
}

/* Each of the first @k samples of @order in @ref: its path's index in
 * the folder. BALE_ENOENT when one has no path there. */
static int pair_map(struct bale_reader *ref, const char *path,
    struct bale_path_index *x, const uint64_t *order, uint64_t k,
    uint64_t *out, struct bale_errbuf *err)
{
	struct bale_blob blob;
	uint64_t j;
	long at;

	for (j = 0; j < k; j++) {
		if (bale_reader_get(ref, order[j], &blob) != BALE_OK)
			return bale_errbuf_set(err, BALE_EIO, "%s",
			    bale_reader_errmsg(ref));
		at = blob.path ? bale_path_index_find(x, blob.path) : -1;
		if (at == -2)
			return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
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

int bale_bench_pair_folder(const char *folder, const struct bench_target *ref,
    const uint64_t *order, uint64_t k, uint64_t **out,
    struct bale_errbuf *err)
{
	struct bale_path_index x = BALE_PATH_INDEX_INIT;
	struct bale_walk *walk = NULL;
	struct bale_reader *r = NULL;
	int rc;

	*out = malloc((k ? k : 1) * sizeof(**out));
	if (!*out || bale_walk_new(&walk) != BALE_OK ||
	    bale_reader_new(&r) != BALE_OK) {
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
		goto out_free;
	}
	rc = pair_index(folder, walk, &x, err);
	if (rc != BALE_OK)
		goto out_free;
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
	bale_path_index_release(&x);
	bale_reader_free(r);
	bale_walk_free(walk);
	return rc;
}
