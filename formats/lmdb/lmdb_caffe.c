/* lmdb_caffe.c - the Datum protobuf of the Caffe layout (lmdb_caffe.h). */
#include "lmdb_caffe.h"

static size_t caffe_varint(unsigned char *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

void bale_lmdb_caffe_frame(struct bale_lmdb_caffe_frame *f, size_t size,
    int64_t label)
{
	f->nhead = 0;
	f->head[f->nhead++] = (4 << 3) | 2;
	f->nhead += caffe_varint(f->head + f->nhead, size);
	f->ntail = 0;
	f->tail[f->ntail++] = (5 << 3) | 0;
	/* int32 label: negative values take ten bytes, as protobuf does */
	f->ntail += caffe_varint(f->tail + f->ntail,
	    (uint64_t)(int64_t)(int32_t)label);
	f->tail[f->ntail++] = (7 << 3) | 0;
	f->tail[f->ntail++] = 1;
}

/* A protobuf varint at [*p, end); -1 when malformed. */
static int caffe_read_varint(const unsigned char **p, const unsigned char *end,
    uint64_t *out)
{
	uint64_t v = 0;
	int shift;

	for (shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* Skip a field of wire type 1 (8 bytes) or 5 (4 bytes): float_data
 * and any field a newer Caffe added. -1 past the end or another type. */
static int caffe_skip_fixed(const unsigned char **p, const unsigned char *end,
    uint64_t tag)
{
	size_t n = (tag & 7) == 1 ? 8 : (tag & 7) == 5 ? 4 : 0;

	if (n == 0 || n > (size_t)(end - *p))
		return -1;
	*p += n;
	return 0;
}

/* The Datum's shape and flags, to tell raw pixels from an image file. */
struct caffe_shape {
	uint64_t dim[3];	/* channels, height, width */
	int encoded;
};

static void caffe_varint_field(uint64_t field, uint64_t x,
    struct caffe_shape *sh, int64_t *label)
{
	if (field >= 1 && field <= 3)
		sh->dim[field - 1] = x;
	else if (field == 5)
		*label = (int32_t)x;
	else if (field == 7)
		sh->encoded = x != 0;
}

/* Raw pixels: not marked encoded, and exactly C x H x W bytes. (Writers
 * that store image files but forget the flag leave the shape unset.) */
static int caffe_is_raw(const struct caffe_shape *sh, size_t size)
{
	return !sh->encoded && sh->dim[0] && sh->dim[1] && sh->dim[2] &&
	    sh->dim[0] * sh->dim[1] * sh->dim[2] == size;
}

int bale_lmdb_caffe_parse(const unsigned char *p, size_t n,
    const unsigned char **data, size_t *size, int64_t *label)
{
	const unsigned char *end = p + n;
	struct caffe_shape sh = { { 0, 0, 0 }, 0 };
	uint64_t tag;
	uint64_t x;

	*data = NULL;
	*size = 0;
	while (p < end) {
		if (caffe_read_varint(&p, end, &tag))
			return -1;
		if ((tag & 7) != 0 && (tag & 7) != 2) {
			if (caffe_skip_fixed(&p, end, tag))
				return -1;
			continue;
		}
		if (caffe_read_varint(&p, end, &x))
			return -1;
		if ((tag & 7) == 0) {
			caffe_varint_field(tag >> 3, x, &sh, label);
			continue;
		}
		if (x > (uint64_t)(end - p))
			return -1;
		if (tag >> 3 == 4)
			*data = p, *size = (size_t)x;
		p += x;
	}
	return caffe_is_raw(&sh, *size) ? -2 : 0;
}
