/* mkimages.c - the encode stage's test images, in ImageFolder layout.
 *
 *   bale-mkimages DIR
 *
 * DIR/jpeg: baseline 4:4:4, 4:2:2, 4:2:0, progressive, grey, YCCK
 *   (Adobe-inverted CMYK), quadrant images with EXIF orientation 1..8,
 *   1x1, very wide and very tall images.
 * DIR/png: 8- and 16-bit RGB and grey, palette with and without tRNS,
 *   RGBA, grey+alpha, and orientation 6 in an eXIf chunk.
 * DIR/bad: truncated and corrupt JPEG, truncated PNG, a JPEG header
 *   declaring 60000 x 60000, a JPEG cut off after its first marker, a
 *   WebP header, and a text file named .jpg.
 *
 * Quadrant images: top-left red, top-right green, bottom-left blue,
 * bottom-right white (as stored), so a test can tell where pixels land.
 * Output is a function of the arguments only.
 */
#include <spng.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>

static const char *root;

static void fail(const char *what)
{
	fprintf(stderr, "bale-mkimages: %s\n", what);
	exit(1);
}

static void put(const char *rel, const void *data, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0)
		fail(path);
}

/* A smooth but busy RGB pattern of @w x @h. */
static unsigned char *pattern(int w, int h)
{
	unsigned char *p = malloc((size_t)w * h * 3);
	int x, y;

	if (!p)
		fail("no memory");
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			unsigned char *q = p + ((size_t)y * w + x) * 3;

			q[0] = (unsigned char)(x * 255 / (w > 1 ? w - 1 : 1));
			q[1] = (unsigned char)(y * 255 / (h > 1 ? h - 1 : 1));
			q[2] = (unsigned char)(((x / 8 + y / 8) & 1) ? 200 :
			    40);
		}
	return p;
}

static unsigned char *quadrants(int w, int h)
{
	static const unsigned char col[4][3] = {
		{ 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 255, 255, 255 },
	};
	unsigned char *p = malloc((size_t)w * h * 3);
	int x, y;

	if (!p)
		fail("no memory");
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			memcpy(p + ((size_t)y * w + x) * 3,
			    col[(y >= h / 2) * 2 + (x >= w / 2)], 3);
	return p;
}

/* Encode @px (@pf pixels) to JPEG; *n gets the size. */
static unsigned char *jpeg(const unsigned char *px, int w, int h, int pf,
    int samp, int flags, unsigned long *n)
{
	tjhandle tj = tjInitCompress();
	unsigned char *buf = NULL;

	*n = 0;
	if (!tj || tjCompress2(tj, px, w, 0, h, pf, &buf, n, samp, 92,
	    flags) != 0)
		fail("cannot encode a JPEG");
	tjDestroy(tj);
	return buf;
}

static void put_jpeg(const char *rel, int w, int h, int samp, int flags)
{
	unsigned char *px = pattern(w, h);
	unsigned long n;
	unsigned char *j = jpeg(px, w, h, TJPF_RGB, samp, flags, &n);

	put(rel, j, n);
	tjFree(j);
	free(px);
}

/* CMYK as Adobe writes it: inverted, 255 = no ink. */
static void put_ycck(const char *rel, int w, int h)
{
	unsigned char *rgb = pattern(w, h);
	unsigned char *cmyk = malloc((size_t)w * h * 4);
	unsigned long n;
	unsigned char *j;
	size_t i;

	if (!cmyk)
		fail("no memory");
	for (i = 0; i < (size_t)w * h; i++) {
		cmyk[4 * i] = rgb[3 * i];		/* inverted cyan */
		cmyk[4 * i + 1] = rgb[3 * i + 1];
		cmyk[4 * i + 2] = rgb[3 * i + 2];
		cmyk[4 * i + 3] = (unsigned char)(255 - (i % w) % 64);
	}
	j = jpeg(cmyk, w, h, TJPF_CMYK, TJSAMP_444, 0, &n);
	put(rel, j, n);
	tjFree(j);
	free(cmyk);
	free(rgb);
}

/* A quadrant JPEG with an APP1 Exif segment (big-endian TIFF) holding
 * orientation @o, inserted right after SOI. */
static void put_oriented(int o)
{
	static const unsigned char app1[] = {
		0xFF, 0xE1, 0x00, 0x22, 'E', 'x', 'i', 'f', 0, 0,
		'M', 'M', 0, 42, 0, 0, 0, 8,	/* TIFF header */
		0, 1,				/* one entry */
		0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, 0,			/* no next IFD */
	};
	unsigned char *px = quadrants(40, 24);
	unsigned long n;
	unsigned char *j = jpeg(px, 40, 24, TJPF_RGB, TJSAMP_444, 0, &n);
	unsigned char *out = malloc(n + sizeof(app1));
	char rel[64];

	if (!out)
		fail("no memory");
	memcpy(out, j, 2);
	memcpy(out + 2, app1, sizeof(app1));
	out[2 + 29] = (unsigned char)o;	/* low byte of the SHORT value */
	memcpy(out + 2 + sizeof(app1), j + 2, n - 2);
	snprintf(rel, sizeof(rel), "jpeg/orient%d.jpg", o);
	put(rel, out, n + sizeof(app1));
	free(out);
	tjFree(j);
	free(px);
}

/* ---- PNG ---------------------------------------------------------------- */

struct png_spec {
	const char *rel;
	int w, h;
	int type;		/* SPNG_COLOR_TYPE_* */
	int depth;
	int trns;		/* palette: add a tRNS chunk */
	int orientation;	/* eXIf chunk, 0 for none */
};

static int png_channels(int type)
{
	switch (type) {
	case SPNG_COLOR_TYPE_GRAYSCALE: return 1;
	case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: return 2;
	case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA: return 4;
	case SPNG_COLOR_TYPE_INDEXED: return 1;
	default: return 3;
	}
}

/* Sample @c of pixel (x, y), 0..65535; alpha falls off left to right. */
static unsigned png_sample(const struct png_spec *s, int x, int y, int c)
{
	int nch = png_channels(s->type);

	if (s->type == SPNG_COLOR_TYPE_INDEXED)
		return (unsigned)((x / 4 + y / 4) % 16);
	if ((nch == 2 && c == 1) || (nch == 4 && c == 3))
		return (unsigned)(65535 - x * 65535 / (s->w - 1));
	if (c == 0)
		return (unsigned)(x * 65535 / (s->w - 1));
	return (unsigned)(c == 1 ? y * 65535 / (s->h - 1) : 20000);
}

static unsigned char *png_pixels(const struct png_spec *s, size_t *len)
{
	int nch = png_channels(s->type);
	int bytes = s->depth / 8;
	unsigned char *p;
	unsigned v;
	size_t i = 0;
	int x, y, c;

	*len = (size_t)s->w * s->h * nch * bytes;
	p = malloc(*len);
	if (!p)
		fail("no memory");
	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++)
			for (c = 0; c < nch; c++) {
				v = png_sample(s, x, y, c);
				if (s->type != SPNG_COLOR_TYPE_INDEXED)
					v = bytes == 2 ? v : v >> 8;
				if (bytes == 2)
					p[i++] = (unsigned char)(v >> 8);
				p[i++] = (unsigned char)v;
			}
	return p;
}

static void png_extras(spng_ctx *ctx, const struct png_spec *s)
{
	static char exif[] = {
		'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1,
		0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct spng_plte plte;
	struct spng_trns trns;
	struct spng_exif ex;
	unsigned i;

	if (s->type == SPNG_COLOR_TYPE_INDEXED) {
		memset(&plte, 0, sizeof(plte));
		plte.n_entries = 16;
		for (i = 0; i < 16; i++) {
			plte.entries[i].red = (uint8_t)(i * 16);
			plte.entries[i].green = (uint8_t)(255 - i * 16);
			plte.entries[i].blue = (uint8_t)(i * 7);
		}
		spng_set_plte(ctx, &plte);
	}
	if (s->trns) {
		memset(&trns, 0, sizeof(trns));
		trns.n_type3_entries = 16;
		for (i = 0; i < 16; i++)
			trns.type3_alpha[i] = (uint8_t)(i * 17);
		spng_set_trns(ctx, &trns);
	}
	if (s->orientation) {
		exif[19] = (char)s->orientation;
		ex.length = sizeof(exif);
		ex.data = exif;
		spng_set_exif(ctx, &ex);
	}
}

static void put_png(const struct png_spec *s)
{
	spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
	struct spng_ihdr ihdr;
	unsigned char *px;
	void *out;
	size_t len;
	int err = 0;

	memset(&ihdr, 0, sizeof(ihdr));
	ihdr.width = (uint32_t)s->w;
	ihdr.height = (uint32_t)s->h;
	ihdr.bit_depth = (uint8_t)s->depth;
	ihdr.color_type = (uint8_t)s->type;
	px = png_pixels(s, &len);
	if (!ctx || spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1) ||
	    spng_set_ihdr(ctx, &ihdr))
		fail("cannot start a PNG");
	png_extras(ctx, s);
	if (spng_encode_image(ctx, px, len, SPNG_FMT_PNG,
	    SPNG_ENCODE_FINALIZE))
		fail(s->rel);
	out = spng_get_png_buffer(ctx, &len, &err);
	if (!out || err)
		fail(s->rel);
	put(s->rel, out, len);
	free(out);
	free(px);
	spng_ctx_free(ctx);
}

/* ---- bad inputs --------------------------------------------------------- */

static void put_bad(void)
{
	unsigned char *px = pattern(64, 64);
	unsigned long n;
	unsigned char *j = jpeg(px, 64, 64, TJPF_RGB, TJSAMP_420, 0, &n);
	unsigned char *c = malloc(n);
	size_t i;

	if (!c)
		fail("no memory");
	put("bad/truncated.jpg", j, n / 2);
	memcpy(c, j, n);
	for (i = n / 2; i < n / 2 + 64 && i + 2 < n; i++)
		c[i] = 0xFF;	/* entropy data turned into marker soup */
	put("bad/corrupt.jpg", c, n);
	/* SOF0 of a baseline JPEG: FFC0, length, precision, height, width */
	for (i = 2; i + 9 < n; i++)
		if (j[i] == 0xFF && j[i + 1] == 0xC0) {
			memcpy(c, j, n);
			c[i + 5] = 0xEA;	/* 60000 = 0xEA60 */
			c[i + 6] = 0x60;
			c[i + 7] = 0xEA;
			c[i + 8] = 0x60;
			put("bad/huge.jpg", c, n);
			break;
		}
	put("bad/other.webp", "RIFF\x04\x00\x00\x00WEBPVP8 ", 16);
	put("bad/notes.jpg", "this is not an image\n", 21);
	put("bad/header_only.jpg", "\xFF\xD8\xFF", 3);	/* found by fuzzing */
	free(c);
	tjFree(j);
	free(px);
}

static void put_pngs(void)
{
	static const struct png_spec specs[] = {
		{ "png/rgb8.png", 50, 30, SPNG_COLOR_TYPE_TRUECOLOR, 8, 0, 0 },
		{ "png/rgb16.png", 50, 30, SPNG_COLOR_TYPE_TRUECOLOR, 16, 0,
		  0 },
		{ "png/grey8.png", 50, 30, SPNG_COLOR_TYPE_GRAYSCALE, 8, 0, 0 },
		{ "png/grey16.png", 50, 30, SPNG_COLOR_TYPE_GRAYSCALE, 16, 0,
		  0 },
		{ "png/palette.png", 50, 30, SPNG_COLOR_TYPE_INDEXED, 8, 0, 0 },
		{ "png/palette_trns.png", 50, 30, SPNG_COLOR_TYPE_INDEXED, 8, 1,
		  0 },
		{ "png/rgba.png", 50, 30, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 8, 0,
		  0 },
		{ "png/greya.png", 50, 30, SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 8,
		  0, 0 },
		{ "png/orient6.png", 50, 30, SPNG_COLOR_TYPE_TRUECOLOR, 8, 0,
		  6 },
	};
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		put_png(&specs[i]);
}

/* The first half of png/rgb8.png. */
static void put_truncated_png(void)
{
	char path[4096];
	unsigned char buf[1 << 16];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/png/rgb8.png", root);
	f = fopen(path, "rb");
	if (!f)
		fail(path);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	put("bad/truncated.png", buf, n / 2);
}

int main(int argc, char **argv)
{
	static const char *dirs[] = { "", "/jpeg", "/png", "/bad" };
	char path[4096];
	int o;
	size_t i;

	if (argc != 2)
		fail("usage: bale-mkimages DIR");
	root = argv[1];
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		mkdir(path, 0755);
	}
	put_jpeg("jpeg/base444.jpg", 301, 201, TJSAMP_444, 0);
	put_jpeg("jpeg/base422.jpg", 301, 201, TJSAMP_422, 0);
	put_jpeg("jpeg/base420.jpg", 640, 480, TJSAMP_420, 0);
	put_jpeg("jpeg/prog420.jpg", 640, 480, TJSAMP_420,
	    TJFLAG_PROGRESSIVE);
	put_jpeg("jpeg/grey.jpg", 300, 200, TJSAMP_GRAY, 0);
	put_jpeg("jpeg/tiny.jpg", 1, 1, TJSAMP_444, 0);
	put_jpeg("jpeg/wide.jpg", 3000, 2, TJSAMP_444, 0);
	put_jpeg("jpeg/tall.jpg", 2, 2000, TJSAMP_444, 0);
	put_ycck("jpeg/ycck.jpg", 120, 80);
	for (o = 1; o <= 8; o++)
		put_oriented(o);
	put_pngs();
	put_truncated_png();
	put_bad();
	return 0;
}
