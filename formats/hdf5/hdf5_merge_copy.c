/* hdf5_merge_copy.c - bale merge --copy for HDF5: a self-contained file.
 * "images" is made as part 0's is (its chunks and filters, growable),
 * and every part's rows are copied into it one block at a time, so
 * the parts can go once it is written. */
#include "hdf5_merge.h"

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "hdf5_common.h"

#include <stdlib.h>
#include <string.h>

/* A merge's failure at @what of @where, with HDF5's reason (both merge
 * files say theirs this way). */
int bale_hdf5_merge_fail(struct hdf5_merging *g, const char *what,
    const char *where)
{
	char why[BALE_HDF5_WHY_MAX];

	bale_hdf5_why(why);
	return bale_errbuf_set(g->err, BALE_EBACKEND, "%s '%s': %s",
	    what, where, why);
}

#define HDF5_COPY_BLOCK ((size_t)4 << 20)	/* bytes read at a time */

/* A new "images" with part 0's creation properties, @rows long. */
static hid_t hdf5_copy_create(struct hdf5_merging *g, uint64_t rows)
{
	hid_t file = H5Fopen(g->src[0].path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = file >= 0 ? H5Dopen2(file, "images", H5P_DEFAULT) : -1;
	hid_t dcpl = d >= 0 ? H5Dget_create_plist(d) : -1;
	hsize_t dims[BALE_HDF5_MAX_RANK], max[BALE_HDF5_MAX_RANK];
	hid_t space, out = -1;

	memcpy(dims, g->src[0].dims, sizeof(dims));
	memcpy(max, g->src[0].dims, sizeof(max));
	dims[0] = rows;
	max[0] = H5S_UNLIMITED;
	space = H5Screate_simple(g->rank, dims, max);
	if (dcpl >= 0 && space >= 0 && H5Pset_obj_track_times(dcpl, 0) >= 0)
		out = H5Dcreate2(g->file, "images", g->type, space,
		    H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Sclose(space);
	H5Pclose(dcpl);
	H5Dclose(d);
	H5Fclose(file);
	return out;
}

/* Rows [@from, @from + @n) of @src to rows [@to, ...) of @dst, through
 * @buf; a vlen block's memory is HDF5's to give back. @return 0 or -1 */
static int hdf5_copy_block(const struct hdf5_merging *g, hid_t src, hid_t dst,
    hid_t mtype, uint64_t from, uint64_t to, uint64_t n, void *buf)
{
	hsize_t start[BALE_HDF5_MAX_RANK] = { 0 };
	hsize_t count[BALE_HDF5_MAX_RANK];
	hid_t mspace, sspace = H5Dget_space(src);
	hid_t dspace = H5Dget_space(dst);
	int ok;

	memcpy(count, g->src[0].dims, sizeof(count));
	count[0] = n;
	mspace = H5Screate_simple(g->rank, count, NULL);
	start[0] = from;
	ok = mspace >= 0 && sspace >= 0 && dspace >= 0 &&
	    H5Sselect_hyperslab(sspace, H5S_SELECT_SET, start, NULL, count,
	    NULL) >= 0 && H5Dread(src, mtype, mspace, sspace, H5P_DEFAULT,
	    buf) >= 0;
	start[0] = to;
	ok = ok && H5Sselect_hyperslab(dspace, H5S_SELECT_SET, start, NULL,
	    count, NULL) >= 0 && H5Dwrite(dst, mtype, mspace, dspace,
	    H5P_DEFAULT, buf) >= 0;
	if (ok && H5Tget_class(mtype) == H5T_VLEN)
		H5Dvlen_reclaim(mtype, mspace, H5P_DEFAULT, buf);
	H5Sclose(mspace);
	H5Sclose(sspace);
	H5Sclose(dspace);
	return ok ? 0 : -1;
}

/* Part @i's rows to rows [@at, ...) of @dst, @block rows at a time. */
static int hdf5_copy_part(struct hdf5_merging *g, size_t i, hid_t dst,
    hid_t mtype, uint64_t at, uint64_t block, void *buf)
{
	const struct hdf5_source *s = &g->src[i];
	hid_t file = H5Fopen(s->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t src = file >= 0 ? H5Dopen2(file, "images", H5P_DEFAULT) : -1;
	uint64_t done, n;
	int rc = src >= 0 ? BALE_OK : bale_hdf5_merge_fail(g, "cannot open",
	    s->path);

	for (done = 0; rc == BALE_OK && done < s->rows; done += n) {
		n = s->rows - done < block ? s->rows - done : block;
		if (hdf5_copy_block(g, src, dst, mtype, done, at + done, n,
		    buf) != 0)
			rc = bale_hdf5_merge_fail(g,
			    "cannot copy the images of", s->path);
	}
	H5Dclose(src);
	H5Fclose(file);
	return rc;
}

int bale_hdf5_merge_copy_images(struct hdf5_merging *g)
{
	hid_t mtype = H5Tget_native_type(g->type, H5T_DIR_DEFAULT);
	size_t row = mtype >= 0 ? H5Tget_size(mtype) : 0;
	uint64_t total = 0, at = 0, block;
	hid_t dst = -1;
	void *buf = NULL;
	size_t i;
	int k, rc = BALE_OK;

	for (k = 1; k < g->rank; k++)
		row *= g->src[0].dims[k];
	for (i = 0; i < g->m->nparts; i++)
		total += g->src[i].rows;
	block = row && row < HDF5_COPY_BLOCK ? HDF5_COPY_BLOCK / row : 1;
	if (row == 0 || (dst = hdf5_copy_create(g, total)) < 0)
		rc = bale_hdf5_merge_fail(g, "cannot create images in", g->tmp);
	else if (!(buf = malloc(block * row)))
		rc = bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
	for (i = 0; rc == BALE_OK && i < g->m->nparts; at += g->src[i].rows,
	    i++)
		rc = hdf5_copy_part(g, i, dst, mtype, at, block, buf);
	free(buf);
	H5Dclose(dst);
	H5Tclose(mtype);
	return rc;
}
