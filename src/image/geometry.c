/* geometry.c - output sizes for every resize mode, in integer arithmetic
 * so a size never depends on floating-point rounding. */
#include "geometry.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GEOM_MAX_SIDE 65535

/* @side scaled by @num / @den, rounded to nearest, at least 1. */
static int geom_scale(int side, int num, int den)
{
	int64_t v = ((int64_t)side * num + den / 2) / den;

	return v < 1 ? 1 : (int)v;
}

int bale_geometry_check(const struct bale_geometry *g,
    struct bale_errbuf *err)
{
	if (g->fit == BALE_FIT_NONE && g->frame == BALE_FRAME_NONE)
		return BALE_OK;
	if (g->fit == BALE_FIT_NONE)
		return bale_errbuf_set(err, BALE_EINVAL, "a crop or pad frame "
		    "needs a resize");
	if (g->w < 1 || g->h < 1 || g->w > GEOM_MAX_SIDE ||
	    g->h > GEOM_MAX_SIDE)
		return bale_errbuf_set(err, BALE_EINVAL,
		    "a resize size must be 1 to 65535 pixels");
	if (g->fit == BALE_FIT_EXACT && g->frame != BALE_FRAME_NONE)
		return bale_errbuf_set(err, BALE_EINVAL, "resize exact: gives "
		    "W x H already; a crop or pad frame does not apply");
	if (g->fit == BALE_FIT_SHORTER && g->frame == BALE_FRAME_PAD)
		return bale_errbuf_set(err, BALE_EINVAL, "the pad frame goes "
		    "with resize fit: or longer: (shorter: would crop)");
	if (g->fit == BALE_FIT_LONGER && g->frame == BALE_FRAME_CROP)
		return bale_errbuf_set(err, BALE_EINVAL, "the crop frame goes "
		    "with resize shorter: or fit: (longer: fits inside)");
	return BALE_OK;
}

/* Scale so that the image covers (@cover) or fits inside the box. */
static void geom_box(const struct bale_geometry *g, int w, int h, int cover,
    struct bale_plan *p)
{
	int width_limited = (int64_t)g->w * h <= (int64_t)g->h * w;

	if (cover)
		width_limited = (int64_t)g->w * h >= (int64_t)g->h * w;
	if (width_limited) {
		p->scaled_w = g->w;
		p->scaled_h = geom_scale(h, g->w, w);
	} else {
		p->scaled_h = g->h;
		p->scaled_w = geom_scale(w, g->h, h);
	}
}

static void geom_scaled(const struct bale_geometry *g, int w, int h,
    struct bale_plan *p)
{
	int n = g->w;

	switch (g->fit) {
	case BALE_FIT_NONE:
		p->scaled_w = w;
		p->scaled_h = h;
		return;
	case BALE_FIT_EXACT:
		p->scaled_w = g->w;
		p->scaled_h = g->h;
		return;
	case BALE_FIT_SHORTER:
	case BALE_FIT_LONGER:
		if ((w <= h) == (g->fit == BALE_FIT_SHORTER)) {
			p->scaled_w = n;
			p->scaled_h = geom_scale(h, n, w);
		} else {
			p->scaled_h = n;
			p->scaled_w = geom_scale(w, n, h);
		}
		break;
	case BALE_FIT_INSIDE:
		geom_box(g, w, h, g->frame == BALE_FRAME_CROP, p);
		break;
	}
	if (!g->upscale && (p->scaled_w > w || p->scaled_h > h)) {
		p->scaled_w = w;
		p->scaled_h = h;
	}
}

void bale_geometry_plan(const struct bale_geometry *g, int w, int h,
    struct bale_plan *p)
{
	geom_scaled(g, w, h, p);
	p->out_w = p->scaled_w;
	p->out_h = p->scaled_h;
	p->off_x = 0;
	p->off_y = 0;
	if (g->frame == BALE_FRAME_CROP) {
		p->out_w = p->scaled_w < g->w ? p->scaled_w : g->w;
		p->out_h = p->scaled_h < g->h ? p->scaled_h : g->h;
		p->off_x = (p->scaled_w - p->out_w) / 2;
		p->off_y = (p->scaled_h - p->out_h) / 2;
	} else if (g->frame == BALE_FRAME_PAD) {
		p->out_w = g->w;
		p->out_h = g->h;
		p->off_x = (g->w - p->scaled_w) / 2;
		p->off_y = (g->h - p->scaled_h) / 2;
	}
}

/* A decimal side length, 1..65535, ending at *end. */
static int geom_side(const char *s, char **end)
{
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, end, 10);
	if (errno || v < 1 || v > GEOM_MAX_SIDE)
		return -1;
	return (int)v;
}

int bale_geometry_parse_size(const char *s, int *w, int *h)
{
	char *end;

	*w = geom_side(s, &end);
	if (*w < 0 || (*end != 'x' && *end != 'X'))
		return -1;
	*h = geom_side(end + 1, &end);
	return *h < 0 || *end ? -1 : 0;
}

int bale_geometry_parse(struct bale_geometry *g, const char *s)
{
	static const struct {
		const char *prefix;
		enum bale_fit fit;
		int box;
	} modes[] = {
		{ "shorter:", BALE_FIT_SHORTER, 0 },
		{ "longer:", BALE_FIT_LONGER, 0 },
		{ "exact:", BALE_FIT_EXACT, 1 },
		{ "fit:", BALE_FIT_INSIDE, 1 },
	};
	size_t i, len;
	char *end;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		len = strlen(modes[i].prefix);
		if (strncmp(s, modes[i].prefix, len) != 0)
			continue;
		g->fit = modes[i].fit;
		if (modes[i].box)
			return bale_geometry_parse_size(s + len, &g->w, &g->h);
		g->w = geom_side(s + len, &end);
		g->h = g->w;
		return g->w < 0 || *end ? -1 : 0;
	}
	return -1;
}
