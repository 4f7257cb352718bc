/* encode.h - the encode stage: decode, orient, resize, crop or pad,
 * re-encode. Settings are parsed once; each worker thread has its own
 * encoder (codec handles are not shared). */
#ifndef BALE_ENCODE_H
#define BALE_ENCODE_H

#include "bale.h"
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "geometry.h"

#include <stddef.h>
#include <stdint.h>

struct bale_encode_cfg {
	struct bale_geometry geom;
	int pixels_w, pixels_h;	/* 0: encoded output */
	int quality, subsampling;
	int keep_grey, keep_alpha, keep_unchanged;
	int limits_only;	/* only limits were set: an image within them
				 * keeps its bytes */
	unsigned char bg[3];
	uint64_t max_pixels;
};

/** Check and parse @o. @return BALE_OK, or BALE_EINVAL with @err set */
int bale_encode_cfg_parse(struct bale_encode_cfg *c,
    const struct bale_encode_opts *o, struct bale_errbuf *err);

/** The result of one sample. */
struct bale_encoded {
	unsigned char *data;	/* malloc'd, or the input when kept */
	size_t size;
	const char *ext;	/* "jpg", "png", "npy"; NULL: as the input */
	int kept;		/* @data is the input itself */
	struct bale_errbuf err;	/* why it failed: BALE_EINPUT (skip the
				 * sample) or BALE_ENOMEM */
};

struct bale_encoder;

int bale_encoder_new(struct bale_encoder **out,
    const struct bale_encode_cfg *c);

/** Transform the file bytes @in. @return BALE_OK, BALE_EINPUT when the
 *  file must be skipped, or BALE_ENOMEM (@out->err says why) */
int bale_encoder_run(struct bale_encoder *e, const unsigned char *in,
    size_t size, struct bale_encoded *out);

void bale_encoder_free(struct bale_encoder *e);

#endif
