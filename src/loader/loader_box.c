/* loader_box.c - the loader's crop boxes and flips (loader_box.h). */
#include "loader_box.h"

#include <math.h>

static uint64_t rng_mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void bale_loader_rng_init(struct bale_loader_rng *r, uint64_t seed,
    uint64_t epoch, uint64_t pos)
{
	r->s = rng_mix(rng_mix(rng_mix(seed) ^ epoch) ^ pos);
}

static uint64_t rng_next(struct bale_loader_rng *r)
{
	r->s += 0x9e3779b97f4a7c15ull;
	return rng_mix(r->s);
}

double bale_loader_rng_uniform(struct bale_loader_rng *r, double lo,
    double hi)
{
	/* 53 random bits: [0, 1) */
	double u = (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);

	return lo + (hi - lo) * u;
}

/* An integer uniform in [0, @n]. */
static int rng_upto(struct bale_loader_rng *r, int n)
{
	return (int)(rng_next(r) % (uint64_t)(n + 1));
}

/* RandomResizedCrop.get_params: Python's round() is to nearest even,
 * which rint() is in the default rounding mode. */
static void box_train(const struct bale_loader_box_cfg *c, int w, int h,
    struct bale_loader_rng *r, struct bale_crop_box *b)
{
	double area = (double)w * h, target, aspect;
	double lr0 = log(c->ratio[0]), lr1 = log(c->ratio[1]);
	double in_ratio = (double)w / h;
	int i, bw, bh, x, y;

	for (i = 0; i < 10; i++) {
		target = area * bale_loader_rng_uniform(r, c->scale[0],
		    c->scale[1]);
		aspect = exp(bale_loader_rng_uniform(r, lr0, lr1));
		bw = (int)rint(sqrt(target * aspect));
		bh = (int)rint(sqrt(target / aspect));
		if (bw > 0 && bw <= w && bh > 0 && bh <= h) {
			y = rng_upto(r, h - bh);
			x = rng_upto(r, w - bw);
			*b = (struct bale_crop_box){ x, y, x + bw, y + bh };
			return;
		}
	}
	bw = w;
	bh = h;
	if (in_ratio < c->ratio[0])
		bh = (int)rint(w / c->ratio[0]);
	else if (in_ratio > c->ratio[1])
		bw = (int)rint(h * c->ratio[1]);
	bw = bw < 1 ? 1 : bw > w ? w : bw;
	bh = bh < 1 ? 1 : bh > h ? h : bh;
	x = (w - bw) / 2;
	y = (h - bh) / 2;
	*b = (struct bale_crop_box){ x, y, x + bw, y + bh };
}

/* Resize(resize): the shorter side to @resize, the longer truncated as
 * torchvision computes it; CenterCrop(out): offsets rounded to even.
 * Both as one box of the stored image (a crop larger than the resized
 * image is clipped to it). */
static void box_eval(const struct bale_loader_box_cfg *c, int w, int h,
    struct bale_crop_box *b)
{
	int rw = w <= h ? c->resize : (int)((double)c->resize * w / h);
	int rh = w <= h ? (int)((double)c->resize * h / w) : c->resize;
	int cw = c->out_w < rw ? c->out_w : rw;
	int ch = c->out_h < rh ? c->out_h : rh;
	double left = rint((rw - cw) / 2.0), top = rint((rh - ch) / 2.0);
	double sx = (double)w / rw, sy = (double)h / rh;

	*b = (struct bale_crop_box){ left * sx, top * sy, (left + cw) * sx,
	    (top + ch) * sy };
}

void bale_loader_box(const struct bale_loader_box_cfg *c, int w, int h,
    struct bale_loader_rng *r, struct bale_crop_box *box, int *flip)
{
	if (c->train) {
		box_train(c, w, h, r, box);
		*flip = bale_loader_rng_uniform(r, 0, 1) < 0.5;
	} else {
		box_eval(c, w, h, box);
		*flip = 0;
	}
}

/* Where a shown pixel comes from, as PIL's exif_transpose turns them:
 * 2 mirrors, 3 turns half round, 4 flips, 5 transposes, 6 turns a
 * quarter clockwise, 7 transverses, 8 turns a quarter anticlockwise. */
void bale_loader_box_stored(struct bale_crop_box *b, int o, int w, int h)
{
	struct bale_crop_box d = *b;

	switch (o) {
	case 2: *b = (struct bale_crop_box){ w - d.x1, d.y0, w - d.x0, d.y1 };
		break;
	case 3: *b = (struct bale_crop_box){ w - d.x1, h - d.y1, w - d.x0,
		    h - d.y0 };
		break;
	case 4: *b = (struct bale_crop_box){ d.x0, h - d.y1, d.x1, h - d.y0 };
		break;
	case 5: *b = (struct bale_crop_box){ d.y0, d.x0, d.y1, d.x1 };
		break;
	case 6: *b = (struct bale_crop_box){ d.y0, h - d.x1, d.y1, h - d.x0 };
		break;
	case 7: *b = (struct bale_crop_box){ w - d.y1, h - d.x1, w - d.y0,
		    h - d.x0 };
		break;
	case 8: *b = (struct bale_crop_box){ w - d.y1, d.x0, w - d.y0, d.x1 };
		break;
	default:
		break;
	}
}
