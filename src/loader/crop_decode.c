/* crop_decode.c - one sample as a training crop (crop_decode.h). */
#include "crop_decode.h"

#include "image.h"
#include "jpeg.h"
#include "jpegseg.h"
#include "png.h"
#include "resize.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#define CROP_NPY_MAGIC "\x93NUMPY"
#define CROP_MARGIN 16		/* pixels: a chroma iMCU's width at most */

enum crop_kind { CROP_JPEG, CROP_PNG, CROP_ROWS };

/* libjpeg's error manager: a fatal error long-jumps back to the call
 * (in this thread); a warning that loses pixels marks the image bad. */
struct crop_jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
	int bad;
	char msg[JMSG_LENGTH_MAX];
};

struct bale_cropper {
	struct jpeg_decompress_struct dj;
	struct crop_jerr jerr;
	int dj_made;
	int dj_open;		/* a header read: abort before the next */
	enum crop_kind kind;
	const unsigned char *data;
	size_t size;
	int w, h;
	const unsigned char *rows;	/* CROP_ROWS: the pixels */
	unsigned char *buf;	/* the decoded region */
	size_t bufcap;
	struct bale_resize_scratch resize;	/* the resampler's buffers */
};

static void crop_error_exit(j_common_ptr ci)
{
	struct crop_jerr *e = (struct crop_jerr *)(void *)ci->err;

	(*ci->err->format_message)(ci, e->msg);
	longjmp(e->jump, 1);
}

static void crop_emit(j_common_ptr ci, int level)
{
	struct crop_jerr *e = (struct crop_jerr *)(void *)ci->err;
	char msg[JMSG_LENGTH_MAX];

	if (level >= 0)
		return;		/* a trace message */
	(*ci->err->format_message)(ci, msg);
	if (bale_jpeg_warning_harmless(msg))
		return;		/* the same rule as the encode stage's */
	if (!e->bad)
		memcpy(e->msg, msg, sizeof(msg));
	e->bad = 1;
}

int bale_cropper_new(struct bale_cropper **out)
{
	struct bale_cropper *c = calloc(1, sizeof(*c));

	*out = c;
	if (!c)
		return BALE_ENOMEM;
	c->dj.err = jpeg_std_error(&c->jerr.pub);
	c->jerr.pub.error_exit = crop_error_exit;
	c->jerr.pub.emit_message = crop_emit;
	if (setjmp(c->jerr.jump)) {	/* only out of memory can fail */
		free(c);
		*out = NULL;
		return BALE_ENOMEM;
	}
	jpeg_create_decompress(&c->dj);
	c->dj_made = 1;
	return BALE_OK;
}

static void crop_jpeg_close(struct bale_cropper *c)
{
	if (c->dj_open)
		jpeg_abort_decompress(&c->dj);
	c->dj_open = 0;
}

static int crop_open_jpeg(struct bale_cropper *c, struct bale_errbuf *err)
{
	c->jerr.bad = 0;
	if (setjmp(c->jerr.jump)) {
		crop_jpeg_close(c);
		return bale_errbuf_set(err, BALE_EINPUT, "jpeg: %s",
		    c->jerr.msg);
	}
	jpeg_mem_src(&c->dj, c->data, (unsigned long)c->size);
	c->dj_open = 1;
	jpeg_read_header(&c->dj, TRUE);
	c->w = (int)c->dj.image_width;
	c->h = (int)c->dj.image_height;
	return BALE_OK;
}

/* A .npy array of H x W x 3 bytes, as --pixels stores it: its shape. */
static int crop_open_npy(struct bale_cropper *c, struct bale_errbuf *err)
{
	const char *dict = (const char *)c->data + 10;
	size_t hlen;
	int h, w, ch;
	const char *shape;

	hlen = c->size >= 10 ? (size_t)c->data[8] | (size_t)c->data[9] << 8 :
	    0;
	shape = hlen && c->data[6] == 1 && 10 + hlen <= c->size ?
	    memmem(dict, hlen, "'shape': (", 10) : NULL;
	if (!shape || !memmem(dict, hlen, "'|u1'", 5) ||
	    !memmem(dict, hlen, "'fortran_order': False", 22) ||
	    sscanf(shape + 10, "%d, %d, %d)", &h, &w, &ch) != 3 || ch != 3 ||
	    h < 1 || w < 1 || (size_t)h * (size_t)w * 3 != c->size - 10 - hlen)
		return bale_errbuf_set(err, BALE_EINPUT, "not an H x W x 3 "
		    "uint8 .npy array");
	c->w = w;
	c->h = h;
	c->rows = c->data + 10 + hlen;
	return BALE_OK;
}

int bale_cropper_open(struct bale_cropper *c, const unsigned char *data,
    size_t size, const int *w_h, int *w, int *h, struct bale_errbuf *err)
{
	const char *format = bale_image_format(data, size);
	struct bale_image_info info;
	int rc;

	crop_jpeg_close(c);
	c->data = data;
	c->size = size;
	c->rows = NULL;
	if (w_h && (size_t)w_h[0] * (size_t)w_h[1] * 3 == size) {
		c->kind = CROP_ROWS;	/* bare rows of a known shape */
		c->w = w_h[0];
		c->h = w_h[1];
		c->rows = data;
		rc = BALE_OK;
	} else if (size >= 10 && memcmp(data, CROP_NPY_MAGIC, 6) == 0) {
		c->kind = CROP_ROWS;
		rc = crop_open_npy(c, err);
	} else if (format && strcmp(format, "jpeg") == 0) {
		c->kind = CROP_JPEG;
		rc = crop_open_jpeg(c, err);
	} else if (format && strcmp(format, "png") == 0) {
		c->kind = CROP_PNG;
		rc = bale_png_header(data, size, &info, err);
		c->w = info.w;
		c->h = info.h;
	} else {
		rc = bale_errbuf_set(err, BALE_EINPUT, "%s: the loader "
		    "decodes JPEG, PNG and pixel arrays", format ? format :
		    "not an image");
	}
	if (rc == BALE_OK && (c->w < 1 || c->h < 1))
		rc = bale_errbuf_set(err, BALE_EINPUT, "no image size in the "
		    "header");
	*w = c->w;
	*h = c->h;
	return rc;
}

/* The largest DCT scale 1/d at which the box is still at least the
 * output size both ways. */
static int crop_scale(const struct bale_crop_box *b, int ow, int oh)
{
	int d;

	for (d = 8; d > 1; d /= 2)
		if ((b->x1 - b->x0) / d >= ow && (b->y1 - b->y0) / d >= oh)
			return d;
	return 1;
}

static int crop_grow(unsigned char **p, size_t *cap, size_t need)
{
	return bale_grow(p, cap, need ? need : 1);
}

/* Resample @box of the region @src (@w x @h, rows @stride bytes apart;
 * the box relative to it) into @dst, mirrored when @flip. */
static int crop_resample(struct bale_cropper *c, const unsigned char *src,
    int w, int h, size_t stride, const struct bale_resize_box *box,
    const struct bale_crop_out *o)
{
	struct bale_resize_box b = *box;

	b.mirror = o->flip;
	return bale_resize_box(src, w, h, stride, &b, o->dst, o->w, o->h, 3,
	    BALE_RESIZE_BILINEAR, &c->resize);
}

/* The pixels the resampler may read for box @b of a @w x @h image:
 * the box's, widened by the filter's reach with @o->context. */
static void crop_region(const struct bale_crop_box *b, int w, int h,
    const struct bale_crop_out *o, int r[4])
{
	double mx = o->context ? ceil((b->x1 - b->x0) / o->w) + 1 : 0;
	double my = o->context ? ceil((b->y1 - b->y0) / o->h) + 1 : 0;

	r[0] = (int)fmax(floor(b->x0 - mx), 0);
	r[1] = (int)fmax(floor(b->y0 - my), 0);
	r[2] = (int)fmin(ceil(b->x1 + mx), w);
	r[3] = (int)fmin(ceil(b->y1 + my), h);
}

/* An image held whole (@src, @ch channels, RGB first) cropped. */
static int crop_from_whole(struct bale_cropper *c, const unsigned char *src,
    int ch, const struct bale_crop_box *b, const struct bale_crop_out *o)
{
	struct bale_resize_box rel;
	size_t i, n;
	int r[4];

	crop_region(b, c->w, c->h, o, r);
	rel = (struct bale_resize_box){ b->x0 - r[0], b->y0 - r[1],
	    b->x1 - r[0], b->y1 - r[1], 0 };
	if (ch == 3)
		return crop_resample(c, src + ((size_t)r[1] * c->w + r[0]) * 3,
		    r[2] - r[0], r[3] - r[1], (size_t)c->w * 3, &rel, o);
	/* RGBA: alpha dropped, as PIL's convert("RGB") drops it */
	n = (size_t)c->w * c->h;
	if (crop_grow(&c->buf, &c->bufcap, n * 3) != 0)
		return -1;
	for (i = 0; i < n; i++)
		memcpy(c->buf + i * 3, src + i * ch, 3);
	return crop_resample(c, c->buf + ((size_t)r[1] * c->w + r[0]) * 3,
	    r[2] - r[0], r[3] - r[1], (size_t)c->w * 3, &rel, o);
}

static int crop_run_png(struct bale_cropper *c, const struct bale_crop_box *b,
    const struct bale_crop_out *o, struct bale_errbuf *err)
{
	struct bale_image_info info;
	struct bale_image img = { 0 };
	int rc = bale_png_header(c->data, c->size, &info, err);

	if (rc == BALE_OK)
		rc = bale_png_decode(c->data, c->size, &info, 0, &img, err);
	if (rc == BALE_OK && crop_from_whole(c, img.px, img.ch, b, o) != 0)
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	bale_image_release(&img);
	return rc;
}

/* Decode rows [y0, y1) of the (scaled) JPEG, columns from *xoff for
 * *xw (widened by libjpeg to whole iMCUs), into c->buf. */
static void crop_jpeg_rows(struct bale_cropper *c, JDIMENSION *xoff,
    JDIMENSION *xw, JDIMENSION y0, JDIMENSION y1)
{
	JSAMPROW row;
	size_t stride;
	JDIMENSION y;

	jpeg_crop_scanline(&c->dj, xoff, xw);
	stride = (size_t)c->dj.output_width * c->dj.output_components;
	if (crop_grow(&c->buf, &c->bufcap, stride * (y1 - y0)) != 0)
		ERREXIT(&c->dj, JERR_OUT_OF_MEMORY);
	if (y0 > 0)
		jpeg_skip_scanlines(&c->dj, y0);
	for (y = y0; y < y1; y++) {
		row = c->buf + stride * (y - y0);
		if (jpeg_read_scanlines(&c->dj, &row, 1) != 1)
			ERREXIT(&c->dj, JERR_INPUT_EOF);
	}
}

/* CMYK rows in c->buf to RGB, as the encode stage converts them. */
static void crop_cmyk(struct bale_cropper *c, int w, int h)
{
	struct bale_image img = { c->buf, w, h, 4 };
	const unsigned char *seg;
	size_t seglen;

	bale_jpeg_cmyk_to_rgb(&img, bale_jpegseg_find(c->data, c->size, 0xEE,
	    "Adobe", 5, &seg, &seglen));
}

static int crop_run_jpeg(struct bale_cropper *c, const struct bale_crop_box *b,
    const struct bale_crop_out *o, int d, struct bale_errbuf *err)
{
	struct bale_crop_box s;
	struct bale_resize_box rel;
	JDIMENSION xoff, xw, y0, y1;
	double fx, fy;
	int r[4];
	int cmyk = c->dj.jpeg_color_space == JCS_CMYK ||
	    c->dj.jpeg_color_space == JCS_YCCK;

	if (setjmp(c->jerr.jump)) {
		crop_jpeg_close(c);
		return bale_errbuf_set(err, BALE_EINPUT, "jpeg: %s",
		    c->jerr.msg);
	}
	c->dj.scale_num = 1;
	c->dj.scale_denom = (unsigned)d;
	c->dj.dct_method = JDCT_ISLOW;
	c->dj.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
	jpeg_start_decompress(&c->dj);
	fx = (double)c->dj.output_width / c->w;
	fy = (double)c->dj.output_height / c->h;
	s = (struct bale_crop_box){ b->x0 * fx, b->y0 * fy, b->x1 * fx,
	    b->y1 * fy };
	/* a margin each side: upsampled chroma at the edge of a cropped
	 * decode is made as at the image's edge, unlike the full decode */
	crop_region(&s, (int)c->dj.output_width, (int)c->dj.output_height, o,
	    r);
	xoff = (JDIMENSION)(r[0] > CROP_MARGIN ? r[0] - CROP_MARGIN : 0);
	xw = (JDIMENSION)fmin(r[2] + CROP_MARGIN, c->dj.output_width) - xoff;
	y0 = (JDIMENSION)r[1];
	y1 = (JDIMENSION)r[3];
	crop_jpeg_rows(c, &xoff, &xw, y0, y1);
	if (c->jerr.bad) {
		crop_jpeg_close(c);
		return bale_errbuf_set(err, BALE_EINPUT, "jpeg: %s",
		    c->jerr.msg);
	}
	if (cmyk)
		crop_cmyk(c, (int)c->dj.output_width, (int)(y1 - y0));
	crop_jpeg_close(c);
	/* the resampler sees the region only (the box's pixels for a
	 * train crop, as after PIL's crop), not the decoding margin */
	rel = (struct bale_resize_box){ s.x0 - r[0], s.y0 - r[1],
	    s.x1 - r[0], s.y1 - r[1], 0 };
	return crop_resample(c, c->buf + (size_t)(r[0] - (int)xoff) * 3,
	    r[2] - r[0], r[3] - r[1], (size_t)c->dj.output_width * 3, &rel,
	    o) == 0 ? BALE_OK : bale_errbuf_set(err, BALE_ENOMEM,
	    "no memory");
}

int bale_cropper_run(struct bale_cropper *c, const struct bale_crop_box *box,
    const struct bale_crop_out *out, struct bale_errbuf *err)
{
	if (!(box->x0 >= 0 && box->y0 >= 0 && box->x1 <= c->w &&
	    box->y1 <= c->h && box->x1 > box->x0 && box->y1 > box->y0) ||
	    out->w < 1 || out->h < 1)
		return bale_errbuf_set(err, BALE_EINVAL, "crop box outside "
		    "the %d x %d image", c->w, c->h);
	if (c->kind == CROP_JPEG)
		return crop_run_jpeg(c, box, out, out->scaling ?
		    crop_scale(box, out->w, out->h) : 1, err);
	if (c->kind == CROP_PNG)
		return crop_run_png(c, box, out, err);
	return crop_from_whole(c, c->rows, 3, box, out) == 0 ? BALE_OK :
	    bale_errbuf_set(err, BALE_ENOMEM, "no memory");
}

void bale_cropper_free(struct bale_cropper *c)
{
	if (!c)
		return;
	crop_jpeg_close(c);
	if (c->dj_made)
		jpeg_destroy_decompress(&c->dj);
	free(c->buf);
	bale_resize_scratch_release(&c->resize);
	free(c);
}
