/* hdf5_pixels.h - the "pixels" layout of the HDF5 backend: images as an
 * N x H x W x 3 uint8 dataset, one image a chunk, so f["images"][i] in
 * h5py is image i as a numpy array. Callers hold the HDF5 lock. */
#ifndef BALE_HDF5_PIXELS_H
#define BALE_HDF5_PIXELS_H

#include <hdf5.h>
#include <stdint.h>

/** Create "images" for @n images of @h x @w x 3 in @file; @deflate 1..9
 *  adds the shuffle and deflate filters (0: none). @return the dataset
 *  or a negative id */
hid_t bale_hdf5_pixels_create(hid_t file, uint64_t n, int h, int w,
    int deflate);

/** Write image @row (h * w * 3 bytes), growing the dataset when needed.
 *  @return 0 or -1 */
int bale_hdf5_pixels_put(hid_t images, uint64_t row, const unsigned char *px);

/** Set the number of images to @n. @return 0 or -1 */
int bale_hdf5_pixels_resize(hid_t images, uint64_t n);

/** The image size the dataset holds. @return 0, or -1 when it is not
 *  an N x H x W x 3 uint8 dataset */
int bale_hdf5_pixels_shape(hid_t images, uint64_t *n, int *h, int *w);

/** Read image @row into @px. @return 0 or -1 */
int bale_hdf5_pixels_get(hid_t images, uint64_t row, unsigned char *px);

#endif
