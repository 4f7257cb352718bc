/* hdf5_common.h - what the HDF5 writer (hdf5.c) and reader (hdf5_read.c)
 * share: the string type of bale's files and HDF5's error text. */
#ifndef BALE_HDF5_COMMON_H
#define BALE_HDF5_COMMON_H

#include <hdf5.h>

#define BALE_HDF5_WHY_MAX 256

/* Strings as bale writes them: UTF-8, @size bytes or H5T_VARIABLE. The
 * caller closes the type. */
hid_t bale_hdf5_string_type(size_t size);

/* The innermost message of HDF5's error stack into @why
 * (BALE_HDF5_WHY_MAX bytes); the stack is cleared for the next call. */
void bale_hdf5_why(char *why);

#endif
