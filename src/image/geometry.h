/* geometry.h - from a resize request and an image's size to the sizes of
 * each step: scale to, then crop to or pad to.
 *
 * Pure arithmetic, kept apart from the pixels so every mode's output size
 * can be tested exactly.
 */
#ifndef BALE_GEOMETRY_H
#define BALE_GEOMETRY_H

#include "bale.h"
#include "bale_backend_util.h"

#include <stdint.h>

enum bale_fit {
	BALE_FIT_NONE,		/* keep the size */
	BALE_FIT_SHORTER,	/* shorter side becomes N, aspect kept */
	BALE_FIT_LONGER,	/* longer side becomes N, aspect kept */
	BALE_FIT_EXACT,		/* exactly W x H, aspect not kept */
	BALE_FIT_INSIDE,	/* largest size inside W x H, aspect kept */
};

enum bale_frame {
	BALE_FRAME_NONE,
	BALE_FRAME_CROP,	/* centre crop to the box */
	BALE_FRAME_PAD,		/* centre on a box-sized canvas */
};

struct bale_geometry {
	enum bale_fit fit;
	enum bale_frame frame;
	int w, h;		/* the box; shorter/longer: N x N */
	int upscale;		/* allow scaling up (exact always may) */
};

struct bale_plan {
	int scaled_w, scaled_h;	/* after resampling */
	int out_w, out_h;	/* after crop or pad */
	int off_x, off_y;	/* crop: origin in the scaled image;
				 * pad: origin of the image in the canvas */
};

/** Check that @g is a combination bale supports.
 *  @return BALE_OK, or BALE_EINVAL with @err saying what is wrong */
int bale_geometry_check(const struct bale_geometry *g,
    struct bale_errbuf *err);

/** The sizes for an image of @w x @h (display orientation). */
void bale_geometry_plan(const struct bale_geometry *g, int w, int h,
    struct bale_plan *p);

/** Parse "shorter:N", "longer:N", "exact:WxH" or "fit:WxH" into @g.
 *  @return 0, or -1 when @s is not one of them */
int bale_geometry_parse(struct bale_geometry *g, const char *s);

/** Parse "WxH" with 1 <= W, H <= 65535. @return 0 or -1 */
int bale_geometry_parse_size(const char *s, int *w, int *h);

#endif
