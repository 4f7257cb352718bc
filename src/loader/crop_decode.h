/* crop_decode.h - one stored sample as a training crop: the region of
 * the image a crop box covers, decoded alone where the format allows,
 * resampled bilinear to the output size (as torchvision's
 * RandomResizedCrop: crop, then PIL's resize(BILINEAR)), mirrored when
 * asked, as RGB.
 *
 * JPEG goes through the libjpeg API (TurboJPEG 2.1 cannot crop): DCT
 * scaling (1/2, 1/4, 1/8) where the scaled box stays at least the
 * output size, jpeg_crop_scanline for the columns, jpeg_skip_scanlines
 * for the rows above, and the rows below never decoded. libjpeg's error
 * exit long-jumps inside the calling thread only. PNG is decoded whole
 * (libspng), then cropped. A --pixels array (.npy, or HDF5's bare rows of
 * a known shape) is cropped as it is. One cropper per thread.
 */
#ifndef BALE_CROP_DECODE_H
#define BALE_CROP_DECODE_H

#include "bale_backend_util.h"

#include <stddef.h>

/** The region of the stored image to take, edges in its pixels. */
struct bale_crop_box {
	double x0, y0, x1, y1;
};

struct bale_cropper;

int bale_cropper_new(struct bale_cropper **out);

/** Start on sample @data: its image's size from the header alone. @w_h:
 *  the shape of bare pixel rows (an output whose info gives
 *  their "shape"), else NULL.
 *  @return BALE_OK, BALE_EINPUT (@err: not an image bale crops, or a
 *  damaged header), BALE_ENOMEM */
int bale_cropper_open(struct bale_cropper *c, const unsigned char *data,
    size_t size, const int *w_h, int *w, int *h, struct bale_errbuf *err);

/** What a crop is made into. */
struct bale_crop_out {
	int w, h;		/* the output size */
	int flip;		/* mirrored left to right */
	int scaling;		/* JPEG may decode at a DCT scale (faster;
				 * close to, not equal to, the unscaled) */
	int context;		/* the resampler may read around the box, as
				 * resizing the whole image, then cropping,
				 * does (eval); else the box alone, as
				 * cropping, then resizing (train) */
	unsigned char *dst;	/* w x h x 3 bytes, rows packed, RGB */
};

/** The box of the image opened last into @out.
 *  @return BALE_OK, BALE_EINPUT (@err: the data does not decode),
 *  BALE_EINVAL (a box outside the image), BALE_ENOMEM */
int bale_cropper_run(struct bale_cropper *c, const struct bale_crop_box *box,
    const struct bale_crop_out *out, struct bale_errbuf *err);

void bale_cropper_free(struct bale_cropper *c);

#endif
