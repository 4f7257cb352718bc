/* resize_raw.c - bale's resampler on raw RGB, for comparing with PIL:
 *   bale-resize-raw SW SH DW DH [bilinear X0 Y0 X1 Y1] < src.rgb > dst.rgb
 * (Lanczos-3 over the whole image, or bilinear over a box). */
#include "resize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct bale_resize_box box;
	enum bale_resize_filter f = BALE_RESIZE_LANCZOS3;
	int sw, sh, dw, dh;
	size_t in;
	unsigned char *src;
	unsigned char *dst;

	if (argc != 5 && !(argc == 10 && strcmp(argv[5], "bilinear") == 0)) {
		fprintf(stderr, "usage: bale-resize-raw SW SH DW DH "
		    "[bilinear X0 Y0 X1 Y1]\n");
		return 2;
	}
	sw = atoi(argv[1]);
	sh = atoi(argv[2]);
	dw = atoi(argv[3]);
	dh = atoi(argv[4]);
	box = (struct bale_resize_box){ 0, 0, sw, sh, 0 };
	if (argc == 10) {
		f = BALE_RESIZE_BILINEAR;
		box = (struct bale_resize_box){ atof(argv[6]), atof(argv[7]),
		    atof(argv[8]), atof(argv[9]), 0 };
	}
	if (sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0)
		return 2;
	in = (size_t)sw * sh * 3;
	src = malloc(in);
	dst = malloc((size_t)dw * dh * 3);
	if (!src || !dst || fread(src, 1, in, stdin) != in ||
	    bale_resize_box(src, sw, sh, (size_t)sw * 3, &box, dst, dw, dh, 3,
	    f, NULL) != 0)
		return 1;
	fwrite(dst, 1, (size_t)dw * dh * 3, stdout);
	free(src);
	free(dst);
	return 0;
}
