/* update_diff.h - what changed in a source since its manifest was
 * written (bale pack --update): each walked file is stat'ed, never read,
 * and found in the manifest by path. Same size, modification time and
 * label: unchanged, kept. Otherwise it is packed again under a new key
 * (replaced), or packed for the first time (added); a manifest sample
 * whose file is gone is removed. A file the manifest lists as skipped,
 * unchanged since (same size and status change time, which a chmod
 * moves too), stays skipped: not tried again. Class indices stay as the manifest has
 * them; class folders it does not know are numbered after them, in
 * sorted order. */
#ifndef BALE_UPDATE_DIFF_H
#define BALE_UPDATE_DIFF_H

#include "manifest.h"
#include "walk.h"

#include <stddef.h>
#include <stdint.h>

struct bale_update_diff {
	uint64_t *size;		/* per walk item, from its stat */
	int64_t *mtime_ns;
	int64_t *ctime_ns;	/* any change to the file moves it */
	int64_t *label_map;	/* walk label -> label */
	const char **classes;	/* the class names after the update */
	size_t nclasses;
	uint64_t new_classes;
	uint64_t *pack;		/* walk items to pack, in walk order */
	unsigned char *pack_replaces;	/* 1: it replaces a sample */
	size_t npack;
	size_t *kept;		/* manifest samples kept, in its order */
	size_t nkept;
	uint64_t *removed;	/* keys that leave, ascending */
	size_t nremoved;
	size_t *gone;		/* manifest samples whose file is gone */
	size_t ngone;
	size_t *still_walk;	/* walk items skipped before, unchanged */
	size_t *still_skip;	/* their manifest skip entries */
	size_t nstill;
	uint64_t added, replaced;
};

/** Stat every item of @walk below folder @rootfd. With no manifest
 *  (@m NULL) every item is to be packed, labelled as walked. @return 0,
 *  or -1 without memory */
int bale_update_diff(struct bale_update_diff *d, const struct bale_walk *walk,
    int rootfd, const struct bale_manifest *m);

void bale_update_diff_release(struct bale_update_diff *d);

#endif
