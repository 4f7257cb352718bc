/* hdf5_parts.h - what bale merge and bale pack --update share on HDF5:
 * reading the rows and attributes of a bale file, and making an
 * "images" that is a virtual dataset over runs of other files' images.
 * Callers run on one thread (HDF5 is not thread-safe here). */
#ifndef BALE_HDF5_PARTS_H
#define BALE_HDF5_PARTS_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#define BALE_HDF5_MAX_RANK 4	/* pixels: N x H x W x 3 */

/** String attribute @name of @file, or NULL; H5free_memory() it. */
char *bale_hdf5_attr_str(hid_t file, const char *name);

/** The "count" attribute, or -1. */
int64_t bale_hdf5_attr_count(hid_t file);

/* Every per-sample row of a bale file, read whole. */
struct bale_hdf5_rowset {
	uint64_t n;
	int64_t *labels;
	uint32_t *crcs;
	char *keys;		/* n keys of keylen bytes, not terminated */
	size_t keylen;
	char **paths;
	uint64_t *offsets;	/* n + 1, the "encoded" layout's; else NULL */
};

/** Read @n rows of @file (offsets too when @with_offsets).
 *  @return BALE_OK, BALE_ENOMEM, or another code (HDF5's stack or a
 *  missing dataset says why) */
int bale_hdf5_rowset_read(struct bale_hdf5_rowset *s, hid_t file, uint64_t n,
    int with_offsets);

/** Row @i's key, terminated, into @key (@cap bytes). @return 0 or -1 */
int bale_hdf5_rowset_key(const struct bale_hdf5_rowset *s, uint64_t i,
    char *key, size_t cap);

/** Rows [@first, @first + @count) of the @n only: s->n is @count, and
 *  the offsets are the @count + 1 from @first. */
int bale_hdf5_rowset_read_range(struct bale_hdf5_rowset *s, hid_t file,
    uint64_t n, uint64_t first, uint64_t count, int with_offsets);

void bale_hdf5_rowset_free(struct bale_hdf5_rowset *s);

/* Rows merge and update read from a file at once: their memory stays
 * flat whatever the file holds. */
#define BALE_HDF5_ROWS_STEP 65536

/* A window of rows (@s, from row @first of the file); BALE_OK goes on. */
typedef int bale_hdf5_rows_fn(void *ctx, const struct bale_hdf5_rowset *s,
    uint64_t first);

/** The @n rows of @file, BALE_HDF5_ROWS_STEP at a time, each window to
 *  @fn. @return BALE_OK, @fn's code, or a read's (as
 *  bale_hdf5_rowset_read()'s) with *@read_failed set */
int bale_hdf5_rowset_each(hid_t file, uint64_t n, int with_offsets,
    bale_hdf5_rows_fn *fn, void *ctx, int *read_failed);

/* Rows [src_start, + count) of the "images" of @file (named as HDF5
 * will look for it: from the virtual file's folder), whose extent is
 * @src_dims, as rows [vstart, ...) of a virtual "images". */
struct bale_hdf5_map {
	const char *file;
	hsize_t src_dims[BALE_HDF5_MAX_RANK];
	uint64_t src_start;
	uint64_t vstart;
	uint64_t count;
};

/** Create "images" in @file: @rank dimensions, @dims (the first the
 *  total rows), of @type, as a virtual dataset of the @n mappings @maps.
 *  @return the dataset, or a negative id */
hid_t bale_hdf5_vds_create(hid_t file, hid_t type, int rank,
    const hsize_t *dims, const struct bale_hdf5_map *maps, size_t n);

#endif
