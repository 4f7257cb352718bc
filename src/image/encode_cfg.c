/* encode_cfg.c - check the encode settings once, before any worker runs,
 * so a bad combination is a usage error and not 10 000 skipped files. */
#include "encode.h"

#include <stdlib.h>
#include <string.h>

#define ENC_QUALITY_DEFAULT 90
#define ENC_SUBSAMPLING_DEFAULT 420

static int cfg_fail(struct bale_errbuf *err, const char *msg)
{
	return bale_errbuf_set(err, BALE_EINVAL, "%s", msg);
}

static int cfg_colour(const char *s, unsigned char bg[3])
{
	unsigned long v;
	char *end;
	int i;

	if (!s) {
		memset(bg, 255, 3);
		return 0;
	}
	if (*s == '#')
		s++;
	if (strlen(s) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return -1;
	v = strtoul(s, &end, 16);
	bg[0] = (unsigned char)(v >> 16);
	bg[1] = (unsigned char)(v >> 8);
	bg[2] = (unsigned char)v;
	return 0;
}

static int cfg_choice(const char *s, const char *dflt, const char *other,
    int *is_other)
{
	if (!s || strcmp(s, dflt) == 0) {
		*is_other = 0;
		return 0;
	}
	*is_other = 1;
	return strcmp(s, other) == 0 ? 0 : -1;
}

static int cfg_frame(struct bale_geometry *g, const char *frame)
{
	g->frame = BALE_FRAME_NONE;
	if (!frame)
		return 0;
	if (strcmp(frame, "crop") == 0 || strcmp(frame, "center") == 0 ||
	    strcmp(frame, "centre") == 0)
		g->frame = BALE_FRAME_CROP;
	else if (strcmp(frame, "pad") == 0)
		g->frame = BALE_FRAME_PAD;
	else
		return -1;
	return 0;
}

/* pixels WxH: always exactly that size, so scale up when needed and
 * cover the box (crop) unless padding was asked for. */
static int cfg_pixels(struct bale_encode_cfg *c, const char *pixels,
    struct bale_errbuf *err)
{
	struct bale_geometry *g = &c->geom;

	if (g->fit != BALE_FIT_NONE)
		return cfg_fail(err, "pixels sets the size itself; a "
		    "resize does not apply");
	if (bale_geometry_parse_size(pixels, &c->pixels_w, &c->pixels_h))
		return cfg_fail(err, "pixels wants WxH, e.g. 224x224");
	g->fit = BALE_FIT_INSIDE;
	g->w = c->pixels_w;
	g->h = c->pixels_h;
	g->upscale = 1;
	if (g->frame == BALE_FRAME_NONE)
		g->frame = BALE_FRAME_CROP;
	c->keep_grey = 0;
	c->keep_alpha = 0;
	c->keep_unchanged = 0;
	return 0;
}

static int cfg_codec(struct bale_encode_cfg *c,
    const struct bale_encode_opts *o, struct bale_errbuf *err)
{
	c->quality = o->quality ? o->quality : ENC_QUALITY_DEFAULT;
	if (c->quality < 1 || c->quality > 100)
		return cfg_fail(err, "quality must be 1 to 100");
	c->subsampling = o->subsampling ? o->subsampling :
	    ENC_SUBSAMPLING_DEFAULT;
	if (c->subsampling != 444 && c->subsampling != 422 &&
	    c->subsampling != 420)
		return cfg_fail(err, "subsampling must be 444, 422 "
		    "or 420");
	if (cfg_choice(o->color, "rgb", "keep", &c->keep_grey))
		return cfg_fail(err, "color must be rgb or keep");
	if (cfg_choice(o->alpha, "composite", "keep", &c->keep_alpha))
		return cfg_fail(err, "alpha must be composite or "
		    "keep");
	if (cfg_colour(o->background, c->bg))
		return cfg_fail(err, "background wants RRGGBB, e.g. "
		    "ffffff");
	return 0;
}

int bale_encode_cfg_parse(struct bale_encode_cfg *c,
    const struct bale_encode_opts *o, struct bale_errbuf *err)
{
	memset(c, 0, sizeof(*c));
	if (o->resize && bale_geometry_parse(&c->geom, o->resize))
		return cfg_fail(err, "resize wants shorter:N, "
		    "longer:N, exact:WxH or fit:WxH");
	c->geom.upscale = o->upscale;
	if (cfg_frame(&c->geom, o->frame))
		return cfg_fail(err, "the frame must be crop or pad");
	if (cfg_codec(c, o, err))
		return BALE_EINVAL;
	c->keep_unchanged = o->keep_unchanged;
	/* a size limit alone asks for no new pixels: one within it is
	 * stored as it came, never re-encoded */
	c->limits_only = !o->resize && !o->pixels && !o->quality &&
	    !o->subsampling && !o->color && !o->alpha && !o->background &&
	    !o->frame && !o->upscale && !o->keep_unchanged;
	c->max_pixels = o->max_pixels ? o->max_pixels :
	    BALE_MAX_PIXELS_DEFAULT;
	if (o->pixels && cfg_pixels(c, o->pixels, err))
		return BALE_EINVAL;
	return bale_geometry_check(&c->geom, err);
}
