/* png.h - PNG decode and encode through libspng. */
#ifndef BALE_PNG_H
#define BALE_PNG_H

#include "bale_backend_util.h"
#include "image.h"

#include <stddef.h>

/** Read the header chunks of @data: grey is colour type 0 or 4, the
 *  orientation comes from an eXIf chunk before the pixels.
 *  @return BALE_OK, or BALE_EINPUT with @err set */
int bale_png_header(const unsigned char *data, size_t size,
    struct bale_image_info *info, struct bale_errbuf *err);

/** Decode to 8-bit RGB, or RGBA when the image has alpha, or grey when
 *  @keep_grey and it is grey without alpha. 16-bit samples are scaled
 *  to 8, palettes expanded, tRNS applied; gamma is left alone.
 *  @return BALE_OK, BALE_EINPUT when the data is bad (@err set), or
 *  BALE_ENOMEM */
int bale_png_decode(const unsigned char *data, size_t size,
    const struct bale_image_info *info, int keep_grey,
    struct bale_image *out, struct bale_errbuf *err);

/** Encode an RGBA, RGB or grey image (malloc'd result).
 *  @return BALE_OK, BALE_EINPUT when libspng fails (@err set), or
 *  BALE_ENOMEM when no encoder can be made */
int bale_png_encode(const struct bale_image *img, unsigned char **out,
    size_t *size, struct bale_errbuf *err);

#endif
