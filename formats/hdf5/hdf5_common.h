/* hdf5_common.h - what the HDF5 writer (hdf5.c), reader (hdf5_read.c)
 * and merge (hdf5_merge.c) share: the string type of bale's files, its
 * root attributes, whole-dataset reads and HDF5's error text. */
#ifndef BALE_HDF5_COMMON_H
#define BALE_HDF5_COMMON_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#define BALE_HDF5_WHY_MAX 256

/* Strings as bale writes them: UTF-8, @size bytes or H5T_VARIABLE. The
 * caller closes the type. */
hid_t bale_hdf5_string_type(size_t size);

/* The root attributes of a bale file: bale_version, layout,
 * layout_version (1), count and, when there are any, class_names.
 * @return 0 or -1 (HDF5's error stack says why) */
int bale_hdf5_write_attrs(hid_t file, const char *layout, int64_t count,
    char *const *classes, size_t nclasses);

/* Every element of the 1-D dataset @name, which must hold exactly @n, as
 * @type into a new array of @n + 1 elements of @elem bytes (the last
 * zeroed). Its extent is checked before anything is allocated: a file
 * does not choose how much memory bale takes.
 * @return the array, or NULL with *@why BALE_EINVAL (missing, or not @n
 * elements), BALE_ENOMEM or BALE_EBACKEND (HDF5's stack says why) */
void *bale_hdf5_read_all(hid_t file, const char *name, hid_t type,
    uint64_t n, size_t elem, int *why);

/* bale_hdf5_read_all() of rows [@first, @first + @count) only (an array
 * of @count + 1). */
void *bale_hdf5_read_rows(hid_t file, const char *name, hid_t type,
    uint64_t n, uint64_t first, uint64_t count, size_t elem, int *why);

/* A new file at @path, as every bale HDF5 file is made (no times, the
 * 1.8 format at least); < 0 on failure, HDF5's stack says why. */
hid_t bale_hdf5_file_create(const char *path);

/* The innermost message of HDF5's error stack into @why
 * (BALE_HDF5_WHY_MAX bytes); the stack is cleared for the next call. */
void bale_hdf5_why(char *why);

#endif
