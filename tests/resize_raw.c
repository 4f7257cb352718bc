/* resize_raw.c - bale's resampler on raw RGB, for comparing with PIL:
 *   bale-resize-raw SW SH DW DH < src.rgb > dst.rgb */
#include "resize.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int sw;
	int sh;
	int dw;
	int dh;
	size_t in;
	unsigned char *src;
	unsigned char *dst;

	if (argc != 5) {
		fprintf(stderr, "usage: bale-resize-raw SW SH DW DH\n");
		return 2;
	}
	sw = atoi(argv[1]);
	sh = atoi(argv[2]);
	dw = atoi(argv[3]);
	dh = atoi(argv[4]);
	if (sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0)
		return 2;
	in = (size_t)sw * sh * 3;
	src = malloc(in);
	dst = malloc((size_t)dw * dh * 3);
	if (!src || !dst || fread(src, 1, in, stdin) != in ||
	    bale_resize(src, sw, sh, dst, dw, dh, 3) != 0)
		return 1;
	fwrite(dst, 1, (size_t)dw * dh * 3, stdout);
	free(src);
	free(dst);
	return 0;
}
