/* exif.h - the one EXIF field bale acts on: orientation. */
#ifndef BALE_EXIF_H
#define BALE_EXIF_H

#include <stddef.h>

/** The EXIF orientation (1..8) of the JPEG in @data: 1 (as stored) when
 *  the file has no EXIF, no orientation tag, or one that cannot be read.
 *  Reads nothing outside [data, data + size). */
int bale_exif_orientation(const unsigned char *data, size_t size);

#endif
