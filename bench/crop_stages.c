/* crop_stages.c - where a pass-through training crop's time goes, per
 * image, against libjpeg-turbo's own full decode of the same files.
 *
 * For K JPEGs, read into memory first, in one thread:
 *   full     the whole image decoded at full scale to RGB (libjpeg-turbo
 *            alone: what a loader that decodes, then crops, pays first)
 *   entropy  the whole image's Huffman decoding alone
 *            (jpeg_read_coefficients): no IDCT, no colour
 *   crop     the crop decoded as bale's loader decodes it: a box drawn
 *            as torchvision's RandomResizedCrop(SIZE) draws them, the
 *            largest DCT scale (1/2, 1/4, 1/8) that keeps the box at
 *            least SIZE, jpeg_crop_scanline for its columns,
 *            jpeg_skip_scanlines above it, no row below it
 * A crop must Huffman-decode every row down to the box's last (all
 * columns: a Huffman stream cannot be entered part-way), so its entropy
 * part is each image's entropy time times the share of its rows down to
 * the box's bottom; the rest of the crop is IDCT, upsampling and colour
 * for the box's blocks. What bale's loader spends past the crop
 * (resampling to SIZE, flip, the batch store) is its own crop time
 * (bale-crop-raw --bench on the same images) less this crop decode. The
 * boxes follow torchvision's distribution, not the loader's seeds.
 *
 *   cc -O2 -o crop_stages bench/crop_stages.c -ljpeg -lm
 *   ./crop_stages SIZE K FILE...   -> microseconds a sample, one line
 */
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jpeglib.h>

struct stage_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
};

struct stage_file {
	unsigned char *data;
	unsigned long size;
	int box[4];		/* x, y, w, h at full scale */
	double entropy;		/* seconds, the whole image's */
};

enum { STAGE_FULL, STAGE_ENTROPY, STAGE_CROP };

static void stage_fail(j_common_ptr c)
{
	longjmp(((struct stage_err *)c->err)->jump, 1);
}

static void stage_quiet(j_common_ptr c, int level)
{
	(void)c;
	(void)level;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double uniform(uint64_t *s, double lo, double hi)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

/* torchvision's RandomResizedCrop box: area share 0.08-1, aspect 3/4-4/3
 * on a log scale, ten tries, then the centre square. */
static void draw_box(uint64_t *s, int w, int h, int *box)
{
	double target, ratio;
	int i, cw, ch;

	for (i = 0; i < 10; i++) {
		target = (double)w * h * uniform(s, 0.08, 1.0);
		ratio = exp(uniform(s, log(3.0 / 4), log(4.0 / 3)));
		cw = (int)lround(sqrt(target * ratio));
		ch = (int)lround(sqrt(target / ratio));
		if (cw > 0 && ch > 0 && cw <= w && ch <= h) {
			box[0] = (int)uniform(s, 0, w - cw + 1);
			box[1] = (int)uniform(s, 0, h - ch + 1);
			box[2] = cw;
			box[3] = ch;
			return;
		}
	}
	box[2] = box[3] = w < h ? w : h;
	box[0] = (w - box[2]) / 2;
	box[1] = (h - box[3]) / 2;
}

/* The largest DCT scale denominator keeping @box at least @out. */
static int crop_scale(const int *box, int out)
{
	int s;

	for (s = 8; s > 1; s /= 2)
		if (box[2] / s >= out && box[3] / s >= out)
			break;
	return s;
}

/* Decode the rows [y0, y1) of the crop's columns at scale 1/@s (the
 * whole image: @box NULL). @return the share of rows decoded, or -1 */
static double decode_rows(struct jpeg_decompress_struct *d, const int *box,
    int s, unsigned char *row)
{
	JSAMPROW rows[1] = { row };
	JDIMENSION cx, cw;
	int y0 = 0, y1;

	d->out_color_space = JCS_RGB;
	d->dct_method = JDCT_ISLOW;
	d->scale_num = 1;
	d->scale_denom = (unsigned)s;
	jpeg_start_decompress(d);
	y1 = (int)d->output_height;
	if (box) {
		cx = (JDIMENSION)(box[0] / s);
		cw = (JDIMENSION)(box[2] / s ? box[2] / s : 1);
		jpeg_crop_scanline(d, &cx, &cw);
		y0 = box[1] / s;
		y1 = (box[1] + box[3]) / s;
		y1 = y1 > y0 ? y1 : y0 + 1;
		y1 = y1 < (int)d->output_height ? y1 : (int)d->output_height;
		if (y0)
			jpeg_skip_scanlines(d, (JDIMENSION)y0);
	}
	while ((int)d->output_scanline < y1)
		jpeg_read_scanlines(d, rows, 1);
	return (double)y1 / d->output_height;
}

/* Start decoding @f through @d, up to its header; an error long-jumps to
 * the caller's setjmp on @err->jump (set before: the caller destroys @d
 * there). */
static void stage_open(struct jpeg_decompress_struct *d,
    struct stage_err *err, const struct stage_file *f)
{
	d->err = jpeg_std_error(&err->mgr);
	err->mgr.error_exit = stage_fail;
	err->mgr.emit_message = stage_quiet;
	jpeg_create_decompress(d);
	jpeg_mem_src(d, f->data, f->size);
	jpeg_read_header(d, TRUE);
}

/* One stage of @f. @return the share of the image's rows it decoded
 * (1 but for the crop), or -1 when the file does not decode */
static double run(const struct stage_file *f, int stage, int out,
    unsigned char *row)
{
	struct jpeg_decompress_struct d;
	struct stage_err err;
	volatile double share = 1;	/* set after the setjmp */

	if (setjmp(err.jump)) {
		jpeg_destroy_decompress(&d);
		return -1;
	}
	stage_open(&d, &err, f);
	if (stage == STAGE_ENTROPY)
		jpeg_read_coefficients(&d);
	else if (stage == STAGE_FULL)
		decode_rows(&d, NULL, 1, row);
	else
		share = decode_rows(&d, f->box, crop_scale(f->box, out), row);
	jpeg_abort_decompress(&d);
	jpeg_destroy_decompress(&d);
	return share;
}

/* @path into @f with its box drawn. @return 0, or -1 */
static int load(const char *path, struct stage_file *f, uint64_t *s)
{
	struct jpeg_decompress_struct d;
	struct stage_err err;
	FILE *in = fopen(path, "rb");
	long n = -1;

	if (in && fseek(in, 0, SEEK_END) == 0)
		n = ftell(in);
	if (n <= 0 || fseek(in, 0, SEEK_SET) != 0 ||
	    !(f->data = malloc((size_t)n)) ||
	    fread(f->data, 1, (size_t)n, in) != (size_t)n) {
		if (in)
			fclose(in);
		return -1;
	}
	fclose(in);
	f->size = (unsigned long)n;
	if (setjmp(err.jump)) {
		jpeg_destroy_decompress(&d);
		return -1;
	}
	stage_open(&d, &err, f);
	draw_box(s, (int)d.image_width, (int)d.image_height, f->box);
	jpeg_destroy_decompress(&d);
	return 0;
}

int main(int argc, char **argv)
{
	int size = argc > 3 ? atoi(argv[1]) : 0;
	int k = argc > 3 ? atoi(argv[2]) : 0;
	unsigned char *row = malloc((size_t)3 * 65536);
	double t[3] = { 0, 0, 0 }, crop_entropy = 0, t0, t1, share;
	struct stage_file *files;
	uint64_t seed = 1;
	int i, stage;

	if (size < 1 || k < 1 || !row) {
		fprintf(stderr, "usage: crop_stages SIZE K FILE...\n");
		return 2;
	}
	k = k < argc - 3 ? k : argc - 3;
	files = calloc((size_t)k, sizeof(*files));
	for (i = 0; files && i < k; i++)
		if (load(argv[3 + i], &files[i], &seed) != 0)
			return 1;
	if (!files)
		return 1;
	for (stage = STAGE_FULL; stage <= STAGE_CROP; stage++) {
		t0 = now();
		for (i = 0; i < k; i++) {
			t1 = now();
			share = run(&files[i], stage, size, row);
			if (share < 0)
				return 1;
			if (stage == STAGE_ENTROPY)
				files[i].entropy = now() - t1;
			if (stage == STAGE_CROP)	/* its rows' share */
				crop_entropy += files[i].entropy * share;
		}
		t[stage] = (now() - t0) / k * 1e6;
	}
	crop_entropy = crop_entropy / k * 1e6;
	printf("full %.0f entropy %.0f crop %.0f crop_entropy %.0f "
	    "crop_idct_colour %.0f\n", t[STAGE_FULL], t[STAGE_ENTROPY],
	    t[STAGE_CROP], crop_entropy, t[STAGE_CROP] - crop_entropy);
	return 0;
}
