/* hdf5_common.c - see hdf5_common.h. */
#include "hdf5_common.h"

#include <stdio.h>

hid_t bale_hdf5_string_type(size_t size)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	H5Tset_size(t, size);
	H5Tset_cset(t, H5T_CSET_UTF8);
	return t;
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
