/* mkdata.c - generate image trees for tests, the demo and benchmarks.
 *
 *   bale-mkdata tricky DIR [--bad]
 *       A fixed ImageFolder tree with hard class and file names (case,
 *       digits, unicode, spaces, dots, leading dashes, hidden entries),
 *       nested folders whose order tests torchvision's rule, JPEG and PNG
 *       of many sizes (1x1 to a multi-MiB image), non-image files and a
 *       symlinked folder. --bad adds inputs that must be skipped or
 *       reported: zero-byte, broken symlink, FIFO, empty class, symlink
 *       loop.
 *   bale-mkdata random DIR [-n N] [--classes C] [--min PX] [--max PX]
 *                          [--seed S] [-j J]
 *       N JPEGs (default 1000) in C classes, sides uniform in [min, max]
 *       (default 200..1200), textured so the mean file is ~110 KB: an
 *       ImageNet-like tree.
 *
 * Output is a function of the arguments only.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <turbojpeg.h>
#include <unistd.h>
#include <zlib.h>

#define TEX_SIDE 2400			/* texture the images are cut from */
#define GRAIN 14			/* noise amplitude: sets JPEG size */

static unsigned char *texture;

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "bale-mkdata: %s '%s': %s\n", what, path,
	    strerror(errno));
	exit(1);
}

/* Smooth colour waves plus grain: compresses like a photo. */
static void make_texture(uint64_t seed)
{
	size_t n = (size_t)TEX_SIDE * TEX_SIDE * 3;
	uint64_t s = seed;
	size_t x;
	size_t y;
	int c;
	int v;

	texture = malloc(n);
	if (!texture)
		exit(1);
	for (y = 0; y < TEX_SIDE; y++)
		for (x = 0; x < TEX_SIDE; x++)
			for (c = 0; c < 3; c++) {
				v = (int)((x * (3 + c) + y * (5 - c)) / 7 % 200)
				    + (int)(rng_next(&s) % GRAIN);
				texture[(y * TEX_SIDE + x) * 3 + c] =
				    (unsigned char)v;
			}
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		die("cannot create", path);
	if (n && fwrite(data, 1, n, f) != n)
		die("cannot write", path);
	if (fclose(f) != 0)
		die("cannot write", path);
}

/* A window of the texture, offset by @pick, as a JPEG. */
static void write_jpeg(const char *path, int w, int h, int quality,
    uint64_t pick)
{
	tjhandle tj = tjInitCompress();
	unsigned char *jpeg = NULL;
	unsigned long size = 0;
	size_t ox = pick % (uint64_t)(TEX_SIDE - (w < TEX_SIDE ? w : 0) + 1);
	size_t oy = (pick >> 20) %
	    (uint64_t)(TEX_SIDE - (h < TEX_SIDE ? h : 0) + 1);
	const unsigned char *src = texture + (oy * TEX_SIDE + ox) * 3;

	if (!tj || w > TEX_SIDE || h > TEX_SIDE ||
	    tjCompress2(tj, src, w, TEX_SIDE * 3, h, TJPF_RGB, &jpeg, &size,
	    TJSAMP_420, quality, 0) != 0) {
		fprintf(stderr, "bale-mkdata: jpeg %dx%d: %s\n", w, h,
		    tjGetErrorStr2(tj));
		exit(1);
	}
	write_file(path, jpeg, size);
	tjFree(jpeg);
	tjDestroy(tj);
}

static void png_chunk(FILE *f, const char *type, const unsigned char *d,
    uint32_t n)
{
	unsigned char be[4] = { n >> 24, n >> 16, n >> 8, n };
	uLong crc = crc32(0, (const Bytef *)type, 4);

	if (n)
		crc = crc32(crc, d, n);
	fwrite(be, 1, 4, f);
	fwrite(type, 1, 4, f);
	if (n)
		fwrite(d, 1, n, f);
	be[0] = crc >> 24, be[1] = crc >> 16, be[2] = crc >> 8, be[3] = crc;
	fwrite(be, 1, 4, f);
}

/* An 8-bit RGB PNG from the texture (filter 0 on every row). */
static void write_png(const char *path, int w, int h)
{
	static const unsigned char sig[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
	unsigned char ihdr[13] = { w >> 24, w >> 16, w >> 8, w, h >> 24,
	    h >> 16, h >> 8, h, 8, 2, 0, 0, 0 };
	size_t row = (size_t)w * 3 + 1;
	uLongf zn = compressBound(row * (size_t)h);
	unsigned char *raw = calloc(row, (size_t)h);
	unsigned char *z = malloc(zn);
	FILE *f = fopen(path, "wb");
	int y;

	if (!raw || !z || !f)
		die("cannot create", path);
	for (y = 0; y < h; y++)
		memcpy(raw + (size_t)y * row + 1,
		    texture + (size_t)y * TEX_SIDE * 3, row - 1);
	if (compress2(z, &zn, raw, row * (size_t)h, 6) != Z_OK)
		die("zlib failed on", path);
	fwrite(sig, 1, 8, f);
	png_chunk(f, "IHDR", ihdr, 13);
	png_chunk(f, "IDAT", z, (uint32_t)zn);
	png_chunk(f, "IEND", NULL, 0);
	if (ferror(f) || fclose(f) != 0)
		die("cannot write", path);
	free(raw);
	free(z);
}

static void mkdir_p(const char *dir, const char *sub)
{
	char path[4096];
	char *p;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			die("cannot create", path);
		*p = '/';
	}
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		die("cannot create", path);
}

/* ---- the tricky tree --------------------------------------------------- */

struct tricky_file {
	const char *path;	/* below the root */
	int w;
	int h;			/* 0x0: a text file, not an image */
};

static const char *const tricky_dirs[] = {
	"Zebra", "apple", "apple/sub", "apple/sub b", "apple/sub/inner",
	"10", "9", "\xc3\xa9" "clair", "\xe6\x97\xa5\xe6\x9c\xac", "a b",
	"a.b", ".hidden_class", "-dash", NULL,
};

static const struct tricky_file tricky_files[] = {
	{ "Zebra/img_001.jpg", 64, 48 },
	{ "Zebra/IMG_002.JPG", 1, 1 },
	{ "Zebra/photo.Jpeg", 300, 200 },
	{ "Zebra/b.png", 17, 33 },
	{ "Zebra/B.PNG", 33, 17 },
	{ "apple/x y z.png", 120, 80 },
	{ "apple/sub/deep.jpg", 1000, 10 },
	{ "apple/sub b/space dir.jpg", 10, 1000 },
	{ "apple/sub/inner/inner.png", 5, 5 },
	{ "apple/readme.txt", 0, 0 },
	{ "apple/noext", 0, 0 },
	{ "10/ten.jpg", 640, 480 },
	{ "10/.hidden.jpg", 32, 32 },
	{ "10/big.jpg", 2400, 1800 },
	{ "9/nine.jpeg", 200, 300 },
	{ "9/-leading-dash.jpg", 40, 40 },
	{ "9/name.with.dots.png", 16, 16 },
	{ "\xc3\xa9" "clair/\xc3\xbc" "n" "\xc3\xaf" "c" "\xc3\xb6" "d"
	  "\xc3\xa9" ".jpg", 50, 70 },
	{ "\xe6\x97\xa5\xe6\x9c\xac/\xe5\x86\x99\xe7\x9c\x9f.png", 24, 24 },
	{ "a b/a.jpg", 3, 2 },
	{ "a.b/a.jpg", 2, 3 },
	{ ".hidden_class/h.jpg", 8, 8 },
	{ "-dash/d.jpg", 9, 9 },
	{ "LICENSE.txt", 0, 0 },
	{ NULL, 0, 0 },
};

static int has_suffix_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s);
	size_t m = strlen(suffix);

	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static void tricky_file(const char *root, const struct tricky_file *t,
    uint64_t pick)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, t->path);
	if (t->w == 0)
		write_file(path, "not an image\n", 13);
	else if (has_suffix_ci(t->path, ".png"))
		write_png(path, t->w, t->h);
	else
		write_jpeg(path, t->w, t->h, t->w > 2000 ? 100 : 85, pick);
}

static void tricky_link(const char *root, const char *target,
    const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	if (symlink(target, path) != 0 && errno != EEXIST)
		die("cannot link", path);
}

/* Inputs that must be skipped with a reason, and folders to report. */
static void tricky_bad(const char *root)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/9/zero.jpg", root);
	write_file(path, "", 0);
	tricky_link(root, "does-not-exist.jpg", "9/broken.jpg");
	snprintf(path, sizeof(path), "%s/9/fifo.jpg", root);
	if (mkfifo(path, 0644) != 0 && errno != EEXIST)
		die("cannot make fifo", path);
	mkdir_p(root, "empty_class");
	tricky_link(root, "..", "10/loop");
}

static int cmd_tricky(const char *root, int bad)
{
	uint64_t s = 42;
	size_t i;

	make_texture(7);
	mkdir_p(root, "");
	for (i = 0; tricky_dirs[i]; i++)
		mkdir_p(root, tricky_dirs[i]);
	for (i = 0; tricky_files[i].path; i++)
		tricky_file(root, &tricky_files[i], rng_next(&s));
	/* a class folder reached through a link, as torchvision follows */
	tricky_link(root, "../10", "9/linked");
	if (bad)
		tricky_bad(root);
	return 0;
}

/* ---- the random tree ---------------------------------------------------- */

struct random_opts {
	const char *root;
	unsigned long n;
	unsigned classes;
	int min;
	int max;
	uint64_t seed;
	unsigned jobs;
};

static void random_one(const struct random_opts *o, unsigned long i)
{
	uint64_t s = o->seed * 1000003ULL + i;
	int span = o->max - o->min + 1;
	int w = o->min + (int)(rng_next(&s) % (uint64_t)span);
	int h = o->min + (int)(rng_next(&s) % (uint64_t)span);
	char path[4096];

	snprintf(path, sizeof(path), "%s/n%08u/img_%08lu.JPEG", o->root,
	    (unsigned)(i % o->classes), i);
	write_jpeg(path, w, h, 90, rng_next(&s));
}

static int cmd_random(const struct random_opts *o)
{
	char name[32];
	unsigned long i;
	unsigned j;
	int status;
	int rc = 0;

	make_texture(o->seed);
	mkdir_p(o->root, "");
	for (j = 0; j < o->classes; j++) {
		snprintf(name, sizeof(name), "n%08u", j);
		mkdir_p(o->root, name);
	}
	for (j = 0; j < o->jobs; j++) {
		if (fork() != 0)
			continue;
		for (i = j; i < o->n; i += o->jobs)
			random_one(o, i);
		_exit(0);
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = 1;
	return rc;
}

static int parse_random(int argc, char **argv, struct random_opts *o)
{
	static const struct option lo[] = {
		{ "classes", required_argument, NULL, 'c' },
		{ "min", required_argument, NULL, 'a' },
		{ "max", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->n = 1000, o->classes = 10, o->min = 200, o->max = 1200;
	o->seed = 1, o->jobs = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	while ((c = getopt_long(argc, argv, "n:j:", lo, NULL)) != -1) {
		switch (c) {
		case 'n': o->n = strtoul(optarg, NULL, 10); break;
		case 'j': o->jobs = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'c':
			o->classes = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'a': o->min = atoi(optarg); break;
		case 'b': o->max = atoi(optarg); break;
		case 's': o->seed = strtoull(optarg, NULL, 10); break;
		default: return -1;
		}
	}
	if (optind != argc - 1 || o->classes == 0 || o->jobs == 0 ||
	    o->min < 1 || o->max < o->min || o->max > TEX_SIDE)
		return -1;
	o->root = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	struct random_opts ro;

	if (argc >= 3 && strcmp(argv[1], "tricky") == 0)
		return cmd_tricky(argv[2], argc > 3 &&
		    strcmp(argv[3], "--bad") == 0);
	if (argc >= 3 && strcmp(argv[1], "random") == 0 &&
	    parse_random(argc - 1, argv + 1, &ro) == 0)
		return cmd_random(&ro);
	fprintf(stderr, "usage: bale-mkdata tricky DIR [--bad]\n"
	    "       bale-mkdata random DIR [-n N] [--classes C] [--min PX]"
	    " [--max PX] [--seed S] [-j J]\n");
	return 2;
}
