/* hdf5_index.h - the compact index beside a bale HDF5 file (see
 * hdf5_index.c). */
#ifndef BALE_HDF5_INDEX_H
#define BALE_HDF5_INDEX_H

#include "bale_backend_util.h"

/** "@h5.bidx"; NULL without memory. */
char *bale_hdf5_index_path(const char *h5);

/** Make the index of the closed file @h5 from its rows, beside @named
 *  (the name it is published under). Rows it cannot hold (a label over
 *  2^31, a sample over 4 GiB) leave no index; any old one is removed
 *  first. @return 0, or -1 with errno (nothing left behind) */
int bale_hdf5_index_write(const char *h5, const char *named, int sync);

#endif
