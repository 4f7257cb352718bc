/* hdf5_rows.c - append the per-sample datasets of the HDF5 backend. */
#include "hdf5_rows.h"

#include <stdlib.h>
#include <string.h>

#define ROWS_CHUNK 4096		/* elements per chunk of each dataset */

static hid_t rows_string_type(size_t size)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t >= 0 && (H5Tset_size(t, size) < 0 ||
	    H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

/* An empty, extendible 1-D dataset of @type, chunked, no object times. */
static hid_t rows_create(hid_t file, const char *name, hid_t type)
{
	hsize_t zero = 0;
	hsize_t unlimited = H5S_UNLIMITED;
	hsize_t chunk = ROWS_CHUNK;
	hid_t space = H5Screate_simple(1, &zero, &unlimited);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t ds = -1;

	if (space >= 0 && dcpl >= 0 && H5Pset_obj_track_times(dcpl, 0) >= 0 &&
	    H5Pset_chunk(dcpl, 1, &chunk) >= 0)
		ds = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl,
		    H5P_DEFAULT);
	H5Pclose(dcpl);
	H5Sclose(space);
	return ds;
}

/* Write @n elements of @data at @at, growing the dataset to at + n. */
static int rows_append(hid_t ds, hid_t type, uint64_t at, uint64_t n,
    const void *data)
{
	hsize_t start = at;
	hsize_t count = n;
	hsize_t extent = at + n;
	hid_t mspace = -1;
	hid_t fspace = -1;
	int ok;

	if (n == 0)
		return 0;
	ok = H5Dset_extent(ds, &extent) >= 0 &&
	    (fspace = H5Dget_space(ds)) >= 0 &&
	    (mspace = H5Screate_simple(1, &count, NULL)) >= 0 &&
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count,
	    NULL) >= 0 &&
	    H5Dwrite(ds, type, mspace, fspace, H5P_DEFAULT, data) >= 0;
	H5Sclose(mspace);
	H5Sclose(fspace);
	return ok ? 0 : -1;
}

int bale_hdf5_rows_create(struct bale_hdf5_rows *r, hid_t file,
    int with_offsets)
{
	hid_t vstr = rows_string_type(H5T_VARIABLE);
	uint64_t zero = 0;

	r->file = file;
	r->with_offsets = with_offsets;
	r->offsets = r->keys = -1;
	r->labels = rows_create(file, "labels", H5T_NATIVE_INT64);
	r->crcs = rows_create(file, "crc32", H5T_NATIVE_UINT32);
	r->paths = vstr >= 0 ? rows_create(file, "paths", vstr) : -1;
	H5Tclose(vstr);
	if (with_offsets) {
		r->offsets = rows_create(file, "offsets", H5T_NATIVE_UINT64);
		if (r->offsets < 0 || rows_append(r->offsets,
		    H5T_NATIVE_UINT64, 0, 1, &zero) != 0)
			return -1;
	}
	return r->labels < 0 || r->crcs < 0 || r->paths < 0 ? -1 : 0;
}

/* Open @name and cut it to @n elements; it must hold at least that. */
static hid_t rows_reopen_one(hid_t file, const char *name, uint64_t n)
{
	hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
	hid_t space = ds >= 0 ? H5Dget_space(ds) : -1;
	hsize_t dims = 0;
	hsize_t want = n;
	int ok;

	ok = space >= 0 && H5Sget_simple_extent_ndims(space) == 1 &&
	    H5Sget_simple_extent_dims(space, &dims, NULL) == 1 &&
	    dims >= n && H5Dset_extent(ds, &want) >= 0;
	H5Sclose(space);
	if (!ok) {
		H5Dclose(ds);
		return -1;
	}
	return ds;
}

int bale_hdf5_rows_reopen(struct bale_hdf5_rows *r, hid_t file,
    int with_offsets, uint64_t rows)
{
	hid_t type;

	r->file = file;
	r->with_offsets = with_offsets;
	r->offsets = r->keys = -1;
	r->in_file = rows;
	r->labels = rows_reopen_one(file, "labels", rows);
	r->crcs = rows_reopen_one(file, "crc32", rows);
	r->paths = rows_reopen_one(file, "paths", rows);
	if (with_offsets)
		r->offsets = rows_reopen_one(file, "offsets", rows + 1);
	if (r->labels < 0 || r->crcs < 0 || r->paths < 0 ||
	    (with_offsets && r->offsets < 0))
		return -1;
	if (H5Lexists(file, "keys", H5P_DEFAULT) <= 0)
		return rows == 0 ? 0 : -1;
	r->keys = rows_reopen_one(file, "keys", rows);
	type = r->keys >= 0 ? H5Dget_type(r->keys) : -1;
	r->keylen = type >= 0 ? H5Tget_size(type) : 0;
	H5Tclose(type);
	return r->keys >= 0 && r->keylen > 0 ? 0 : -1;
}

int bale_hdf5_rows_add(struct bale_hdf5_rows *r, uint64_t index,
    uint64_t end, int64_t label, uint32_t crc, const char *key,
    const char *path)
{
	if (!r->keylen)
		r->keylen = strlen(key);
	if (strlen(key) != r->keylen)
		return -1;
	bale_buf_add(&r->b_index, &index, sizeof(index));
	bale_buf_add(&r->b_offsets, &end, sizeof(end));
	bale_buf_add(&r->b_labels, &label, sizeof(label));
	bale_buf_add(&r->b_crcs, &crc, sizeof(crc));
	bale_buf_add(&r->b_keys, key, r->keylen);
	bale_buf_add(&r->b_paths, path, strlen(path) + 1);
	if (r->b_index.failed || r->b_offsets.failed || r->b_labels.failed ||
	    r->b_crcs.failed || r->b_keys.failed || r->b_paths.failed)
		return -2;
	r->pending++;
	return 0;
}

uint64_t bale_hdf5_rows_index(const struct bale_hdf5_rows *r, uint64_t row)
{
	uint64_t v;

	memcpy(&v, r->b_index.data + (row - r->in_file) * sizeof(v),
	    sizeof(v));
	return v;
}

/* Drop the first @n bytes of @b (rows now in the file). */
static void rows_shift(struct bale_buf *b, size_t n)
{
	if (n == 0)
		return;
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

static int rows_write_strings(struct bale_hdf5_rows *r, uint64_t k,
    size_t *path_bytes)
{
	hid_t vstr = rows_string_type(H5T_VARIABLE);
	hid_t fixed = -1;
	const char **v = calloc(k ? k : 1, sizeof(char *));
	const char *p = r->b_paths.data;
	uint64_t i;
	int rc = -1;

	for (i = 0; v && i < k; i++) {
		v[i] = p;
		p += strlen(p) + 1;
	}
	*path_bytes = (size_t)(p - r->b_paths.data);
	if (r->keys < 0 && (fixed = rows_string_type(r->keylen ? r->keylen :
	    1)) >= 0)
		r->keys = rows_create(r->file, "keys", fixed);
	H5Tclose(fixed);
	fixed = r->keys >= 0 ? H5Dget_type(r->keys) : -1;
	if (v && vstr >= 0 && fixed >= 0 &&
	    rows_append(r->paths, vstr, r->in_file, k, v) == 0 &&
	    rows_append(r->keys, fixed, r->in_file, k, r->b_keys.data) == 0)
		rc = 0;
	H5Tclose(fixed);
	H5Tclose(vstr);
	free(v);
	return rc;
}

int bale_hdf5_rows_write(struct bale_hdf5_rows *r, uint64_t upto)
{
	uint64_t k = upto - r->in_file;
	size_t path_bytes = 0;

	if (rows_write_strings(r, k, &path_bytes) != 0 ||
	    rows_append(r->labels, H5T_NATIVE_INT64, r->in_file, k,
	    r->b_labels.data) != 0 ||
	    rows_append(r->crcs, H5T_NATIVE_UINT32, r->in_file, k,
	    r->b_crcs.data) != 0 ||
	    (r->with_offsets && rows_append(r->offsets, H5T_NATIVE_UINT64,
	    r->in_file + 1, k, r->b_offsets.data) != 0))
		return -1;
	rows_shift(&r->b_index, k * sizeof(uint64_t));
	rows_shift(&r->b_offsets, k * sizeof(uint64_t));
	rows_shift(&r->b_labels, k * sizeof(int64_t));
	rows_shift(&r->b_crcs, k * sizeof(uint32_t));
	rows_shift(&r->b_keys, k * r->keylen);
	rows_shift(&r->b_paths, path_bytes);
	r->in_file = upto;
	r->pending -= k;
	return 0;
}

/* Elements [0, n) of 1-D dataset @ds into a new array. */
static void *rows_read_prefix(hid_t ds, hid_t type, size_t size, uint64_t n)
{
	hsize_t start = 0;
	hsize_t count = n;
	void *out = malloc(n ? n * size : 1);
	hid_t fspace = H5Dget_space(ds);
	hid_t mspace = H5Screate_simple(1, &count, NULL);
	int ok = out && fspace >= 0 && mspace >= 0 && (n == 0 ||
	    (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL,
	    &count, NULL) >= 0 &&
	    H5Dread(ds, type, mspace, fspace, H5P_DEFAULT, out) >= 0));

	H5Sclose(mspace);
	H5Sclose(fspace);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

int bale_hdf5_rows_read(const struct bale_hdf5_rows *r, uint64_t n,
    uint32_t **crcs, uint64_t **offsets)
{
	*offsets = NULL;
	*crcs = rows_read_prefix(r->crcs, H5T_NATIVE_UINT32, sizeof(uint32_t),
	    n);
	if (r->with_offsets)
		*offsets = rows_read_prefix(r->offsets, H5T_NATIVE_UINT64,
		    sizeof(uint64_t), n + 1);
	return *crcs && (!r->with_offsets || *offsets) ? 0 : -1;
}

void bale_hdf5_rows_release(struct bale_hdf5_rows *r)
{
	hid_t *ds[] = { &r->offsets, &r->labels, &r->crcs, &r->keys,
	    &r->paths };
	size_t i;

	for (i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
		if (*ds[i] > 0)
			H5Dclose(*ds[i]);
	bale_buf_release(&r->b_offsets);
	bale_buf_release(&r->b_labels);
	bale_buf_release(&r->b_crcs);
	bale_buf_release(&r->b_keys);
	bale_buf_release(&r->b_paths);
	bale_buf_release(&r->b_index);
	memset(r, 0, sizeof(*r));
}

int bale_hdf5_read_vlen(hid_t ds, uint64_t i, unsigned char **buf,
    size_t *cap, size_t *len)
{
	hid_t type = H5Tvlen_create(H5T_NATIVE_UINT8);
	hid_t fspace = H5Dget_space(ds);
	hsize_t start = i;
	hsize_t count = 1;
	hid_t mspace = H5Screate_simple(1, &count, NULL);
	hvl_t vl = { 0, NULL };
	int ok = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL,
	    &count, NULL) >= 0 && H5Dread(ds, type, mspace, fspace,
	    H5P_DEFAULT, &vl) >= 0;

	if (ok) {
		ok = bale_grow(buf, cap, vl.len ? vl.len : 1) == 0;
		if (ok && vl.len)
			memcpy(*buf, vl.p, vl.len);
		*len = vl.len;
		H5Dvlen_reclaim(type, mspace, H5P_DEFAULT, &vl);
	}
	H5Sclose(mspace);
	H5Sclose(fspace);
	H5Tclose(type);
	return ok ? 0 : -1;
}

int bale_hdf5_read_bytes(hid_t ds, uint64_t off, uint64_t n, void *out)
{
	hsize_t start = off;
	hsize_t count = n;
	hid_t fspace = H5Dget_space(ds);
	hid_t mspace = H5Screate_simple(1, &count, NULL);
	int ok = n == 0 || (H5Sselect_hyperslab(fspace, H5S_SELECT_SET,
	    &start, NULL, &count, NULL) >= 0 && H5Dread(ds, H5T_NATIVE_UINT8,
	    mspace, fspace, H5P_DEFAULT, out) >= 0);

	H5Sclose(mspace);
	H5Sclose(fspace);
	return ok ? 0 : -1;
}
