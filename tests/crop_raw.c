/* crop_raw.c - the loader's crop decode of one file, for comparing with
 * PIL (tests/interop/crop_vs_pil.py):
 *   bale-crop-raw FILE X0 Y0 X1 Y1 OW OH FLIP SCALING > crop.rgb */
#include "crop_decode.h"

#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	struct bale_cropper *c = NULL;
	struct bale_errbuf err = { 0, 0, "" };
	struct bale_crop_box box;
	unsigned char *data, *out;
	size_t n = 0;
	int w, h, ow, oh;

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
