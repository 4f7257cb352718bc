/* npy.c - numpy's .npy header: magic, version 1.0, little-endian header
 * length, then a Python dict literal padded with spaces to a multiple of
 * 64 bytes and ended by a newline. */
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <stdio.h>
#include <string.h>

#define NPY_PREAMBLE 10		/* magic (6), version (2), length (2) */

size_t bale_npy_header(char *buf, int h, int w, int c)
{
	char dict[BALE_NPY_HEADER_MAX];
	size_t n, total, hlen;

	n = (size_t)snprintf(dict, sizeof(dict),
	    "{'descr': '|u1', 'fortran_order': False, "
	    "'shape': (%d, %d, %d), }", h, w, c);
	total = (NPY_PREAMBLE + n + 1 + 63) / 64 * 64;
	hlen = total - NPY_PREAMBLE;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (char)(hlen & 0xFF);
	buf[9] = (char)(hlen >> 8);
	memcpy(buf + NPY_PREAMBLE, dict, n);
	memset(buf + NPY_PREAMBLE + n, ' ', hlen - n - 1);
	buf[total - 1] = '\n';
	return total;
}
