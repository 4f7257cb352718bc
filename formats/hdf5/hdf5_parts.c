/* hdf5_parts.c - see hdf5_parts.h. */
#include "hdf5_parts.h"

#include "bale.h"
#include "hdf5_common.h"

#include <stdlib.h>
#include <string.h>

char *bale_hdf5_attr_str(hid_t file, const char *name)
{
	hid_t vstr = bale_hdf5_string_type(H5T_VARIABLE);
	hid_t a = H5Aopen(file, name, H5P_DEFAULT);
	char *v = NULL;

	if (a < 0 || H5Aread(a, vstr, &v) < 0)
		v = NULL;
	H5Aclose(a);
	H5Tclose(vstr);
	return v;
}

int64_t bale_hdf5_attr_count(hid_t file)
{
	hid_t a = H5Aopen(file, "count", H5P_DEFAULT);
	int64_t count = -1;

	if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &count) < 0)
		count = -1;
	H5Aclose(a);
	return count;
}

static size_t hdf5_keylen(hid_t file)
{
	hid_t d = H5Dopen2(file, "keys", H5P_DEFAULT);
	hid_t t = d >= 0 ? H5Dget_type(d) : -1;
	size_t len = t >= 0 && H5Tget_class(t) == H5T_STRING &&
	    H5Tis_variable_str(t) == 0 ? H5Tget_size(t) : 0;

	H5Tclose(t);
	H5Dclose(d);
	return len;
}

int bale_hdf5_rowset_read(struct bale_hdf5_rowset *s, hid_t file, uint64_t n,
    int with_offsets)
{
	return bale_hdf5_rowset_read_range(s, file, n, 0, n, with_offsets);
}

int bale_hdf5_rowset_read_range(struct bale_hdf5_rowset *s, hid_t file,
    uint64_t n, uint64_t first, uint64_t count, int with_offsets)
{
	hid_t vstr = bale_hdf5_string_type(H5T_VARIABLE);
	hid_t fixed;
	int why = BALE_OK;

	memset(s, 0, sizeof(*s));
	s->n = count;
	s->keylen = hdf5_keylen(file);
	fixed = bale_hdf5_string_type(s->keylen ? s->keylen : 1);
	s->labels = bale_hdf5_read_rows(file, "labels", H5T_NATIVE_INT64, n,
	    first, count, sizeof(int64_t), &why);
	if (why == BALE_OK)
		s->crcs = bale_hdf5_read_rows(file, "crc32", H5T_NATIVE_UINT32,
		    n, first, count, sizeof(uint32_t), &why);
	if (why == BALE_OK && s->keylen)
		s->keys = bale_hdf5_read_rows(file, "keys", fixed, n, first,
		    count, s->keylen, &why);
	if (why == BALE_OK)
		s->paths = bale_hdf5_read_rows(file, "paths", vstr, n, first,
		    count, sizeof(char *), &why);
	if (why == BALE_OK && with_offsets)
		s->offsets = bale_hdf5_read_rows(file, "offsets",
		    H5T_NATIVE_UINT64, n + 1, first, count + 1,
		    sizeof(uint64_t), &why);
	H5Tclose(fixed);
	H5Tclose(vstr);
	if (why == BALE_OK && !s->keylen)
		why = BALE_EINVAL;
	return why;
}

int bale_hdf5_rowset_each(hid_t file, uint64_t n, int with_offsets,
    bale_hdf5_rows_fn *fn, void *ctx, int *read_failed)
{
	struct bale_hdf5_rowset s;
	uint64_t first = 0, count;
	int rc;

	*read_failed = 0;
	do {	/* one window at least: an empty file's datasets are read */
		count = n - first < BALE_HDF5_ROWS_STEP ? n - first :
		    BALE_HDF5_ROWS_STEP;
		rc = bale_hdf5_rowset_read_range(&s, file, n, first, count,
		    with_offsets);
		if (rc != BALE_OK)
			*read_failed = 1;
		else
			rc = fn(ctx, &s, first);
		bale_hdf5_rowset_free(&s);
		first += count;
	} while (rc == BALE_OK && first < n);
	return rc;
}

int bale_hdf5_rowset_key(const struct bale_hdf5_rowset *s, uint64_t i,
    char *key, size_t cap)
{
	if (s->keylen >= cap)
		return -1;
	memcpy(key, s->keys + i * s->keylen, s->keylen);
	key[s->keylen] = '\0';
	return 0;
}

void bale_hdf5_rowset_free(struct bale_hdf5_rowset *s)
{
	uint64_t j;

	for (j = 0; s->paths && j < s->n; j++)
		H5free_memory(s->paths[j]);
	free(s->paths);
	free(s->labels);
	free(s->crcs);
	free(s->keys);
	free(s->offsets);
	memset(s, 0, sizeof(*s));
}

/* Mapping @m onto @vspace in @dcpl. */
static int hdf5_vds_map(hid_t dcpl, hid_t vspace, int rank,
    const struct bale_hdf5_map *m)
{
	hsize_t start[BALE_HDF5_MAX_RANK] = { 0 };
	hsize_t count[BALE_HDF5_MAX_RANK];
	hid_t sspace = H5Screate_simple(rank, m->src_dims, NULL);
	int ok;

	memcpy(count, m->src_dims, sizeof(count));
	count[0] = m->count;
	start[0] = m->src_start;
	ok = sspace >= 0 && H5Sselect_hyperslab(sspace, H5S_SELECT_SET, start,
	    NULL, count, NULL) >= 0;
	start[0] = m->vstart;
	ok = ok && H5Sselect_hyperslab(vspace, H5S_SELECT_SET, start, NULL,
	    count, NULL) >= 0 && H5Pset_virtual(dcpl, vspace, m->file,
	    "images", sspace) >= 0;
	H5Sclose(sspace);
	return ok ? 0 : -1;
}

hid_t bale_hdf5_vds_create(hid_t file, hid_t type, int rank,
    const hsize_t *dims, const struct bale_hdf5_map *maps, size_t n)
{
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t vspace = H5Screate_simple(rank, dims, NULL);
	hid_t d = -1;
	size_t i;
	int ok = dcpl >= 0 && vspace >= 0 &&
	    H5Pset_obj_track_times(dcpl, 0) >= 0;

	for (i = 0; ok && i < n; i++)
		ok = maps[i].count == 0 || hdf5_vds_map(dcpl, vspace, rank,
		    &maps[i]) == 0;
	if (ok && H5Sselect_all(vspace) >= 0)
		d = H5Dcreate2(file, "images", type, vspace, H5P_DEFAULT, dcpl,
		    H5P_DEFAULT);
	H5Sclose(vspace);
	H5Pclose(dcpl);
	return d;
}
