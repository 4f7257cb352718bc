/* hdf5_merge.h - the state of an HDF5 merge (hdf5_merge.c), shared with
 * its copying of the images (hdf5_merge_copy.c). */
#ifndef BALE_HDF5_MERGE_H
#define BALE_HDF5_MERGE_H

#include "hdf5_parts.h"
#include "hdf5_rows.h"

#include <hdf5.h>
#include <stdint.h>

/* One part's file, and the rows of "images" it gives. */
struct hdf5_source {
	char *path;		/* PART/NAME.h5 */
	hsize_t dims[BALE_HDF5_MAX_RANK];	/* its "images" extent */
	uint64_t rows;		/* of "images" mapped: bytes when encoded */
};

struct hdf5_merging {
	const struct bale_merge *m;
	struct bale_errbuf *err;
	char *final;
	char *tmp;
	hid_t file;
	struct bale_hdf5_rows rows;
	char *layout;		/* part 0's, every part's */
	hid_t type;		/* of part 0's "images" */
	int rank;
	struct hdf5_source *src;
	uint64_t count;		/* samples so far */
	uint64_t bytes;		/* encoded: image bytes so far */
	char **classes;		/* part 0's class_names */
	hssize_t nclasses;
};

/** Report the innermost HDF5 error: "hdf5: @what '@where': why".
 *  @return BALE_EBACKEND */
int bale_hdf5_merge_fail(struct hdf5_merging *g, const char *what,
    const char *where);

/** "images" in the merged file: the parts' rows copied, block by block,
 *  into a dataset made as part 0's is (chunks, filters). */
int bale_hdf5_merge_copy_images(struct hdf5_merging *g);

#endif
