/* jpeg.h - JPEG decode (with DCT-domain downscaling) and encode through
 * libjpeg-turbo's TurboJPEG API. One handle per thread.
 */
#ifndef BALE_JPEG_H
#define BALE_JPEG_H

#include "bale_backend_util.h"
#include "image.h"

#include <stddef.h>

struct bale_jpeg;

/** 1 for a libjpeg warning (its message, @msg) after which every pixel
 *  is still decoded: stray bytes between segments, odd but readable
 *  headers, common in real collections. Any other loses pixels. Both
 *  decoders (TurboJPEG here, the loader's libjpeg crop) ask this. */
int bale_jpeg_warning_harmless(const char *msg);

int bale_jpeg_new(struct bale_jpeg **out);
void bale_jpeg_free(struct bale_jpeg *j);

/** Read the header of @data. @return BALE_OK, or BALE_EINPUT with @err set */
int bale_jpeg_header(struct bale_jpeg *j, const unsigned char *data,
    size_t size, struct bale_image_info *info, struct bale_errbuf *err);

/** Decode to RGB (grey to one channel when @keep_grey), converting CMYK
 *  and YCCK. When the smallest of the scales 1/2, 1/4, 1/8 that keeps
 *  the image at least @min_w x @min_h (as stored) exists, decode at it.
 *  Corrupt or truncated data fails; warnings that lose no pixels do not.
 *  @return BALE_OK, BALE_EINPUT when the data is bad (@err set), or
 *  BALE_ENOMEM */
int bale_jpeg_decode(struct bale_jpeg *j, const unsigned char *data,
    size_t size, const struct bale_image_info *info, int min_w, int min_h,
    int keep_grey, struct bale_image *out, struct bale_errbuf *err);

/** Encode a grey or RGB image. @subsamp is 444, 422 or 420 (grey
 *  ignores it). The result is malloc'd. @return BALE_OK, BALE_EINPUT
 *  when TurboJPEG refuses (@err set), or BALE_ENOMEM */
int bale_jpeg_encode(struct bale_jpeg *j, const struct bale_image *img,
    int quality, int subsamp, unsigned char **out, size_t *size,
    struct bale_errbuf *err);

/** CMYK (4 channels) to RGB in place, as PIL converts: 255 - (c + k)
 *  with multiplication; Adobe-inverted values when @inverted (an APP14
 *  "Adobe" segment). */
void bale_jpeg_cmyk_to_rgb(struct bale_image *img, int inverted);

#endif
