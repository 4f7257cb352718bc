/* hdf5_pixels.c - one N x H x W x 3 uint8 dataset, chunked by image. */
#include "hdf5_pixels.h"

#define PIX_RANK 4

/* The extent of images as dims[4]; @return 0 or -1 */
static int pix_dims(hid_t images, hsize_t dims[PIX_RANK])
{
	hid_t space = H5Dget_space(images);
	int ok = space >= 0 && H5Sget_simple_extent_ndims(space) == PIX_RANK &&
	    H5Sget_simple_extent_dims(space, dims, NULL) == PIX_RANK;

	H5Sclose(space);
	return ok ? 0 : -1;
}

hid_t bale_hdf5_pixels_create(hid_t file, uint64_t n, int h, int w,
    int deflate)
{
	hsize_t dims[PIX_RANK] = { n, (hsize_t)h, (hsize_t)w, 3 };
	hsize_t max[PIX_RANK] = { H5S_UNLIMITED, (hsize_t)h, (hsize_t)w, 3 };
	hsize_t chunk[PIX_RANK] = { 1, (hsize_t)h, (hsize_t)w, 3 };
	hid_t space = H5Screate_simple(PIX_RANK, dims, max);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t d = -1;
	int ok = space >= 0 && dcpl >= 0 &&
	    H5Pset_obj_track_times(dcpl, 0) >= 0 &&
	    H5Pset_chunk(dcpl, PIX_RANK, chunk) >= 0;

	if (ok && deflate)
		ok = H5Pset_shuffle(dcpl) >= 0 &&
		    H5Pset_deflate(dcpl, (unsigned)deflate) >= 0;
	if (ok)
		d = H5Dcreate2(file, "images", H5T_NATIVE_UINT8, space,
		    H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Pclose(dcpl);
	H5Sclose(space);
	return d;
}

/* Select image @row of @images in a new file space. */
static hid_t pix_select(hid_t images, uint64_t row, const hsize_t *dims)
{
	hsize_t start[PIX_RANK] = { row, 0, 0, 0 };
	hsize_t count[PIX_RANK] = { 1, dims[1], dims[2], dims[3] };
	hid_t fspace = H5Dget_space(images);

	if (fspace >= 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start,
	    NULL, count, NULL) < 0) {
		H5Sclose(fspace);
		return -1;
	}
	return fspace;
}

/* Read (@write 0) or write image @row through a one-image memory space. */
static int pix_io(hid_t images, uint64_t row, unsigned char *px, int write)
{
	hsize_t dims[PIX_RANK];
	hsize_t one[PIX_RANK];
	hid_t fspace = -1, mspace = -1;
	int ok;

	if (pix_dims(images, dims) != 0 || (!write && row >= dims[0]))
		return -1;
	if (write && row >= dims[0]) {
		dims[0] = row + 1;
		if (H5Dset_extent(images, dims) < 0)
			return -1;
	}
	one[0] = 1;
	one[1] = dims[1];
	one[2] = dims[2];
	one[3] = dims[3];
	fspace = pix_select(images, row, dims);
	mspace = H5Screate_simple(PIX_RANK, one, NULL);
	ok = fspace >= 0 && mspace >= 0 && (write ?
	    H5Dwrite(images, H5T_NATIVE_UINT8, mspace, fspace, H5P_DEFAULT,
	    px) : H5Dread(images, H5T_NATIVE_UINT8, mspace, fspace,
	    H5P_DEFAULT, px)) >= 0;
	H5Sclose(mspace);
	H5Sclose(fspace);
	return ok ? 0 : -1;
}

int bale_hdf5_pixels_put(hid_t images, uint64_t row, const unsigned char *px)
{
	return pix_io(images, row, (unsigned char *)px, 1);
}

int bale_hdf5_pixels_get(hid_t images, uint64_t row, unsigned char *px)
{
	return pix_io(images, row, px, 0);
}

int bale_hdf5_pixels_resize(hid_t images, uint64_t n)
{
	hsize_t dims[PIX_RANK];

	if (pix_dims(images, dims) != 0)
		return -1;
	dims[0] = n;
	return H5Dset_extent(images, dims) < 0 ? -1 : 0;
}

int bale_hdf5_pixels_shape(hid_t images, uint64_t *n, int *h, int *w)
{
	hsize_t dims[PIX_RANK];
	hid_t type = H5Dget_type(images);
	int ok = type >= 0 && H5Tget_class(type) == H5T_INTEGER &&
	    H5Tget_size(type) == 1 && pix_dims(images, dims) == 0 &&
	    dims[3] == 3 && dims[1] > 0 && dims[1] <= 65535 && dims[2] > 0 &&
	    dims[2] <= 65535;

	H5Tclose(type);
	if (!ok)
		return -1;
	*n = dims[0];
	*h = (int)dims[1];
	*w = (int)dims[2];
	return 0;
}
