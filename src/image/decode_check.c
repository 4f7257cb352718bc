/* decode_check.c - does an image decode, as a training loader will need
 * it to? (bale pack --validate, bale verify --decode)
 *
 * JPEG through libjpeg-turbo at its smallest DCT scale (1/8: every
 * entropy-coded byte is still read, so a cut or corrupt stream fails as
 * a full decode would, at a fraction of the cost); PNG through libspng
 * (every chunk CRC and the whole zlib stream). GIF, BMP, TIFF, WebP and
 * PNM are recognised by their signature and kept unchecked: bale does
 * not decode them. Anything else is not an image.
 */
#include "bale.h"
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_tools.h"
#include "image.h"
#include "jpeg.h"
#include "png.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A PNG is decoded whole (4 bytes a pixel): larger ones stay unchecked */
#define CHECK_PNG_MAX_PIXELS ((uint64_t)100000000)
/* A JPEG is decoded at 1/8 of each side */
#define CHECK_JPEG_MAX_PIXELS ((uint64_t)6400000000)

struct bale_decode_check {
	struct bale_jpeg *jpeg;
	struct bale_errbuf err;
};

int bale_decode_check_new(struct bale_decode_check **out)
{
	struct bale_decode_check *c = calloc(1, sizeof(*c));

	if (!c || bale_jpeg_new(&c->jpeg) != BALE_OK) {
		free(c);
		*out = NULL;
		return BALE_ENOMEM;
	}
	*out = c;
	return BALE_OK;
}

static int check_size(struct bale_decode_check *c,
    const struct bale_image_info *info, uint64_t limit, const char *kind)
{
	uint64_t n = (uint64_t)info->w * (uint64_t)info->h;

	if (info->w < 1 || info->h < 1)
		return bale_errbuf_set(&c->err, BALE_EINPUT, "%s: no image "
		    "size in the header (truncated or damaged file)", kind);
	if (n > limit)
		return bale_errbuf_set(&c->err, BALE_ENOTSUP, "%s of %d x %d "
		    "pixels: too large to check here", kind, info->w, info->h);
	return BALE_OK;
}

static int check_jpeg(struct bale_decode_check *c, const unsigned char *d,
    size_t n)
{
	struct bale_image_info info;
	struct bale_image img = { 0 };
	int rc = bale_jpeg_header(c->jpeg, d, n, &info, &c->err);

	if (rc == BALE_OK)
		rc = check_size(c, &info, CHECK_JPEG_MAX_PIXELS, "JPEG");
	if (rc == BALE_OK)
		rc = bale_jpeg_decode(c->jpeg, d, n, &info, 1, 1, 1, &img,
		    &c->err);
	bale_image_release(&img);
	return rc;
}

static int check_png(struct bale_decode_check *c, const unsigned char *d,
    size_t n)
{
	struct bale_image_info info;
	struct bale_image img = { 0 };
	int rc = bale_png_header(d, n, &info, &c->err);

	if (rc == BALE_OK)
		rc = check_size(c, &info, CHECK_PNG_MAX_PIXELS, "PNG");
	if (rc == BALE_OK)
		rc = bale_png_decode(d, n, &info, 1, &img, &c->err);
	bale_image_release(&img);
	return rc;
}

int bale_decode_check_run(struct bale_decode_check *c,
    const unsigned char *data, size_t size)
{
	const char *other = bale_image_format(data, size);

	bale_errbuf_clear(&c->err);
	if (other && strcmp(other, "jpeg") == 0)
		return check_jpeg(c, data, size);
	if (other && strcmp(other, "png") == 0)
		return check_png(c, data, size);
	if (other)
		return bale_errbuf_set(&c->err, BALE_ENOTSUP, "%s: bale "
		    "decodes JPEG and PNG only", other);
	return bale_errbuf_set(&c->err, BALE_EINPUT, "not an image (no "
	    "JPEG, PNG, GIF, BMP, TIFF, WebP or PNM signature)");
}

const char *bale_decode_check_errmsg(const struct bale_decode_check *c)
{
	return c->err.msg;
}

void bale_decode_check_free(struct bale_decode_check *c)
{
	if (!c)
		return;
	bale_jpeg_free(c->jpeg);
	free(c);
}
