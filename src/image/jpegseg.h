/* jpegseg.h - find an application segment in a JPEG's header. */
#ifndef BALE_JPEGSEG_H
#define BALE_JPEGSEG_H

#include <stddef.h>

/** The payload of the first segment with @marker (0xE0..0xEF) whose
 *  payload starts with the @idlen bytes of @id, found before the first
 *  scan. *@seg points at the payload (id included), *@len is its length.
 *  Reads nothing outside [data, data + size).
 *  @return 1 when found, else 0 */
int bale_jpegseg_find(const unsigned char *data, size_t size,
    unsigned marker, const char *id, size_t idlen,
    const unsigned char **seg, size_t *len);

#endif
