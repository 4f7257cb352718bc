/* walk_files_kept.c - an update of a source whose samples are rows of
 * files stamped as a whole (Parquet): the files whose stamps the
 * output's manifest holds are unchanged since it was written, so the
 * walk lists none of their rows and reads none of their bytes; the
 * update's diff keeps the manifest's samples of those files as they
 * are (update_diff.c). */
#include "walk_int.h"

#include "bale.h"

#include <stdlib.h>
#include <string.h>

int bale_walk_set_known_files(struct bale_walk *w, const uint64_t *stamps,
    size_t n)
{
	free(w->known_files);
	free(w->kept_files);
	w->known_files = malloc((n ? n : 1) * sizeof(*stamps));
	w->kept_files = calloc(n ? n : 1, 1);
	w->nknown_files = n;
	if (!w->known_files || !w->kept_files)
		return BALE_ENOMEM;
	if (n)
		memcpy(w->known_files, stamps, n * sizeof(*stamps));
	return BALE_OK;
}

/* The index of @stamp among the known files, or -1. */
static long kept_find(const struct bale_walk *w, uint64_t stamp)
{
	const uint64_t *at = w->nknown_files ? bsearch(&stamp,
	    w->known_files, w->nknown_files, sizeof(stamp),
	    bale_u64_cmp) : NULL;

	return at ? (long)(at - w->known_files) : -1;
}

int bale_walk_file_unchanged(struct bale_walk *w, uint64_t stamp)
{
	long k = kept_find(w, stamp);

	if (k < 0)
		return 0;
	w->kept_files[k] = 1;
	return 1;
}

int bale_walk_file_kept(const struct bale_walk *w, uint64_t stamp)
{
	long k = kept_find(w, stamp);

	return k >= 0 && w->kept_files[k];
}

void bale_walk_files_kept_release(struct bale_walk *w)
{
	free(w->known_files);
	free(w->kept_files);
	w->known_files = NULL;
	w->kept_files = NULL;
	w->nknown_files = 0;
}
