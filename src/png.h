/* png.h - PNG decode and encode through libspng. */
#ifndef BALE_PNG_H
#define BALE_PNG_H

#include "image.h"

#include <stddef.h>

/** Read the header chunks of @data: grey is colour type 0 or 4, the
 *  orientation comes from an eXIf chunk before the pixels.
 *  @return 0, or 1 with @why set */
int bale_png_header(const unsigned char *data, size_t size,
    struct bale_image_info *info, char *why, size_t cap);

/** Decode to 8-bit RGB, or RGBA when the image has alpha, or grey when
 *  @keep_grey and it is grey without alpha. 16-bit samples are scaled
 *  to 8, palettes expanded, tRNS applied; gamma is left alone.
 *  @return 0, 1 when the data is bad (@why set), -1 when out of memory */
int bale_png_decode(const unsigned char *data, size_t size,
    const struct bale_image_info *info, int keep_grey,
    struct bale_image *out, char *why, size_t cap);

/** Encode an RGBA, RGB or grey image (malloc'd result).
 *  @return 0, 1 when libspng fails (@why set), -1 when no encoder can
 *  be made */
int bale_png_encode(const struct bale_image *img, unsigned char **out,
    size_t *size, char *why, size_t cap);

#endif
