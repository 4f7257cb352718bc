/* png.c - libspng, with limits so a hostile file cannot ask for much.
 *
 * libspng checks chunk CRCs and the zlib stream; a truncated or damaged
 * file fails to decode instead of giving partial pixels.
 */
#include "png.h"

#include "exif.h"

#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PNG_MAX_SIDE 65535		/* as JPEG: bale's largest image */
#define PNG_CHUNK_LIMIT ((size_t)64 << 20)

/* A decoder over @data with bale's limits, in *@out. */
static int png_open(const unsigned char *data, size_t size, spng_ctx **out,
    struct bale_errbuf *err)
{
	spng_ctx *ctx = spng_ctx_new(0);
	int rc;

	*out = NULL;
	if (!ctx)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	rc = spng_set_png_buffer(ctx, data, size);
	if (rc == 0)
		rc = spng_set_image_limits(ctx, PNG_MAX_SIDE, PNG_MAX_SIDE);
	if (rc == 0)
		rc = spng_set_chunk_limits(ctx, PNG_CHUNK_LIMIT,
		    PNG_CHUNK_LIMIT);
	if (rc != 0) {
		spng_ctx_free(ctx);
		return bale_errbuf_set(err, BALE_EINPUT, "png: %s",
		    spng_strerror(rc));
	}
	*out = ctx;
	return BALE_OK;
}

static int png_orientation(spng_ctx *ctx)
{
	struct spng_exif exif;

	if (spng_get_exif(ctx, &exif) != 0)
		return 1;
	return bale_exif_tiff_orientation((const unsigned char *)exif.data,
	    exif.length);
}

int bale_png_header(const unsigned char *data, size_t size,
    struct bale_image_info *info, struct bale_errbuf *err)
{
	struct spng_ihdr ihdr;
	struct spng_trns trns;
	spng_ctx *ctx;
	int rc = png_open(data, size, &ctx, err);

	if (rc != BALE_OK)
		return rc;
	rc = spng_get_ihdr(ctx, &ihdr);
	if (rc != 0) {
		spng_ctx_free(ctx);
		return bale_errbuf_set(err, BALE_EINPUT, "png: bad header: %s",
		    spng_strerror(rc));
	}
	info->w = (int)ihdr.width;
	info->h = (int)ihdr.height;
	info->grey = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE ||
	    ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
	info->alpha = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ||
	    ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA ||
	    spng_get_trns(ctx, &trns) == 0;
	info->cmyk = 0;
	info->orientation = png_orientation(ctx);
	spng_ctx_free(ctx);
	return BALE_OK;
}

int bale_png_decode(const unsigned char *data, size_t size,
    const struct bale_image_info *info, int keep_grey,
    struct bale_image *out, struct bale_errbuf *err)
{
	int fmt = info->alpha ? SPNG_FMT_RGBA8 : SPNG_FMT_RGB8;
	spng_ctx *ctx;
	size_t len;
	int rc = png_open(data, size, &ctx, err);

	if (rc != BALE_OK)
		return rc;
	if (bale_image_alloc(out, info->w, info->h, info->alpha ? 4 : 3)) {
		spng_ctx_free(ctx);
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	rc = spng_decoded_image_size(ctx, fmt, &len);
	if (rc == 0 && len != (size_t)out->w * out->h * out->ch)
		rc = SPNG_EINTERNAL;
	if (rc == 0)
		rc = spng_decode_image(ctx, out->px, len, fmt,
		    SPNG_DECODE_TRNS);
	spng_ctx_free(ctx);
	if (rc != 0) {
		bale_image_release(out);
		return bale_errbuf_set(err, BALE_EINPUT, "png: cannot decode: "
		    "%s", spng_strerror(rc));
	}
	if (keep_grey && info->grey && !info->alpha)
		bale_image_take_grey(out);
	return BALE_OK;
}

int bale_png_encode(const struct bale_image *img, unsigned char **out,
    size_t *size, struct bale_errbuf *err)
{
	static const unsigned char types[5] = { 0, SPNG_COLOR_TYPE_GRAYSCALE,
	    0, SPNG_COLOR_TYPE_TRUECOLOR, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA };
	struct spng_ihdr ihdr;
	spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
	int rc;

	if (!ctx)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	memset(&ihdr, 0, sizeof(ihdr));
	ihdr.width = (uint32_t)img->w;
	ihdr.height = (uint32_t)img->h;
	ihdr.bit_depth = 8;
	ihdr.color_type = types[img->ch];
	rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
	if (rc == 0)
		rc = spng_set_ihdr(ctx, &ihdr);
	if (rc == 0)
		rc = spng_encode_image(ctx, img->px, (size_t)img->w * img->h *
		    img->ch, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
	if (rc == 0)
		*out = spng_get_png_buffer(ctx, size, &rc);
	spng_ctx_free(ctx);
	if (rc != 0)
		return bale_errbuf_set(err, BALE_EINPUT, "png: cannot encode: "
		    "%s", spng_strerror(rc));
	return BALE_OK;
}
