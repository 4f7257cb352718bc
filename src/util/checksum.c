/* checksum.c - CRC-32 over buffers of any size. */
#include "bale.h"

#include <limits.h>
#include <zlib.h>

uint32_t bale_crc32(const void *data, size_t n)
{
	const unsigned char *p = data;
	uLong crc = crc32(0L, Z_NULL, 0);
	uInt chunk;

	/* zlib takes uInt lengths; feed files over 4 GiB in pieces */
	while (n > 0) {
		chunk = n > UINT_MAX ? UINT_MAX : (uInt)n;
		crc = crc32(crc, p, chunk);
		p += chunk;
		n -= chunk;
	}
	return (uint32_t)crc;
}
