/* le.h - little-endian integers read from bytes, as archives and
 * columnar files store them (zip, Parquet). */
#ifndef BALE_LE_H
#define BALE_LE_H

#include <stdint.h>

static inline uint16_t bale_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t bale_le32(const unsigned char *p)
{
	return (uint32_t)bale_le16(p) | (uint32_t)bale_le16(p + 2) << 16;
}

static inline uint64_t bale_le64(const unsigned char *p)
{
	return (uint64_t)bale_le32(p) | (uint64_t)bale_le32(p + 4) << 32;
}

#endif
