/* hdf5_create.c - a new HDF5 output file with its empty datasets, as a
 * fresh run (hdf5.c) and a resume that starts over (hdf5_resume.c) make
 * it; and how the writer says it failed. */
#include "hdf5_write.h"

#include "hdf5_common.h"
#include "hdf5_pixels.h"
#include "hdf5_rows.h"

#include <errno.h>
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

/* HDF5's message does not say why a write failed; errno, still set,
 * does when the disk is full or a file-size limit is reached. */
int bale_hdf5_wfail(struct bale_writer *w, struct hdf5_w *st,
    const char *what)
{
	int sys = errno;
	char why[BALE_HDF5_WHY_MAX];

	bale_hdf5_why(why);
	if (sys == ENOSPC || sys == EFBIG || sys == EDQUOT)
		return bale_writer_seterr(w, BALE_EBACKEND, "%s '%s': "
		    "%s (%s)", what, st->tmp ? st->tmp : "", why,
		    strerror(sys));
	return bale_writer_seterr(w, BALE_EBACKEND, "%s '%s': %s", what,
	    st->tmp ? st->tmp : "", why);
}

int bale_hdf5_wnomem(struct bale_writer *w)
{
	return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
}

/* Creation properties: chunked, extendible, no object times. */
hid_t bale_hdf5_dcpl(hsize_t chunk)
{
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);

	if (dcpl < 0)
		return dcpl;
	if (H5Pset_obj_track_times(dcpl, 0) < 0 ||
	    (chunk && H5Pset_chunk(dcpl, 1, &chunk) < 0)) {
		H5Pclose(dcpl);
		return -1;
	}
	return dcpl;
}

static int hdf5_create_pixels(struct bale_writer *w, struct hdf5_w *st,
    const struct bale_dataset *ds)
{
	if (st->layout_set)
		return bale_writer_seterr(w, BALE_EINVAL, "pixel arrays "
		    "have their own layout; drop the layout option");
	st->images = bale_hdf5_pixels_create(st->file, ds->nitems,
	    st->pixels_h, st->pixels_w, st->deflate);
	return st->images < 0 ? bale_hdf5_wfail(w, st,
	    "cannot create images in") : BALE_OK;
}

static int hdf5_create_images(struct bale_writer *w, struct hdf5_w *st)
{
	hsize_t zero = 0;
	hsize_t unlimited = H5S_UNLIMITED;
	hid_t type = st->vlen ? H5Tvlen_create(H5T_NATIVE_UINT8) :
	    H5Tcopy(H5T_NATIVE_UINT8);
	hid_t space = H5Screate_simple(1, &zero, &unlimited);
	hid_t dcpl = bale_hdf5_dcpl(st->vlen ? HDF5_VLEN_CHUNK : HDF5_CHUNK);

	if (type >= 0 && space >= 0 && dcpl >= 0)
		st->images = H5Dcreate2(st->file, "images", type, space,
		    H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Pclose(dcpl);
	H5Sclose(space);
	H5Tclose(type);
	return st->images < 0 ? bale_hdf5_wfail(w, st,
	    "cannot create images in") : BALE_OK;
}

static int hdf5_keep_classes(struct hdf5_w *st, const struct bale_dataset *ds)
{
	size_t i;

	st->nclasses = ds->nclasses;
	st->class_copy = calloc(ds->nclasses ? ds->nclasses : 1,
	    sizeof(char *));
	if (!st->class_copy)
		return -1;
	for (i = 0; i < ds->nclasses; i++) {
		st->class_copy[i] = strdup(ds->classes && ds->classes[i] ?
		    ds->classes[i] : "");
		if (!st->class_copy[i])
			return -1;
	}
	return 0;
}

int bale_hdf5_paths(struct bale_writer *w, struct hdf5_w *st,
    const char *dir, const struct bale_dataset *ds)
{
	st->file = st->images = -1;
	/* A file whose close failed (a full disk) stays in HDF5's tables,
	 * and closing it again at exit crashes: no cleanup at exit (it
	 * only works before the library's first call; later it is a
	 * harmless error) */
	H5dont_atexit();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);	/* we report, not HDF5 */
	st->final = bale_strfmt("%s/%s.h5", dir, ds->name);
	st->tmp = bale_strfmt("%s/%s.h5%s", dir, ds->name, BALE_PARTIAL);
	if (!st->final || !st->tmp || hdf5_keep_classes(st, ds) != 0)
		return bale_hdf5_wnomem(w);
	if (ds->pixels_w) {
		st->pixels_w = ds->pixels_w;
		st->pixels_h = ds->pixels_h;
		st->npy_len = bale_npy_header(st->npy_head, st->pixels_h,
		    st->pixels_w, 3);
	}
	return BALE_OK;
}

/* A new file at st->tmp with empty datasets. */
int bale_hdf5_create(struct bale_writer *w, struct hdf5_w *st,
    const struct bale_dataset *ds)
{
	int rc;

	st->file = bale_hdf5_file_create(st->tmp);
	if (st->file < 0)
		return bale_hdf5_wfail(w, st, "cannot create");
	if (ds->pixels_w)
		rc = hdf5_create_pixels(w, st, ds);
	else if (st->deflate)
		return bale_writer_seterr(w, BALE_EINVAL, "deflate "
		    "applies to pixel arrays only");
	else
		rc = hdf5_create_images(w, st);
	if (rc == BALE_OK && bale_hdf5_rows_create(&st->rows, st->file,
	    !st->vlen && !st->pixels_w) != 0)
		rc = bale_hdf5_wfail(w, st, "cannot create datasets in");
	return rc;
}
