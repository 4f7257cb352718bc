/* hdf5_rows.h - the per-sample datasets of the HDF5 backend (labels,
 * crc32, keys, paths and, for the "encoded" layout, offsets), appended as
 * the run goes: rows wait in memory until a checkpoint writes them, so
 * the file holds exactly the rows its last checkpoint covers. Callers
 * hold the HDF5 lock (the writer's single thread). */
#ifndef BALE_HDF5_ROWS_H
#define BALE_HDF5_ROWS_H

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <hdf5.h>
#include <stdint.h>

struct bale_hdf5_rows {
	hid_t file;
	int with_offsets;	/* offsets[N+1] into the images bytes */
	hid_t offsets, labels, crcs, keys, paths;
	size_t keylen;		/* fixed key width, set by the first row */
	uint64_t in_file;	/* rows written to the file */
	uint64_t pending;	/* rows added since, waiting in memory */
	struct bale_buf b_offsets, b_labels, b_crcs, b_keys, b_paths;
	struct bale_buf b_index;	/* each pending row's sample position */
};

/** Create the datasets, empty (offsets holds its leading 0).
 *  @return 0 or -1 (the HDF5 error stack says why) */
int bale_hdf5_rows_create(struct bale_hdf5_rows *r, hid_t file,
    int with_offsets);

/** Reopen the datasets of a file left by an earlier run and cut them back
 *  to @rows rows. @return 0, or -1 when they are missing or shorter */
int bale_hdf5_rows_reopen(struct bale_hdf5_rows *r, hid_t file,
    int with_offsets, uint64_t rows);

/** Queue one row; @end is the images offset past the sample (encoded).
 *  @return 0, -1 for a key of another width, -2 without memory */
int bale_hdf5_rows_add(struct bale_hdf5_rows *r, uint64_t index,
    uint64_t end, int64_t label, uint32_t crc, const char *key,
    const char *path);

/** Sample position of row @row, which must be pending. */
uint64_t bale_hdf5_rows_index(const struct bale_hdf5_rows *r, uint64_t row);

/** Write the pending rows below row number @upto to the file.
 *  @return 0 or -1 */
int bale_hdf5_rows_write(struct bale_hdf5_rows *r, uint64_t upto);

/** Read rows [0, n) of crc32 and (with offsets) offsets[0..n] into new
 *  arrays. @return 0 or -1 */
int bale_hdf5_rows_read(const struct bale_hdf5_rows *r, uint64_t n,
    uint32_t **crcs, uint64_t **offsets);

void bale_hdf5_rows_release(struct bale_hdf5_rows *r);

/** Element @i of the 1-D vlen uint8 dataset @ds into *@buf (grown as
 *  needed), its length in *@len. @return 0 or -1 */
int bale_hdf5_read_vlen(hid_t ds, uint64_t i, unsigned char **buf,
    size_t *cap, size_t *len);

/** Bytes [@off, @off + @n) of the 1-D uint8 dataset @ds into @out.
 *  @return 0 or -1 */
int bale_hdf5_read_bytes(hid_t ds, uint64_t off, uint64_t n, void *out);

#endif
