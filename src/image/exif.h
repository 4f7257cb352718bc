/* exif.h - the one EXIF field bale acts on: orientation. */
#ifndef BALE_EXIF_H
#define BALE_EXIF_H

#include <stddef.h>

/** The EXIF orientation (1..8) of the JPEG in @data: 1 (as stored) when
 *  the file has no EXIF, no orientation tag, or one that cannot be read.
 *  Reads nothing outside [data, data + size). */
int bale_exif_orientation(const unsigned char *data, size_t size);

/** The orientation in a bare TIFF structure ("II*\0" or "MM\0*" first),
 *  as PNG's eXIf chunk holds it; 1 when absent or unreadable. */
int bale_exif_tiff_orientation(const unsigned char *tiff, size_t size);

#endif
