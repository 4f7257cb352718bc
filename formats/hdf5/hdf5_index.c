/* hdf5_index.c - the compact index beside a bale HDF5 file, NAME.h5.bidx
 * (src/util/sample_index.c's layout): per sample its label, its key and,
 * for the encoded layout, where its bytes lie in the images dataset
 * (offsets[i] and its size; the other layouts: its row). It is made from
 * the file's rows once the file is closed, whoever wrote them (a pack,
 * a resumed pack, a merge, an update), a chunk of rows at a time, so it
 * costs no memory per sample. A reader without the metadata maps it in
 * place of reading every row at open.
 */
#include "hdf5_index.h"

#include "hdf5_common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INDEX_ROWS 65536	/* rows read and written at once */

/* Rows [@first, @first + @n) of 1-D dataset @d as @type into @out. */
static int index_read_rows(hid_t d, hid_t type, uint64_t first, uint64_t n,
    void *out)
{
	hsize_t start = first, count = n;
	hid_t fs = H5Dget_space(d);
	hid_t ms = H5Screate_simple(1, &count, NULL);
	int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET,
	    &start, NULL, &count, NULL) >= 0 &&
	    H5Dread(d, type, ms, fs, H5P_DEFAULT, out) >= 0;

	H5Sclose(ms);
	H5Sclose(fs);
	return ok ? 0 : -1;
}

/* The datasets an index is made from. */
struct index_src {
	hid_t labels, keys, offsets;	/* offsets: -1 but encoded */
	hid_t keytype;
	size_t keylen;
	uint64_t n;
};

static int index_src_open(struct index_src *s, hid_t file)
{
	hid_t t, space;

	s->labels = H5Dopen2(file, "labels", H5P_DEFAULT);
	s->keys = H5Dopen2(file, "keys", H5P_DEFAULT);
	s->offsets = H5Lexists(file, "offsets", H5P_DEFAULT) > 0 ?
	    H5Dopen2(file, "offsets", H5P_DEFAULT) : -1;
	t = s->keys >= 0 ? H5Dget_type(s->keys) : -1;
	s->keylen = t >= 0 && H5Tget_class(t) == H5T_STRING &&
	    H5Tis_variable_str(t) == 0 ? H5Tget_size(t) : 0;
	H5Tclose(t);
	space = s->labels >= 0 ? H5Dget_space(s->labels) : -1;
	s->n = space >= 0 ? (uint64_t)H5Sget_simple_extent_npoints(space) : 0;
	H5Sclose(space);
	s->keytype = s->keylen ? bale_hdf5_string_type(s->keylen) : -1;
	return s->labels >= 0 && s->keylen > 0 && s->keylen < 64 ? 0 : -1;
}

static void index_src_close(struct index_src *s)
{
	if (s->labels >= 0)
		H5Dclose(s->labels);
	if (s->keys >= 0)
		H5Dclose(s->keys);
	if (s->offsets >= 0)
		H5Dclose(s->offsets);
	if (s->keytype >= 0)
		H5Tclose(s->keytype);
}

/* Buffers for a chunk of rows. */
struct index_chunk {
	int64_t *labels;
	int32_t *labels32;
	uint64_t *offsets;
	struct bale_index_loc *locs;
	char *keys;		/* as stored: keylen each */
	char *slots;		/* keylen + 1 each, NUL-ended */
};

static int index_chunk_alloc(struct index_chunk *c, size_t keylen)
{
	c->labels = malloc(INDEX_ROWS * sizeof(*c->labels));
	c->labels32 = malloc(INDEX_ROWS * sizeof(*c->labels32));
	c->offsets = malloc((INDEX_ROWS + 1) * sizeof(*c->offsets));
	c->locs = malloc(INDEX_ROWS * sizeof(*c->locs));
	c->keys = malloc(INDEX_ROWS * keylen);
	c->slots = calloc(INDEX_ROWS, keylen + 1);
	return c->labels && c->labels32 && c->offsets && c->locs && c->keys &&
	    c->slots ? 0 : -1;
}

static void index_chunk_free(struct index_chunk *c)
{
	free(c->labels);
	free(c->labels32);
	free(c->offsets);
	free(c->locs);
	free(c->keys);
	free(c->slots);
}

/* Rows [@first, @first + @k) into the index. */
static int index_put_rows(struct bale_index_stream *st,
    const struct index_src *s, struct index_chunk *c, uint64_t first,
    uint64_t k)
{
	uint64_t i;

	if (index_read_rows(s->labels, H5T_NATIVE_INT64, first, k,
	    c->labels) != 0 || index_read_rows(s->keys, s->keytype, first, k,
	    c->keys) != 0 || (s->offsets >= 0 && index_read_rows(s->offsets,
	    H5T_NATIVE_UINT64, first, k + 1, c->offsets) != 0))
		return -1;
	for (i = 0; i < k; i++) {
		if (c->labels[i] < BALE_LABEL_NONE ||
		    c->labels[i] > INT32_MAX ||
		    (s->offsets >= 0 && (c->offsets[i + 1] < c->offsets[i] ||
		    c->offsets[i + 1] - c->offsets[i] > UINT32_MAX)))
			return 1;	/* no index: it cannot hold them */
		c->labels32[i] = (int32_t)c->labels[i];
		c->locs[i].off = s->offsets >= 0 ? c->offsets[i] : first + i;
		c->locs[i].size = s->offsets >= 0 ?
		    (uint32_t)(c->offsets[i + 1] - c->offsets[i]) : 0;
		c->locs[i].tail = 0;
		memcpy(c->slots + i * (s->keylen + 1), c->keys + i * s->keylen,
		    s->keylen);
		c->slots[i * (s->keylen + 1) + s->keylen] = '\0';
	}
	return bale_index_stream_put(st, first, k, c->labels32, c->locs,
	    c->slots) == 0 ? 0 : -1;
}

static int index_put_all(struct bale_index_stream *st,
    const struct index_src *s)
{
	struct index_chunk c;
	uint64_t first, k;
	int rc = index_chunk_alloc(&c, s->keylen);

	if (rc != 0)
		errno = ENOMEM;
	for (first = 0; rc == 0 && first < s->n; first += k) {
		k = s->n - first < INDEX_ROWS ? s->n - first : INDEX_ROWS;
		rc = index_put_rows(st, s, &c, first, k);
	}
	index_chunk_free(&c);
	return rc;
}

char *bale_hdf5_index_path(const char *h5)
{
	return bale_strfmt("%s.bidx", h5);
}

int bale_hdf5_index_write(const char *h5, const char *named, int sync)
{
	char *path = bale_hdf5_index_path(named);
	struct bale_index_stream st;
	struct index_src s;
	struct stat sb;
	hid_t file;
	int rc = -1;

	if (!path)
		return -1;
	unlink(path);		/* none beside other data, whatever happens */
	file = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
	memset(&s, 0, sizeof(s));
	s.labels = s.keys = s.offsets = s.keytype = -1;
	errno = EIO;
	if (file >= 0 && index_src_open(&s, file) == 0 &&
	    bale_index_stream_open(&st, path, s.n, s.keylen + 1) == 0) {
		rc = index_put_all(&st, &s);
		if (rc != 0)
			bale_index_stream_abort(&st);
	}
	index_src_close(&s);
	if (file >= 0 && H5Fclose(file) < 0 && rc == 0) {
		bale_index_stream_abort(&st);
		rc = -1;
	}
	if (rc == 0 && stat(h5, &sb) == 0)
		rc = bale_index_stream_close(&st, (uint64_t)sb.st_size, sync);
	else if (rc == 0) {
		bale_index_stream_abort(&st);
		rc = -1;
	}
	free(path);
	return rc > 0 ? 0 : rc;	/* rows it cannot hold: no index */
}
