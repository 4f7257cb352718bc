/* update_diff.h - what changed in a source since its manifest was
 * written (bale pack --update): each walked file is stat'ed, never read,
 * and found in the manifest by path. Same size, modification time and
 * label: unchanged, kept. Otherwise it is packed again under a new key
 * (replaced), or packed for the first time (added); a manifest sample
 * whose file is gone is removed. A file the manifest lists as skipped,
 * unchanged since (same size and status change time, which a chmod
 * moves too), stays skipped: not tried again. Class indices stay as the
 * manifest has them; class folders it does not know are numbered after
 * them, in sorted order. Objects in a store are not stat'ed: their
 * listing gave each one's size and ETag, whose stamp (bale_walk_stamp)
 * stands for both times. The rows of a Parquet file carry the file's
 * stamp; a file known unchanged was not even listed, and the manifest's
 * rows with its stamp stay, met by no walked sample
 * (bale_walk_file_kept).
 *
 * A folder's walk and a manifest in path order are read side by side,
 * a sample at a time: what the diff keeps grows with what changed, not
 * with the dataset (a bit a sample for what stays, a bit a key for the
 * keys before). A walk out of path order (a list file's) or an older
 * manifest is matched by sorting both by path past memory (xsort.h). */
#ifndef BALE_UPDATE_DIFF_H
#define BALE_UPDATE_DIFF_H

#include "bits.h"
#include "keyset.h"
#include "manifest.h"
#include "walk.h"

#include <stddef.h>
#include <stdint.h>

/* A file to pack, as its stat found it before it was read. */
struct bale_diff_pack {
	uint64_t item;		/* the walk's */
	uint64_t size;
	int64_t mtime_ns;
};

/* A file an update packs, and whether it replaces a sample. */
struct bale_diff_to_pack {
	uint64_t item;		/* the walk's */
	int replaces;
};

/* A file skipped before and unchanged since. */
struct bale_diff_still {
	size_t item;		/* the walk's */
	size_t skip;		/* its manifest skip entry */
};

struct bale_update_diff {
	int64_t *label_map;	/* walk label -> label */
	const char **classes;	/* the class names after the update */
	size_t nclasses;
	uint64_t new_classes;
	struct bale_spill packs;	/* bale_diff_pack, in walk order */
	uint64_t npack;
	struct bale_diff_pack *cache;	/* packs [cache_first, +cache_n) */
	uint64_t cache_first, cache_n;
	struct bale_diff_to_pack *pack;	/* an update's, in walk order */
	size_t cappack;
	struct bale_bits kept;	/* manifest samples that stay, by line */
	uint64_t nkept;
	uint64_t *removed;	/* keys that leave, ascending */
	size_t nremoved, capremoved;
	struct bale_buf gone;	/* paths of samples whose file is gone */
	size_t ngone;
	struct bale_diff_still *still;
	size_t nstill, capstill;
	struct bale_keyset keys_before;	/* the manifest's keys */
	uint64_t added, replaced;
	int sorted;		/* the walk and the manifest came in path
				 * order: they were read side by side, and
				 * can be merged again so */
};

/** Stat every item of @walk below folder @rootfd (-1: the items are
 *  objects, their sizes and stamps as listed) against the manifest
 *  at @manifest, whose head and skips @head holds; with no manifest
 *  (@manifest NULL) every item is to be packed, labelled as walked.
 *  What is packed waits in a file in @spill_dir. @return BALE_OK, or an
 *  error with @err set */
int bale_update_diff(struct bale_update_diff *d, const struct bale_walk *walk,
    int rootfd, const char *manifest, const struct bale_manifest *head,
    const char *spill_dir, struct bale_errbuf *err);

/** The @k-th file packed (in walk order) into @p. @return 0, or -1
 *  with errno */
int bale_update_diff_pack(struct bale_update_diff *d, uint64_t k,
    struct bale_diff_pack *p);

void bale_update_diff_release(struct bale_update_diff *d);

#endif
