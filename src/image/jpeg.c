/* jpeg.c - TurboJPEG decode and encode, and CMYK to RGB.
 *
 * Adobe's convention is followed for CMYK: with an Adobe APP14 segment
 * (which Photoshop and libjpeg both write) the stored values are
 * inverted, 255 meaning no ink; without one, 255 is full ink.
 */
#include "jpeg.h"

#include "exif.h"
#include "jpegseg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

/* Progressive files may not have more scans than libjpeg-turbo's limit
 * (500): a crafted file with millions of scans would take minutes. */
#define JPEG_DECODE_FLAGS TJFLAG_LIMITSCANS
/* TurboJPEG compresses with the fast integer DCT unless told otherwise;
 * the accurate one is libjpeg's default, so PIL's, and gives the same
 * bytes as PIL for the same pixels and settings. */
#define JPEG_ENCODE_FLAGS (TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT)

struct bale_jpeg {
	tjhandle dec;
	tjhandle enc;
};

int bale_jpeg_new(struct bale_jpeg **out)
{
	struct bale_jpeg *j = calloc(1, sizeof(*j));

	if (!j)
		return -1;
	j->dec = tjInitDecompress();
	j->enc = tjInitCompress();
	if (!j->dec || !j->enc) {
		bale_jpeg_free(j);
		return -1;
	}
	*out = j;
	return 0;
}

void bale_jpeg_free(struct bale_jpeg *j)
{
	if (!j)
		return;
	if (j->dec)
		tjDestroy(j->dec);
	if (j->enc)
		tjDestroy(j->enc);
	free(j);
}

int bale_jpeg_header(struct bale_jpeg *j, const unsigned char *data,
    size_t size, struct bale_image_info *info, struct bale_errbuf *err)
{
	int subsamp, cs;

	if (tjDecompressHeader3(j->dec, data, (unsigned long)size, &info->w,
	    &info->h, &subsamp, &cs) != 0)
		return bale_errbuf_set(err, BALE_EINPUT, "jpeg: bad header: %s",
		    tjGetErrorStr2(j->dec));
	info->grey = cs == TJCS_GRAY;
	info->alpha = 0;
	info->cmyk = cs == TJCS_CMYK || cs == TJCS_YCCK;
	info->orientation = bale_exif_orientation(data, size);
	return BALE_OK;
}

/* The smallest DCT scale (1/2, 1/4, 1/8) that keeps @w x @h at least
 * @min_w x @min_h, as a denominator; 1 when none does. The test is
 * w / d >= min_w exactly, as PIL's Image.draft() makes it, so that the
 * resampler after it only ever shrinks. */
static int jpeg_scale(int w, int h, int min_w, int min_h)
{
	int d;

	for (d = 8; d >= 2; d /= 2)
		if ((int64_t)min_w * d <= w && (int64_t)min_h * d <= h)
			return d;
	return 1;
}

/* 255 - (c + k) with multiplication, as print does: Adobe-inverted
 * values (255 = no ink) when @inverted. */
void bale_jpeg_cmyk_to_rgb(struct bale_image *img, int inverted)
{
	size_t n = (size_t)img->w * (size_t)img->h;
	const unsigned char *s = img->px;
	unsigned char *d = img->px;
	unsigned c, k;
	size_t i;
	int ch;

	for (i = 0; i < n; i++, s += 4, d += 3) {
		k = inverted ? s[3] : 255u - s[3];	/* 255 - ink */
		for (ch = 0; ch < 3; ch++) {
			c = inverted ? 255u - s[ch] : s[ch];	/* ink */
			d[ch] = (unsigned char)(k - bale_mul255(c, k));
		}
	}
	img->ch = 3;
}

int bale_jpeg_warning_harmless(const char *msg)
{
	static const char *const ok[] = {
		"extraneous bytes before marker",
		"Unknown Adobe color transform code",
		"unknown JFIF revision number",
		"Invalid SOS parameters for sequential JPEG",
		"bad ICC marker",
		"Inconsistent progression sequence",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strstr(msg, ok[i]))
			return 1;
	return 0;
}

/* TurboJPEG reports a fatal error after a warning as a warning too:
 * only a warning, and a harmless one, keeps the image. */
static int jpeg_harmless(tjhandle h)
{
	return tjGetErrorCode(h) == TJERR_WARNING &&
	    bale_jpeg_warning_harmless(tjGetErrorStr2(h));
}

int bale_jpeg_decode(struct bale_jpeg *j, const unsigned char *data,
    size_t size, const struct bale_image_info *info, int min_w, int min_h,
    int keep_grey, struct bale_image *out, struct bale_errbuf *err)
{
	int d = jpeg_scale(info->w, info->h, min_w, min_h);
	int w = (info->w + d - 1) / d;
	int h = (info->h + d - 1) / d;
	int pf = TJPF_RGB;
	const unsigned char *seg;
	size_t seglen;
	int ch = 3;

	if (info->cmyk) {
		pf = TJPF_CMYK;
		ch = 4;
	} else if (info->grey && keep_grey) {
		pf = TJPF_GRAY;
		ch = 1;
	}
	if (bale_image_alloc(out, w, h, ch) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	if (tjDecompress2(j->dec, data, (unsigned long)size, out->px, w, 0, h,
	    pf, JPEG_DECODE_FLAGS) != 0 && !jpeg_harmless(j->dec)) {
		bale_image_release(out);
		return bale_errbuf_set(err, BALE_EINPUT, "jpeg: cannot decode: "
		    "%s", tjGetErrorStr2(j->dec));
	}
	if (info->cmyk)
		bale_jpeg_cmyk_to_rgb(out, bale_jpegseg_find(data, size, 0xEE,
		    "Adobe", 5, &seg, &seglen));
	return BALE_OK;
}

int bale_jpeg_encode(struct bale_jpeg *j, const struct bale_image *img,
    int quality, int subsamp, unsigned char **out, size_t *size,
    struct bale_errbuf *err)
{
	int ss = subsamp == 444 ? TJSAMP_444 : subsamp == 422 ? TJSAMP_422 :
	    TJSAMP_420;
	int pf = img->ch == 1 ? TJPF_GRAY : TJPF_RGB;
	unsigned long len;
	unsigned char *buf;

	if (img->ch == 1)
		ss = TJSAMP_GRAY;
	len = tjBufSize(img->w, img->h, ss);
	buf = malloc(len);
	if (!buf)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	if (tjCompress2(j->enc, img->px, img->w, 0, img->h, pf, &buf, &len,
	    ss, quality, JPEG_ENCODE_FLAGS) != 0) {
		free(buf);
		return bale_errbuf_set(err, BALE_EINPUT, "jpeg: cannot encode: "
		    "%s", tjGetErrorStr2(j->enc));
	}
	*out = buf;
	*size = len;
	return BALE_OK;
}
