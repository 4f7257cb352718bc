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

void lmdb_caffe_frame(struct lmdb_caffe_frame *f, size_t size, int64_t label)
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

int lmdb_caffe_parse(const unsigned char *p, size_t n,
    const unsigned char **data, size_t *size, int64_t *label)
{
	const unsigned char *end = p + n;
	uint64_t tag;
	uint64_t x;

	*data = NULL;
	*size = 0;
	while (p < end) {
		if (caffe_read_varint(&p, end, &tag) ||
		    caffe_read_varint(&p, end, &x))
			return -1;
		if ((tag & 7) == 2) {
			if (x > (uint64_t)(end - p))
				return -1;
			if (tag >> 3 == 4)
				*data = p, *size = (size_t)x;
			p += x;
		} else if ((tag & 7) == 0) {
			if (tag >> 3 == 5)
				*label = (int32_t)x;
		} else {
			return -1;
		}
	}
	return 0;
}
