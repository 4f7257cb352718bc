/* image.c - pixel steps that move or convert pixels but never resample. */
#include "image.h"

#include "geometry.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int bale_image_alloc(struct bale_image *img, int w, int h, int ch)
{
	img->px = malloc((size_t)w * (size_t)h * (size_t)ch);
	if (!img->px)
		return -1;
	img->w = w;
	img->h = h;
	img->ch = ch;
	return 0;
}

void bale_image_release(struct bale_image *img)
{
	free(img->px);
	img->px = NULL;
}

static void image_swap(struct bale_image *img, struct bale_image *repl)
{
	free(img->px);
	*img = *repl;
}

/* Where display pixel (0, 0) comes from, and how the source position
 * moves for one step right (dx) and one step down (dy), in pixels. */
static void orient_steps(int o, int w, int h, ptrdiff_t *start,
    ptrdiff_t *dx, ptrdiff_t *dy)
{
	/* per orientation: source x0, y0 as 0 or last, and unit steps */
	static const signed char t[9][6] = {
		/* x0  y0  x/dx y/dx x/dy y/dy */
		{ 0, 0, 1, 0, 0, 1 },		/* unused */
		{ 0, 0, 1, 0, 0, 1 },
		{ 1, 0, -1, 0, 0, 1 },
		{ 1, 1, -1, 0, 0, -1 },
		{ 0, 1, 1, 0, 0, -1 },
		{ 0, 0, 0, 1, 1, 0 },
		{ 0, 1, 0, -1, 1, 0 },
		{ 1, 1, 0, -1, -1, 0 },
		{ 1, 0, 0, 1, -1, 0 },
	};
	const signed char *r = t[o];

	*start = (ptrdiff_t)(r[1] ? h - 1 : 0) * w + (r[0] ? w - 1 : 0);
	*dx = r[2] + (ptrdiff_t)r[3] * w;
	*dy = r[4] + (ptrdiff_t)r[5] * w;
}

int bale_image_orient(struct bale_image *img, int o)
{
	struct bale_image out;
	ptrdiff_t start, dx, dy, s;
	int swap = o >= 5;
	int x, y, ch = img->ch;
	unsigned char *d;

	if (o <= 1 || o > 8)
		return 0;
	if (bale_image_alloc(&out, swap ? img->h : img->w,
	    swap ? img->w : img->h, ch) != 0)
		return -1;
	orient_steps(o, img->w, img->h, &start, &dx, &dy);
	d = out.px;
	for (y = 0; y < out.h; y++) {
		s = start + dy * y;
		for (x = 0; x < out.w; x++, s += dx, d += ch)
			memcpy(d, img->px + s * ch, (size_t)ch);
	}
	image_swap(img, &out);
	return 0;
}

void bale_image_mirror(unsigned char *px, int w, int h, int ch)
{
	unsigned char t[4], *row;
	size_t n = (size_t)ch;
	int x, y;

	for (y = 0; y < h; y++) {
		row = px + (size_t)y * w * n;
		for (x = 0; x < w / 2; x++) {
			memcpy(t, row + x * n, n);
			memcpy(row + x * n, row + (size_t)(w - 1 - x) * n, n);
			memcpy(row + (size_t)(w - 1 - x) * n, t, n);
		}
	}
}

static void frame_fill(struct bale_image *img, const unsigned char bg[3])
{
	size_t n = (size_t)img->w * (size_t)img->h;
	unsigned char px[4] = { bg[0], bg[1], bg[2], 255 };
	size_t i;

	if (img->ch == 4)
		memset(px, 0, sizeof(px));	/* transparent */
	if (img->ch == 1)	/* BT.601 luma, as JPEG's grey */
		px[0] = (unsigned char)((299 * bg[0] + 587 * bg[1] +
		    114 * bg[2] + 500) / 1000);
	for (i = 0; i < n; i++)
		memcpy(img->px + i * img->ch, px, (size_t)img->ch);
}

int bale_image_frame(struct bale_image *img, const struct bale_plan *p,
    const unsigned char bg[3])
{
	struct bale_image out;
	int crop = p->out_w <= img->w && p->out_h <= img->h;
	size_t row;
	int y;

	if (p->out_w == img->w && p->out_h == img->h)
		return 0;
	if (bale_image_alloc(&out, p->out_w, p->out_h, img->ch) != 0)
		return -1;
	if (crop) {
		row = (size_t)out.w * (size_t)out.ch;
		for (y = 0; y < out.h; y++)
			memcpy(out.px + row * (size_t)y, img->px +
			    (((size_t)(y + p->off_y) * (size_t)img->w) +
			    (size_t)p->off_x) * (size_t)img->ch, row);
	} else {
		frame_fill(&out, bg);
		row = (size_t)img->w * (size_t)img->ch;
		for (y = 0; y < img->h; y++)
			memcpy(out.px + (((size_t)(y + p->off_y) *
			    (size_t)out.w) + (size_t)p->off_x) *
			    (size_t)out.ch, img->px + row * (size_t)y, row);
	}
	image_swap(img, &out);
	return 0;
}

int bale_image_expand(struct bale_image *img)
{
	struct bale_image out;
	size_t n = (size_t)img->w * (size_t)img->h;
	size_t i;

	if (img->ch != 1)
		return 0;
	if (bale_image_alloc(&out, img->w, img->h, 3) != 0)
		return -1;
	for (i = 0; i < n; i++)
		memset(out.px + 3 * i, img->px[i], 3);
	image_swap(img, &out);
	return 0;
}

void bale_image_composite(struct bale_image *img, const unsigned char bg[3])
{
	size_t n = (size_t)img->w * (size_t)img->h;
	const unsigned char *s = img->px;
	unsigned char *d = img->px;
	unsigned a;
	size_t i;
	int c;

	if (img->ch != 4)
		return;
	for (i = 0; i < n; i++, s += 4, d += 3) {
		a = s[3];
		for (c = 0; c < 3; c++)
			d[c] = (unsigned char)(bale_mul255(s[c], a) +
			    bale_mul255(bg[c], 255 - a));
	}
	img->ch = 3;
}

void bale_image_take_grey(struct bale_image *img)
{
	size_t n = (size_t)img->w * (size_t)img->h;
	size_t i;

	if (img->ch != 3)
		return;
	for (i = 0; i < n; i++)
		img->px[i] = img->px[3 * i];
	img->ch = 1;
}

void bale_image_premultiply(struct bale_image *img)
{
	size_t n = (size_t)img->w * (size_t)img->h;
	unsigned char *p = img->px;
	size_t i;

	if (img->ch != 4)
		return;
	for (i = 0; i < n; i++, p += 4) {
		p[0] = (unsigned char)bale_mul255(p[0], p[3]);
		p[1] = (unsigned char)bale_mul255(p[1], p[3]);
		p[2] = (unsigned char)bale_mul255(p[2], p[3]);
	}
}

void bale_image_unpremultiply(struct bale_image *img)
{
	size_t n = (size_t)img->w * (size_t)img->h;
	unsigned char *p = img->px;
	unsigned v, a;
	size_t i;
	int c;

	if (img->ch != 4)
		return;
	for (i = 0; i < n; i++, p += 4) {
		a = p[3];
		for (c = 0; c < 3 && a; c++) {
			v = (p[c] * 255u + a / 2) / a;
			p[c] = (unsigned char)(v > 255 ? 255 : v);
		}
	}
}
