/* encode_flags.h - bale pack's encode-stage flags. */
#ifndef BALE_ENCODE_FLAGS_H
#define BALE_ENCODE_FLAGS_H

#include "bale.h"

#include <getopt.h>

enum encode_longopt {
	OPT_ENC_FIRST = 512,
	OPT_RESIZE = OPT_ENC_FIRST, OPT_CROP, OPT_PAD, OPT_UPSCALE,
	OPT_PIXELS, OPT_QUALITY, OPT_SUBSAMPLING, OPT_COLOR, OPT_ALPHA,
	OPT_BACKGROUND, OPT_KEEP_UNCHANGED, OPT_MAX_PIXELS,
	OPT_ENC_LAST = OPT_MAX_PIXELS,
};

#define ENCODE_LONGOPTS \
	{ "resize", required_argument, NULL, OPT_RESIZE }, \
	{ "crop", required_argument, NULL, OPT_CROP }, \
	{ "pad", no_argument, NULL, OPT_PAD }, \
	{ "upscale", no_argument, NULL, OPT_UPSCALE }, \
	{ "pixels", required_argument, NULL, OPT_PIXELS }, \
	{ "quality", required_argument, NULL, OPT_QUALITY }, \
	{ "subsampling", required_argument, NULL, OPT_SUBSAMPLING }, \
	{ "color", required_argument, NULL, OPT_COLOR }, \
	{ "alpha", required_argument, NULL, OPT_ALPHA }, \
	{ "background", required_argument, NULL, OPT_BACKGROUND }, \
	{ "keep-unchanged", no_argument, NULL, OPT_KEEP_UNCHANGED }, \
	{ "max-pixels", required_argument, NULL, OPT_MAX_PIXELS }

extern const char encode_help[];

/** Apply flag @c (OPT_ENC_FIRST..OPT_ENC_LAST) to @e.
 *  @return 0, or CLI_USAGE after printing why */
int encode_flag(struct bale_encode_opts *e, int c, const char *arg);

#endif
