/* loader_boxes.c - the loader's train crop boxes for a W x H image, one
 * per position, for comparing their distribution with torchvision's
 * RandomResizedCrop.get_params (tests/python/test_loader.py):
 *   bale-loader-boxes W H N > "x0 y0 x1 y1" lines */
#include "loader_box.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct bale_loader_box_cfg cfg = { 1, 224, 224, 256, { 0.08, 1.0 },
	    { 3.0 / 4, 4.0 / 3 } };
	struct bale_loader_rng rng;
	struct bale_crop_box b;
	int w, h, flip;
	long n, i;

	if (argc != 4)
		return 2;
	w = atoi(argv[1]);
	h = atoi(argv[2]);
	n = atol(argv[3]);
	for (i = 0; i < n; i++) {
		bale_loader_rng_init(&rng, 1, 0, (uint64_t)i);
		bale_loader_box(&cfg, w, h, &rng, &b, &flip);
		printf("%g %g %g %g\n", b.x0, b.y0, b.x1, b.y1);
	}
	return 0;
}
