/* encode_flags.c - turn bale pack's encode flags into bale_encode_opts.
 * Only the syntax of numbers is checked here; the library checks the
 * rest (and the combinations) and its message is printed. */
#include "encode_flags.h"

#include "cli.h"

#include <stdint.h>
#include <string.h>

const char encode_help[] =
"Encode stage (default: store each file's bytes as they are). JPEG and\n"
"PNG are decoded; any other file is skipped with a reason:\n"
"      --resize MODE     shorter:N, longer:N (aspect kept), exact:WxH\n"
"                        (stretched), fit:WxH (inside the box, aspect\n"
"                        kept); Lanczos-3, anti-aliased, never enlarges\n"
"                        except exact: or with --upscale\n"
"      --crop center     with shorter:N / fit:WxH: centre crop to NxN / WxH\n"
"                        (fit then covers the box)\n"
"      --pad             with longer:N / fit:WxH: centre on an NxN / WxH\n"
"                        canvas of --background\n"
"      --upscale         let shorter/longer/fit enlarge small images\n"
"      --pixels WxH      store decoded RGB uint8 arrays of exactly WxH\n"
"                        (cover and crop; with --pad fit and pad): .npy\n"
"                        in wds and lmdb, an N x H x W x 3 dataset in hdf5\n"
"      --quality Q       JPEG quality, 1..100 (default 90)\n"
"      --subsampling S   chroma subsampling 444, 422 or 420 (default 420)\n"
"      --color C         rgb: grey images become RGB (default); keep\n"
"      --alpha A         composite on --background (default), or keep\n"
"                        (RGBA is stored as PNG)\n"
"      --background RGB  hex colour, e.g. 000000 (default ffffff)\n"
"      --keep-unchanged  store the original bytes of an image that no\n"
"                        setting changes, instead of re-encoding it\n"
"      --max-pixels N    skip images with more pixels, judged from the\n"
"                        header (default 100000000; 0: no limit); alone,\n"
"                        it re-encodes nothing\n"
"EXIF orientation is always applied, and output carries no metadata.\n";

static int enc_int(const char *flag, const char *arg, int lo, int hi,
    int *out)
{
	uint64_t v;

	if (cli_parse_u64(arg, &v) != 0 || v < (uint64_t)lo ||
	    v > (uint64_t)hi)
		return cli_usage_error("pack", "%s wants %d..%d", flag, lo,
		    hi);
	*out = (int)v;
	return 0;
}

static int enc_max_pixels(struct bale_encode_opts *e, const char *arg)
{
	uint64_t v;

	if (cli_flag_number("pack", "--max-pixels", arg, &v, 0) != 0)
		return CLI_USAGE;
	e->max_pixels = v ? v : UINT64_MAX;
	return 0;
}

int encode_flag(struct bale_encode_opts *e, int c, const char *arg)
{
	switch (c) {
	case OPT_RESIZE: e->resize = arg; return 0;
	case OPT_CROP:
		if (strcmp(arg, "center") != 0 && strcmp(arg, "centre") != 0)
			return cli_usage_error("pack", "--crop wants center");
		e->frame = "crop";
		return 0;
	case OPT_PAD: e->frame = "pad"; return 0;
	case OPT_UPSCALE: e->upscale = 1; return 0;
	case OPT_PIXELS: e->pixels = arg; return 0;
	case OPT_QUALITY: return enc_int("--quality", arg, 1, 100, &e->quality);
	case OPT_SUBSAMPLING:
		return enc_int("--subsampling", arg, 0, 444, &e->subsampling);
	case OPT_COLOR: e->color = arg; return 0;
	case OPT_ALPHA: e->alpha = arg; return 0;
	case OPT_BACKGROUND: e->background = arg; return 0;
	case OPT_KEEP_UNCHANGED: e->keep_unchanged = 1; return 0;
	case OPT_MAX_PIXELS: return enc_max_pixels(e, arg);
	default: return cli_usage_error("pack", "bad option");
	}
}
