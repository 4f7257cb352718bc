/* fuzz_hdf5.c - the HDF5 reader on hostile files that HDF5 itself reads.
 *
 * Each input is a recipe that this target follows with HDF5's API to
 * write a file: the attributes and datasets of a bale file, with their
 * types, shapes, chunking, filters and contents. A recipe byte of 0 means
 * "as bale writes it", anything else a departure: a count that disagrees
 * with the datasets, offsets past the end of images, keys wider than the
 * reader takes, images that are not N x H x W x 3 uint8, compressed or
 * never-written chunks, class names that are NULL ... Bytes that run out
 * read as 0, so every input makes a file.
 *
 * HDF5's parsing of the file's own structures is not fuzzed: the library
 * does not claim to be safe on crafted files (many of its CVEs are
 * crashes on them), and nothing bale does can guard against that. What
 * bale promises is for files HDF5 reads: no crash, no read out of
 * bounds, no allocation the file does not justify.
 */
#include "bale.h"
#include "check.h"
#include "scratch.h"

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_ROWS 16	/* samples in a recipe */
#define FUZZ_MAX_READS 64	/* samples read back */
#define FUZZ_MAX_BYTES 64	/* bytes of one sample */
#define FUZZ_HUGE ((hsize_t)1 << 30)	/* rows of a never-written extent */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the recipe --------------------------------------------------------- */

struct fz {
	const uint8_t *p;
	size_t left;
};

static void fz_fill(struct fz *f, void *out, size_t n)
{
	size_t have = n < f->left ? n : f->left;

	if (have)
		memcpy(out, f->p, have);
	memset((char *)out + have, 0, n - have);
	f->p += have;
	f->left -= have;
}

static unsigned fz_u8(struct fz *f)
{
	uint8_t v;

	fz_fill(f, &v, 1);
	return v;
}

static uint64_t fz_u64(struct fz *f)
{
	uint64_t v;

	fz_fill(f, &v, sizeof(v));
	return v;
}

/* A string of up to @max bytes, or NULL (length byte 255); free() it. */
static char *fz_string(struct fz *f, unsigned max)
{
	unsigned len = fz_u8(f);
	char *s;

	if (len == 255)
		return NULL;
	len %= max + 1;
	s = malloc(len + 1);
	if (!s)
		abort();
	fz_fill(f, s, len);
	s[len] = '\0';
	return s;
}

/* ---- writing what the recipe says ---------------------------------------- */

/* How a dataset departs from what bale writes. */
enum fz_shape {
	FZ_AS_BALE,
	FZ_ONE_MORE,	/* a row more than it should have */
	FZ_ONE_LESS,
	FZ_MISSING,
	FZ_TWO_D,	/* rows x 1 */
	FZ_OTHER_TYPE,	/* float64 where bale has integers or strings */
	FZ_UNWRITTEN,	/* a huge extent, no chunk ever written */
	FZ_CONTIGUOUS,	/* not chunked */
	FZ_SHAPES
};

/* A dataset @name of @rows elements, written from @buf (@mtype) unless
 * @shape says otherwise. HDF5 refusing part of it (a conversion it cannot
 * do) is one more departure, not a failure of the target. */
static void fz_dataset(hid_t file, const char *name, hid_t ftype,
    hid_t mtype, hsize_t rows, const void *buf, enum fz_shape shape)
{
	hsize_t dims[2] = { rows, 1 };
	hsize_t max[2] = { H5S_UNLIMITED, 1 };
	hsize_t chunk[2] = { 4, 1 };
	hid_t space, dcpl, d;

	if (shape == FZ_MISSING)
		return;
	if (shape == FZ_UNWRITTEN)
		dims[0] = FUZZ_HUGE;
	space = H5Screate_simple(shape == FZ_TWO_D ? 2 : 1, dims,
	    shape == FZ_CONTIGUOUS ? NULL : max);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (shape != FZ_CONTIGUOUS)
		H5Pset_chunk(dcpl, shape == FZ_TWO_D ? 2 : 1, chunk);
	d = H5Dcreate2(file, name, shape == FZ_OTHER_TYPE ?
	    H5T_NATIVE_DOUBLE : ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (d >= 0 && rows && shape != FZ_UNWRITTEN)
		H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
	H5Dclose(d);
	H5Pclose(dcpl);
	H5Sclose(space);
}

/* The rows a per-sample dataset holds for @n samples under @shape. */
static hsize_t fz_rows(hsize_t n, enum fz_shape shape)
{
	if (shape == FZ_ONE_MORE)
		return n + 1;
	if (shape == FZ_ONE_LESS && n > 0)
		return n - 1;
	return n;
}

static enum fz_shape fz_shape(struct fz *f)
{
	return (enum fz_shape)(fz_u8(f) % FZ_SHAPES);
}

/* A per-sample dataset of fixed-size elements, contents from the recipe. */
static void fz_numbers(struct fz *f, hid_t file, const char *name,
    hid_t type, hsize_t n)
{
	enum fz_shape shape = fz_shape(f);
	hsize_t rows = fz_rows(n, shape);
	size_t elem = H5Tget_size(type);
	void *buf = calloc(rows + 1, elem);

	if (!buf)
		abort();
	fz_fill(f, buf, rows * elem);
	fz_dataset(file, name, type, type, rows, buf, shape);
	free(buf);
}

/* Strings as bale writes them: UTF-8. */
static hid_t fz_string_type(size_t size)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	H5Tset_size(t, size);
	H5Tset_cset(t, H5T_CSET_UTF8);
	return t;
}

/* keys: fixed-width strings, the width from the recipe (bale's reader
 * takes under 64). */
static void fz_keys(struct fz *f, hid_t file, hsize_t n)
{
	enum fz_shape shape = fz_shape(f);
	hsize_t rows = fz_rows(n, shape);
	size_t width = fz_u8(f) % 80 + 1;
	hid_t type = fz_string_type(width);
	char *buf = calloc(rows + 1, width);

	if (!buf)
		abort();
	fz_fill(f, buf, rows * width);
	fz_dataset(file, "keys", type, type, rows, buf, shape);
	free(buf);
	H5Tclose(type);
}

/* paths: variable-length strings, some of them NULL. */
static void fz_paths(struct fz *f, hid_t file, hsize_t n)
{
	enum fz_shape shape = fz_shape(f);
	hsize_t rows = fz_rows(n, shape);
	hid_t type = fz_string_type(H5T_VARIABLE);
	char *paths[FUZZ_MAX_ROWS + 1] = { NULL };
	hsize_t i;

	for (i = 0; i < rows; i++)
		paths[i] = fz_string(f, 24);
	fz_dataset(file, "paths", type, type, rows, paths, shape);
	for (i = 0; i < rows; i++)
		free(paths[i]);
	H5Tclose(type);
}

/* offsets: as the sample sizes say, or with the recipe's own values. */
static void fz_offsets(struct fz *f, hid_t file, const uint64_t *off,
    hsize_t n)
{
	enum fz_shape shape = fz_shape(f);
	hsize_t rows = fz_rows(n + 1, shape);
	uint64_t buf[FUZZ_MAX_ROWS + 2] = { 0 };
	unsigned how = fz_u8(f) % 3;
	hsize_t i;

	for (i = 0; i < rows; i++)
		buf[i] = i <= n ? off[i] : off[n];
	if (how == 1 && rows)
		buf[fz_u8(f) % rows] = fz_u64(f);
	for (i = 0; how == 2 && i < rows; i++)
		buf[i] = fz_u64(f);
	fz_dataset(file, "offsets", H5T_NATIVE_UINT64, H5T_NATIVE_UINT64,
	    rows, buf, shape);
}

/* ---- images -------------------------------------------------------------- */

/* How images departs from what bale writes. */
enum fz_images {
	FZ_IMG_AS_BALE,
	FZ_IMG_DEFLATE,		/* compressed chunks */
	FZ_IMG_CONTIGUOUS,
	FZ_IMG_LONGER,		/* extent past the bytes written */
	FZ_IMG_SHORTER,		/* extent short of the offsets' end */
	FZ_IMG_WIDE,		/* 2-byte elements */
	FZ_IMG_TWO_D,
	FZ_IMG_MISSING,
	FZ_IMG_KINDS
};

/* Encoded: every sample's bytes end to end, chunked as the recipe says. */
static void fz_images_encoded(struct fz *f, hid_t file, const uint64_t *off,
    hsize_t n)
{
	enum fz_images how = (enum fz_images)(fz_u8(f) % FZ_IMG_KINDS);
	hsize_t total = off[n];
	hsize_t dims[2] = { total, 1 };
	hsize_t max[2] = { H5S_UNLIMITED, 1 };
	hsize_t chunk[2] = { fz_u8(f) % 32 + 1, 1 };
	int rank = how == FZ_IMG_TWO_D ? 2 : 1;
	unsigned char *buf = calloc(total + 1, 2);
	hid_t space, mspace, dcpl, d;

	if (!buf)
		abort();
	fz_fill(f, buf, total);
	if (how == FZ_IMG_LONGER)
		dims[0] = total + 4096;
	if (how == FZ_IMG_SHORTER && total)
		dims[0] = total - 1;
	space = H5Screate_simple(rank, dims, max);
	mspace = H5Screate_simple(rank, dims, NULL);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (how != FZ_IMG_CONTIGUOUS)
		H5Pset_chunk(dcpl, rank, chunk);
	if (how == FZ_IMG_DEFLATE)
		H5Pset_deflate(dcpl, 1);
	d = how == FZ_IMG_MISSING ? -1 : H5Dcreate2(file, "images",
	    how == FZ_IMG_WIDE ? H5T_NATIVE_UINT16 : H5T_NATIVE_UINT8,
	    how == FZ_IMG_CONTIGUOUS ? mspace : space, H5P_DEFAULT, dcpl,
	    H5P_DEFAULT);
	if (d >= 0 && dims[0] && how != FZ_IMG_LONGER)
		H5Dwrite(d, H5T_NATIVE_UINT8, mspace, H5S_ALL, H5P_DEFAULT,
		    buf);
	H5Dclose(d);
	H5Pclose(dcpl);
	H5Sclose(mspace);
	H5Sclose(space);
	free(buf);
}

/* Vlen: one variable-length uint8 row per sample. */
static void fz_images_vlen(struct fz *f, hid_t file, const uint64_t *off,
    hsize_t n)
{
	enum fz_shape shape = fz_shape(f);
	hsize_t rows = fz_rows(n, shape);
	hvl_t vl[FUZZ_MAX_ROWS + 1];
	unsigned char bytes[FUZZ_MAX_ROWS + 1][FUZZ_MAX_BYTES];
	hid_t type = H5Tvlen_create(H5T_NATIVE_UINT8);
	hsize_t i;

	for (i = 0; i < rows; i++) {
		vl[i].len = i < n ? off[i + 1] - off[i] : 1;
		vl[i].p = bytes[i];
		fz_fill(f, bytes[i], vl[i].len);
	}
	fz_dataset(file, "images", type, type, rows, vl, shape);
	H5Tclose(type);
}

/* Pixels: N x H x W x C, one image a chunk. */
static void fz_images_pixels(struct fz *f, hid_t file, hsize_t n)
{
	enum fz_images how = (enum fz_images)(fz_u8(f) % FZ_IMG_KINDS);
	hsize_t dims[4] = { n, fz_u8(f) % 4 + 1, fz_u8(f) % 4 + 1, 3 };
	hsize_t max[4] = { H5S_UNLIMITED, dims[1], dims[2], dims[3] };
	int rank = how == FZ_IMG_TWO_D ? 3 : 4;
	unsigned char buf[(FUZZ_MAX_ROWS + 1) * 4 * 4 * 5];
	hsize_t chunk[4];
	hid_t space, dcpl, d;

	if (how == FZ_IMG_SHORTER)	/* here: not 3 channels */
		dims[3] = max[3] = fz_u8(f) % 5 + 1;
	if (how == FZ_IMG_LONGER)
		dims[0] = n + 1;
	memcpy(chunk, dims, sizeof(chunk));
	chunk[0] = 1;
	fz_fill(f, buf, sizeof(buf));
	space = H5Screate_simple(rank, dims, how == FZ_IMG_CONTIGUOUS ? NULL :
	    max);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (how != FZ_IMG_CONTIGUOUS)
		H5Pset_chunk(dcpl, rank, chunk);
	if (how == FZ_IMG_DEFLATE) {
		H5Pset_shuffle(dcpl);
		H5Pset_deflate(dcpl, 1);
	}
	d = how == FZ_IMG_MISSING ? -1 : H5Dcreate2(file, "images",
	    how == FZ_IMG_WIDE ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT8, space,
	    H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (d >= 0 && dims[0] && fz_u8(f) == 0)	/* else never written */
		H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT,
		    buf);
	H5Dclose(d);
	H5Pclose(dcpl);
	H5Sclose(space);
}

/* ---- root attributes ---------------------------------------------------- */

static void fz_attr(hid_t file, const char *name, hid_t type,
    hsize_t elems, const void *buf)
{
	hid_t space = elems ? H5Screate_simple(1, &elems, NULL) :
	    H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(file, name, type, space, H5P_DEFAULT,
	    H5P_DEFAULT);

	if (a >= 0)
		H5Awrite(a, type, buf);
	H5Aclose(a);
	H5Sclose(space);
}

/* count: the samples, or a number that disagrees with them. */
static void fz_count(struct fz *f, hid_t file, hsize_t n)
{
	int64_t count = (int64_t)n;
	double other;

	switch (fz_u8(f) % 8) {
	case 1:
		count = (int64_t)n + 1;
		break;
	case 2:
		count = (int64_t)n - 1;
		break;
	case 3:
		count = (int64_t)FUZZ_HUGE;
		break;
	case 4:
		count = INT64_MAX;
		break;
	case 5:
		count = (int64_t)fz_u64(f);
		break;
	case 6:
		other = (double)n + 0.5;
		fz_attr(file, "count", H5T_NATIVE_DOUBLE, 0, &other);
		return;
	case 7:
		return;
	}
	fz_attr(file, "count", H5T_NATIVE_INT64, 0, &count);
}

/* A string attribute: @text, the recipe's own text, a number, absent,
 * or @text in ASCII (HDF5 converts no string between character sets). */
static void fz_text_attr(struct fz *f, hid_t file, const char *name,
    const char *text)
{
	hid_t vstr = fz_string_type(H5T_VARIABLE);
	unsigned how = fz_u8(f) % 5;
	char *own = how == 1 ? fz_string(f, 12) : NULL;
	int64_t number = 7;

	if (how == 4)
		H5Tset_cset(vstr, H5T_CSET_ASCII);
	if (how == 0 || how == 4)
		fz_attr(file, name, vstr, 0, &text);
	else if (how == 1)
		fz_attr(file, name, vstr, 0, &own);
	else if (how == 2)
		fz_attr(file, name, H5T_NATIVE_INT64, 0, &number);
	free(own);
	H5Tclose(vstr);
}

/* class_names: a few strings, some NULL, or not strings at all. */
static void fz_class_names(struct fz *f, hid_t file)
{
	hid_t vstr = fz_string_type(H5T_VARIABLE);
	unsigned how = fz_u8(f) % 3;
	hsize_t k = fz_u8(f) % 4;
	char *names[4] = { NULL };
	int64_t numbers[4] = { 0 };
	hsize_t i;

	for (i = 0; i < k; i++)
		names[i] = fz_string(f, 16);
	if (how == 0)
		fz_attr(file, "class_names", vstr, k, names);
	else if (how == 1)
		fz_attr(file, "class_names", H5T_NATIVE_INT64, k, numbers);
	for (i = 0; i < k; i++)
		free(names[i]);
	H5Tclose(vstr);
}

/* ---- one input ---------------------------------------------------------- */

static void fz_write(struct fz *f, const char *path)
{
	static const char *const layouts[] = { "encoded", "vlen", "pixels" };
	unsigned layout = fz_u8(f) % 3;
	hsize_t n = fz_u8(f) % (FUZZ_MAX_ROWS + 1);
	uint64_t off[FUZZ_MAX_ROWS + 1] = { 0 };
	hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
	hsize_t i;

	H5Pclose(fcpl);
	if (file < 0)
		abort();
	for (i = 0; i < n; i++)
		off[i + 1] = off[i] + fz_u8(f) % FUZZ_MAX_BYTES;
	fz_count(f, file, n);
	fz_text_attr(f, file, "layout", layouts[layout]);
	fz_text_attr(f, file, "bale_version", "fuzz");
	fz_class_names(f, file);
	fz_numbers(f, file, "labels", H5T_NATIVE_INT64, n);
	fz_numbers(f, file, "crc32", H5T_NATIVE_UINT32, n);
	fz_keys(f, file, n);
	fz_paths(f, file, n);
	if (layout == 0)
		fz_offsets(f, file, off, n);
	if (layout == 0)
		fz_images_encoded(f, file, off, n);
	else if (layout == 1)
		fz_images_vlen(f, file, off, n);
	else
		fz_images_pixels(f, file, n);
	if (H5Fclose(file) < 0)
		abort();
}

static void fz_read(const char *path)
{
	struct bale_reader *r = NULL;
	struct bale_blob b;
	const char *info;
	const char *const *files;
	uint64_t n, i;

	if (bale_reader_new(&r) != BALE_OK)
		abort();
	if (bale_reader_open(r, "hdf5", path) == BALE_OK &&
	    bale_reader_count(r, &n) == BALE_OK) {
		if (bale_reader_info(r, &info) == BALE_OK && !*info)
			abort();
		(void)bale_reader_files(r, &files);
		for (i = 0; i < n && i < FUZZ_MAX_READS; i++)
			if (bale_reader_get(r, i, &b) == BALE_OK)
				fuzz_check_blob(&b);
	}
	bale_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	const char *path = fuzz_scratch_path("f.h5");

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	fz_write(&f, path);
	fz_read(path);
	return 0;
}
