/* encode.c - one sample through the encode stage.
 *
 * Order of steps, chosen for speed without changing what comes out:
 * decode (at a DCT scale when the target is at most half the size),
 * drop alpha or CMYK, resample in the stored orientation (fewer pixels
 * to turn), orient, crop or pad, encode. Everything is integer
 * arithmetic or a deterministic codec, so the same bytes give the same
 * output on any thread.
 */
#include "encode.h"

#include "image.h"
#include "jpeg.h"
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "png.h"
#include "resize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENC_MAX_SIDE 65535	/* JPEG's limit, and PNG's in bale */

enum enc_kind { ENC_JPEG, ENC_PNG };

/* One input: its format and what its header says. */
struct enc_src {
	enum enc_kind kind;
	struct bale_image_info info;
};

struct bale_encoder {
	const struct bale_encode_cfg *cfg;
	struct bale_jpeg *jpeg;
};

int bale_encoder_new(struct bale_encoder **out,
    const struct bale_encode_cfg *c)
{
	struct bale_encoder *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	e->cfg = c;
	if (bale_jpeg_new(&e->jpeg) != 0) {
		free(e);
		return -1;
	}
	*out = e;
	return 0;
}

void bale_encoder_free(struct bale_encoder *e)
{
	if (!e)
		return;
	bale_jpeg_free(e->jpeg);
	free(e);
}

static int enc_skip(struct bale_encoded *out, const char *msg)
{
	return bale_errbuf_set(&out->err, BALE_EINPUT, "%s", msg);
}

static int enc_nomem(struct bale_encoded *out)
{
	return bale_errbuf_set(&out->err, BALE_ENOMEM, "no memory");
}

static int enc_probe(struct bale_encoder *e, const unsigned char *in,
    size_t size, struct enc_src *s, struct bale_encoded *out)
{
	const char *other = bale_image_format(in, size);

	memset(s, 0, sizeof(*s));
	if (other && strcmp(other, "jpeg") == 0) {
		s->kind = ENC_JPEG;
		return bale_jpeg_header(e->jpeg, in, size, &s->info,
		    &out->err);
	}
	if (other && strcmp(other, "png") == 0) {
		s->kind = ENC_PNG;
		return bale_png_header(in, size, &s->info, &out->err);
	}
	if (!other)
		return enc_skip(out, "not a JPEG or PNG file (unknown "
		    "format); the encode options need its pixels");
	return bale_errbuf_set(&out->err, BALE_EINPUT, "%s: bale decodes "
	    "only JPEG and PNG; the encode options need its pixels", other);
}

static int enc_too_big(const struct bale_encode_cfg *c,
    const struct bale_image_info *im, struct bale_encoded *out)
{
	uint64_t n = (uint64_t)im->w * (uint64_t)im->h;

	if (n <= c->max_pixels)
		return BALE_OK;
	return bale_errbuf_set(&out->err, BALE_EINPUT, "image is %d x %d = %"
	    PRIu64 " pixels, over the limit of %" PRIu64 " (max_pixels)",
	    im->w, im->h, n, c->max_pixels);
}

/* A resize can ask for more than the input had: same limits. */
static int enc_plan_too_big(const struct bale_encode_cfg *c,
    const struct bale_plan *p, struct bale_encoded *out)
{
	int w = p->scaled_w > p->out_w ? p->scaled_w : p->out_w;
	int h = p->scaled_h > p->out_h ? p->scaled_h : p->out_h;
	uint64_t n = (uint64_t)w * (uint64_t)h;

	if (n <= c->max_pixels && w <= ENC_MAX_SIDE && h <= ENC_MAX_SIDE)
		return BALE_OK;
	return bale_errbuf_set(&out->err, BALE_EINPUT, "resized image would "
	    "be %d x %d, over the limit of %" PRIu64 " pixels (max_pixels) "
	    "or %d a side", w, h, c->max_pixels, ENC_MAX_SIDE);
}

/* Nothing asked for would change the pixels: only limits were set, or
 * (keep_unchanged) no resize, crop or pad, no rotation, no colour
 * conversion applies to this image. */
static int enc_unchanged(const struct bale_encode_cfg *c,
    const struct bale_image_info *im, const struct bale_plan *p)
{
	if (c->limits_only)
		return 1;
	if (!c->keep_unchanged || c->pixels_w)
		return 0;
	if (p->out_w != p->scaled_w || p->out_h != p->scaled_h ||
	    p->scaled_w != im->w || p->scaled_h != im->h)
		return 0;
	if (im->orientation != 1 || im->cmyk)
		return 0;
	if (im->grey && !c->keep_grey)
		return 0;
	return !im->alpha || c->keep_alpha;
}

static int enc_decode(struct bale_encoder *e, const unsigned char *in,
    size_t size, const struct enc_src *s, int min_w, int min_h,
    struct bale_image *img, struct bale_encoded *out)
{
	const struct bale_encode_cfg *c = e->cfg;
	int rc;

	if (s->kind == ENC_JPEG)
		rc = bale_jpeg_decode(e->jpeg, in, size, &s->info, min_w,
		    min_h, c->keep_grey, img, &out->err);
	else
		rc = bale_png_decode(in, size, &s->info, c->keep_grey, img,
		    &out->err);
	if (rc != BALE_OK)
		return rc;
	if (img->ch == 4 && !c->keep_alpha)
		bale_image_composite(img, c->bg);
	return BALE_OK;
}

static int enc_resample(struct bale_image *img, int w, int h)
{
	struct bale_image out;

	if (img->w == w && img->h == h)
		return 0;
	if (bale_image_alloc(&out, w, h, img->ch) != 0)
		return -1;
	bale_image_premultiply(img);
	if (bale_resize(img->px, img->w, img->h, out.px, w, h, img->ch)) {
		bale_image_release(&out);
		return -1;
	}
	bale_image_unpremultiply(&out);
	bale_image_release(img);
	*img = out;
	return 0;
}

static int enc_npy(const struct bale_image *img, struct bale_encoded *out)
{
	char head[BALE_NPY_HEADER_MAX];
	size_t n = bale_npy_header(head, img->h, img->w, img->ch);
	size_t px = (size_t)img->w * img->h * img->ch;

	out->data = malloc(n + px);
	if (!out->data)
		return enc_nomem(out);
	memcpy(out->data, head, n);
	memcpy(out->data + n, img->px, px);
	out->size = n + px;
	out->ext = "npy";
	return BALE_OK;
}

/* @return BALE_OK, BALE_EINPUT when the codec refused the image, or
 * BALE_ENOMEM (@out->err says which) */
static int enc_output(struct bale_encoder *e, const struct bale_image *img,
    struct bale_encoded *out)
{
	const struct bale_encode_cfg *c = e->cfg;

	if (c->pixels_w)
		return enc_npy(img, out);
	if (img->ch == 4) {
		out->ext = "png";
		return bale_png_encode(img, &out->data, &out->size,
		    &out->err);
	}
	out->ext = "jpg";
	return bale_jpeg_encode(e->jpeg, img, c->quality, c->subsampling,
	    &out->data, &out->size, &out->err);
}

/* Decode and transform per @p (display orientation) into @img. */
static int enc_pixels(struct bale_encoder *e, const unsigned char *in,
    size_t size, const struct enc_src *s, const struct bale_plan *p,
    struct bale_image *img, struct bale_encoded *out)
{
	int swap = s->info.orientation >= 5;
	int sw = swap ? p->scaled_h : p->scaled_w;	/* as stored */
	int sh = swap ? p->scaled_w : p->scaled_h;
	int rc;

	rc = enc_decode(e, in, size, s, sw, sh, img, out);
	if (rc != BALE_OK)
		return rc;
	if (enc_resample(img, sw, sh) != 0 ||
	    bale_image_orient(img, s->info.orientation) != 0 ||
	    bale_image_frame(img, p, e->cfg->bg) != 0)
		return enc_nomem(out);
	return BALE_OK;
}

int bale_encoder_run(struct bale_encoder *e, const unsigned char *in,
    size_t size, struct bale_encoded *out)
{
	const struct bale_image_info *im;
	struct bale_image img = { 0 };
	struct bale_plan plan;
	struct enc_src s;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = enc_probe(e, in, size, &s, out);
	if (rc != BALE_OK)
		return rc;
	im = &s.info;
	/* TurboJPEG accepts a header cut off before its frame as an image
	 * of 0 x 0; nothing below may divide by a side */
	if (im->w < 1 || im->h < 1)
		return enc_skip(out, "no image size in the header (truncated "
		    "or damaged file)");
	if (enc_too_big(e->cfg, im, out))
		return BALE_EINPUT;
	bale_geometry_plan(&e->cfg->geom, im->orientation >= 5 ? im->h : im->w,
	    im->orientation >= 5 ? im->w : im->h, &plan);
	if (enc_plan_too_big(e->cfg, &plan, out))
		return BALE_EINPUT;
	if (enc_unchanged(e->cfg, im, &plan)) {
		out->data = (unsigned char *)in;
		out->size = size;
		out->kept = 1;
		return BALE_OK;
	}
	rc = enc_pixels(e, in, size, &s, &plan, &img, out);
	if (rc == BALE_OK)
		rc = enc_output(e, &img, out);
	bale_image_release(&img);
	return rc;
}
