/* npy.h - the header of numpy's .npy format (version 1.0) for a uint8
 * H x W x C array, so packed pixel arrays open with numpy.load and
 * webdataset's own decoder. */
#ifndef BALE_NPY_H
#define BALE_NPY_H

#include <stddef.h>

/** The header, padded to 64 bytes as numpy writes it, into @buf (at
 *  least BALE_NPY_HEADER_MAX bytes). @return its length */
size_t bale_npy_header(char *buf, int h, int w, int c);

#define BALE_NPY_HEADER_MAX 128

#endif
