/* varint.h - numbers in as few bytes as they need: seven bits a byte,
 * the high bit set on all but the last (the walk's store, the records
 * sorted past memory). */
#ifndef BALE_VARINT_H
#define BALE_VARINT_H

#include "bale_backend_util.h"

#include <stdint.h>

#define BALE_VARINT_MAX 10

/** @v into @c (BALE_VARINT_MAX bytes at most). @return its bytes */
static inline size_t bale_varint_encode(unsigned char *c, uint64_t v)
{
	size_t n = 0;

	do {
		c[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		c[n++] |= v ? 0x80 : 0;
	} while (v);
	return n;
}

static inline void bale_varint_put(struct bale_buf *b, uint64_t v)
{
	unsigned char c[BALE_VARINT_MAX];

	bale_buf_add(b, c, bale_varint_encode(c, v));
}

/** The number at *@p; *@p moves past it. */
static inline uint64_t bale_varint_get(const unsigned char **p)
{
	uint64_t v = 0;
	int shift = 0;

	while (**p & 0x80) {
		v |= (uint64_t)(**p & 0x7f) << shift;
		shift += 7;
		(*p)++;
	}
	v |= (uint64_t)**p << shift;
	(*p)++;
	return v;
}

/* Signed numbers zigzagged, so that small ones of either sign code
 * short. */
static inline uint64_t bale_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t bale_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
