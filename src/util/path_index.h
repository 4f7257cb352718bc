/* path_index.h - which of n paths is this one? An open-addressed hash
 * table of indices, the paths kept where they are (a walk's arena, a
 * manifest's), reached through a callback. */
#ifndef BALE_PATH_INDEX_H
#define BALE_PATH_INDEX_H

#include "bale_backend_util.h"

#include <stddef.h>

/* Path @i, in place or decoded into @scratch (a walk's); NULL without
 * memory. */
typedef const char *bale_path_of_fn(const void *ctx, size_t i,
    struct bale_buf *scratch);

struct bale_path_index {
	size_t *slot;		/* index + 1; 0 is empty */
	size_t mask;
	bale_path_of_fn *path_of;
	const void *ctx;
	struct bale_buf scratch;
};

#define BALE_PATH_INDEX_INIT { NULL, 0, NULL, NULL, BALE_BUF_INIT }

/** Index paths 0..@n-1, path_of(@ctx, i) each. @return 0, or -1
 *  without memory */
int bale_path_index_build(struct bale_path_index *x, size_t n,
    bale_path_of_fn *path_of, const void *ctx);

/** The index of @path, -1 when it is not among them, -2 without
 *  memory. */
long bale_path_index_find(struct bale_path_index *x, const char *path);

void bale_path_index_release(struct bale_path_index *x);

#endif
