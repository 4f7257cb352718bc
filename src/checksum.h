/* checksum.h - the per-sample checksum: zlib's CRC-32.
 *
 * CRC-32 (as zlib.crc32 in Python computes it) so any user can check a
 * sample with the standard library; it runs at several GB/s here.
 */
#ifndef BALE_CHECKSUM_H
#define BALE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

uint32_t bale_crc32(const void *data, size_t n);

#endif
