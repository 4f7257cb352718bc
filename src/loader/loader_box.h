/* loader_box.h - where the loader crops each sample, and whether it
 * flips it: a function of (seed, epoch, position) alone, so batches do
 * not depend on thread count or timing.
 *
 * Training draws the box as torchvision's RandomResizedCrop.get_params
 * does (area uniform in scale x the image's, log-aspect uniform in
 * ratio, 10 tries, then the centre fallback) and flips with p = 0.5.
 * Evaluation is Resize(resize) then CenterCrop(out), taken as one box of
 * the stored image. */
#ifndef BALE_LOADER_BOX_H
#define BALE_LOADER_BOX_H

#include "crop_decode.h"

#include <stdint.h>

struct bale_loader_box_cfg {
	int train;
	int out_w, out_h;
	int resize;		/* eval: the shorter side first */
	double scale[2];	/* train: share of the area */
	double ratio[2];	/* train: aspect ratio w / h */
};

/** A random stream of its own for (@seed, @epoch, @pos). */
struct bale_loader_rng {
	uint64_t s;
};

void bale_loader_rng_init(struct bale_loader_rng *r, uint64_t seed,
    uint64_t epoch, uint64_t pos);

/** Uniform in [@lo, @hi). */
double bale_loader_rng_uniform(struct bale_loader_rng *r, double lo,
    double hi);

/** The box of a @w x @h image and the flip, drawn from @r. With
 *  @context (eval) the resampler may read around the box, as resizing
 *  the whole image before cropping does. */
void bale_loader_box(const struct bale_loader_box_cfg *c, int w, int h,
    struct bale_loader_rng *r, struct bale_crop_box *box, int *flip);

/** The box @b of an image shown with EXIF orientation @o (1..8), whose
 *  stored pixels are @w x @h, as a box of the stored pixels. */
void bale_loader_box_stored(struct bale_crop_box *b, int o, int w, int h);

#endif
