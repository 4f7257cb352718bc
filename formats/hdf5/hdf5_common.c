/* hdf5_common.c - see hdf5_common.h. */
#include "hdf5_common.h"

#include "bale.h"

#include <stdio.h>
#include <stdlib.h>

hid_t bale_hdf5_string_type(size_t size)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	H5Tset_size(t, size);
	H5Tset_cset(t, H5T_CSET_UTF8);
	return t;
}

hid_t bale_hdf5_file_create(const char *path)
{
	hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	hid_t file = -1;

	/* no times: the same run writes the same bytes; the 1.8 format at
	 * least: an attribute past 64 KiB (class_names of some 4 000
	 * classes and more) then goes to dense storage instead of failing */
	if (fcpl >= 0 && fapl >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0 &&
	    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) >= 0)
		file = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
	H5Pclose(fcpl);
	H5Pclose(fapl);
	return file;
}

/* Attribute @name of the root, @n strings or numbers (0: a scalar). */
static int hdf5_attr(hid_t file, const char *name, hid_t type, hsize_t n,
    const void *v)
{
	hid_t space = n ? H5Screate_simple(1, &n, NULL) :
	    H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(file, name, type, space, H5P_DEFAULT,
	    H5P_DEFAULT);
	int ok = a >= 0 && H5Awrite(a, type, v) >= 0;

	H5Aclose(a);
	H5Sclose(space);
	return ok ? 0 : -1;
}

int bale_hdf5_write_attrs(hid_t file, const char *layout, int64_t count,
    char *const *classes, size_t nclasses)
{
	hid_t vstr = bale_hdf5_string_type(H5T_VARIABLE);
	const char *version = bale_version();
	int64_t one = 1;
	int rc;

	rc = hdf5_attr(file, "bale_version", vstr, 0, &version);
	if (rc == 0)
		rc = hdf5_attr(file, "layout", vstr, 0, &layout);
	if (rc == 0)
		rc = hdf5_attr(file, "layout_version", H5T_NATIVE_INT64, 0,
		    &one);
	if (rc == 0)
		rc = hdf5_attr(file, "count", H5T_NATIVE_INT64, 0, &count);
	if (rc == 0 && nclasses)
		rc = hdf5_attr(file, "class_names", vstr, nclasses, classes);
	H5Tclose(vstr);
	return rc;
}

/* Rows [@first, @first + @count) of @d (of @space) into @out. */
static int hdf5_read_slab(hid_t d, hid_t space, hid_t type, uint64_t first,
    uint64_t count, void *out)
{
	hsize_t start = first, n = count;
	hid_t mem = H5Screate_simple(1, &n, NULL);
	int ok = mem >= 0 && H5Sselect_hyperslab(space, H5S_SELECT_SET,
	    &start, NULL, &n, NULL) >= 0 && H5Dread(d, type, mem, space,
	    H5P_DEFAULT, out) >= 0;

	H5Sclose(mem);
	return ok ? 0 : -1;
}

void *bale_hdf5_read_rows(hid_t file, const char *name, hid_t type,
    uint64_t n, uint64_t first, uint64_t count, size_t elem, int *why)
{
	hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
	hid_t space = d >= 0 ? H5Dget_space(d) : -1;
	hssize_t got = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
	void *out = NULL;

	*why = BALE_OK;
	if (got < 0 || (uint64_t)got != n || first > n || count > n - first)
		*why = BALE_EINVAL;
	else if (!(out = calloc(count + 1, elem)))
		*why = BALE_ENOMEM;
	else if (count && hdf5_read_slab(d, space, type, first, count,
	    out) != 0) {
		*why = BALE_EBACKEND;
		free(out);
		out = NULL;
	}
	H5Sclose(space);
	H5Dclose(d);
	return out;
}

void *bale_hdf5_read_all(hid_t file, const char *name, hid_t type,
    uint64_t n, size_t elem, int *why)
{
	return bale_hdf5_read_rows(file, name, type, n, 0, n, elem, why);
}

/* H5Ewalk2 callback: keep the innermost entry's text. */
static herr_t hdf5_err_walk(unsigned n, const H5E_error2_t *e, void *arg)
{
	if (n == 0)
		snprintf(arg, BALE_HDF5_WHY_MAX, "%s", e->desc ? e->desc :
		    "unknown");
	return 0;
}

void bale_hdf5_why(char *why)
{
	snprintf(why, BALE_HDF5_WHY_MAX, "unknown HDF5 error");
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, hdf5_err_walk, why);
	H5Eclear2(H5E_DEFAULT);
}
