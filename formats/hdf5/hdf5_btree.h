/* hdf5_btree.h - where a chunked dataset's chunks lie, read from its
 * chunk index in one pass (hdf5_btree.c). */
#ifndef BALE_HDF5_BTREE_H
#define BALE_HDF5_BTREE_H

#include "bale_store.h"

#include <hdf5.h>
#include <stdint.h>

/** The file addresses of chunks [@first, @first + @n) of the
 *  one-dimensional, unfiltered dataset @dset, @chunk bytes each, into
 *  @addr, read from its file (open as @sf) where HDF5 1.10 would walk
 *  its whole index for each one. @return 0, or -1 when the file is not
 *  laid out as expected (the caller asks HDF5 chunk by chunk) */
int bale_hdf5_chunk_addrs(hid_t dset, struct bale_sfile *sf, hsize_t chunk,
    uint64_t first, uint64_t n, haddr_t *addr);

#endif
