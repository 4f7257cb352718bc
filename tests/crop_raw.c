/* crop_raw.c - the loader's crop decode of one file, for comparing with
 * PIL (tests/interop/crop_vs_pil.py):
 *   bale-crop-raw FILE X0 Y0 X1 Y1 OW OH FLIP SCALING > crop.rgb
 * and its limit, for bench/loader.sh: K samples of an output read into
 * memory first, then each cropped as the loader trains (a box drawn per
 * sample, SIZE x SIZE), in one thread, no pipeline:
 *   bale-crop-raw --bench OUTPUT K SIZE  -> samples/s */
#include "crop_decode.h"
#include "loader_box.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned char *crop_slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	long len;

	if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)len)) &&
	    fread(data, 1, (size_t)len, f) == (size_t)len)
		*n = (size_t)len;
	else {
		free(data);
		data = NULL;
	}
	if (f)
		fclose(f);
	return data;
}

struct crop_sample {
	unsigned char *data;
	size_t size;
};

/* The first @k samples of @path, copied into memory. */
static struct crop_sample *crop_read(const char *path, uint64_t *k)
{
	struct bale_reader *r = NULL;
	struct crop_sample *s;
	struct bale_blob b;
	uint64_t n = 0, i;

	if (bale_reader_new(&r) != BALE_OK || bale_reader_option(r, "meta",
	    "0") != BALE_OK || bale_reader_open(r, NULL, path) != BALE_OK ||
	    bale_reader_count(r, &n) != BALE_OK)
		return NULL;
	*k = *k < n ? *k : n;
	s = calloc(*k ? *k : 1, sizeof(*s));
	for (i = 0; s && i < *k; i++) {
		if (bale_reader_get(r, i, &b) != BALE_OK ||
		    !(s[i].data = malloc(b.size ? b.size : 1)))
			exit(1);
		memcpy(s[i].data, b.data, b.size);
		s[i].size = b.size;
	}
	bale_reader_free(r);
	return s;
}

static int crop_bench(const char *path, uint64_t k, int size)
{
	struct bale_loader_box_cfg cfg = { 1, size, size, size * 256 / 224,
	    { 0.08, 1.0 }, { 3.0 / 4, 4.0 / 3 } };
	struct crop_sample *s = crop_read(path, &k);
	unsigned char *out = malloc((size_t)size * size * 3);
	struct bale_errbuf err = { 0, 0, "" };
	struct bale_cropper *c = NULL;
	struct bale_loader_rng rng;
	struct bale_crop_box box;
	struct timespec t0, t1;
	uint64_t i, done = 0;
	int w, h, flip;

	if (!s || !out || bale_cropper_new(&c) != BALE_OK)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < k; i++) {
		if (bale_cropper_open(c, s[i].data, s[i].size, NULL, &w, &h,
		    &err) != BALE_OK)
			continue;
		bale_loader_rng_init(&rng, 1, 0, i);
		bale_loader_box(&cfg, w, h, &rng, &box, &flip);
		done += bale_cropper_run(c, &box, &(struct bale_crop_out){
		    size, size, flip, 1, 0, out }, &err) == BALE_OK;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.0f\n", (double)done / ((double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9));
	bale_cropper_free(c);
	return done == k ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct bale_cropper *c = NULL;
	struct bale_errbuf err = { 0, 0, "" };
	struct bale_crop_box box;
	unsigned char *data, *out;
	size_t n = 0;
	int w, h, ow, oh;

	if (argc == 5 && strcmp(argv[1], "--bench") == 0)
		return crop_bench(argv[2], strtoull(argv[3], NULL, 10),
		    atoi(argv[4]));
	if (argc != 10) {
		fprintf(stderr, "usage: bale-crop-raw FILE X0 Y0 X1 Y1 OW OH "
		    "FLIP SCALING\n");
		return 2;
	}
	box = (struct bale_crop_box){ atof(argv[2]), atof(argv[3]),
	    atof(argv[4]), atof(argv[5]) };
	ow = atoi(argv[6]);
	oh = atoi(argv[7]);
	data = crop_slurp(argv[1], &n);
	out = ow > 0 && oh > 0 ? malloc((size_t)ow * oh * 3) : NULL;
	if (!data || !out || bale_cropper_new(&c) != BALE_OK ||
	    bale_cropper_open(c, data, n, NULL, &w, &h, &err) != BALE_OK ||
	    bale_cropper_run(c, &box, &(struct bale_crop_out){ ow, oh,
	    atoi(argv[8]), atoi(argv[9]), 0, out }, &err) != BALE_OK) {
		fprintf(stderr, "bale-crop-raw: %s\n", err.msg[0] ? err.msg :
		    "cannot read the file");
		return 1;
	}
	fwrite(out, 1, (size_t)ow * oh * 3, stdout);
	bale_cropper_free(c);
	free(data);
	free(out);
	return 0;
}
