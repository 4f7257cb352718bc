/* jpegseg.c - walk a JPEG's marker segments up to the first scan.
 *
 * The bytes are untrusted: each length is checked against what is left
 * before it is followed, and anything unexpected ends the search.
 */
#include "jpegseg.h"

#include <string.h>

int bale_jpegseg_find(const unsigned char *data, size_t size,
    unsigned marker, const char *id, size_t idlen,
    const unsigned char **seg, size_t *len)
{
	size_t pos = 2;
	size_t n;
	unsigned m;

	if (size < 4 || data[0] != 0xFF || data[1] != 0xD8)
		return 0;
	while (pos + 4 <= size) {
		if (data[pos] != 0xFF)
			return 0;
		m = data[pos + 1];
		if (m == 0xFF) {	/* fill byte */
			pos++;
			continue;
		}
		if (m == 0xDA || m == 0xD9)	/* SOS, EOI */
			return 0;
		n = (size_t)data[pos + 2] << 8 | data[pos + 3];
		if (n < 2 || n > size - pos - 2)
			return 0;
		if (m == marker && n - 2 >= idlen &&
		    memcmp(data + pos + 4, id, idlen) == 0) {
			*seg = data + pos + 4;
			*len = n - 2;
			return 1;
		}
		pos += 2 + n;
	}
	return 0;
}
