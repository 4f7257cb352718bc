/* hdf5.c - HDF5 output, readable with h5py in a few lines.
 *
 * Output, for name N in folder D: D/N.h5, written as D/N.h5.partial and
 * renamed when complete. Root attributes: bale_version, layout,
 * layout_version (1), count, class_names. Datasets, for N samples:
 *
 * layout "encoded" (default)
 *   images   uint8 [total bytes], every sample's original bytes end to end,
 *            chunked (HDF5_CHUNK bytes), written a whole chunk at a time
 *   offsets  uint64 [N+1]: sample i is images[offsets[i]:offsets[i+1]]
 * layout "vlen" (the common h5py idiom)
 *   images   vlen uint8 [N], chunked
 * both
 *   labels int64 [N], keys string [N] (the sample keys of every format),
 *   crc32 uint32 [N], paths vlen string [N] (relative source paths)
 *
 * The chunk is larger than h5py's default 1 MiB chunk cache, so a slice
 * of one sample is read straight from the file, no whole-chunk read.
 * Object times are not stored, so the same input gives the same bytes.
 * HDF5 (Debian's build) is not thread-safe: every call here runs on the
 * single writer thread.
 */
#include "bale_backend.h"

#include "buf.h"
#include "file.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HDF5_CHUNK ((size_t)4 << 20)		/* bytes, "encoded" images */
#define HDF5_VLEN_CHUNK 256			/* samples, "vlen" images */
#define HDF5_VLEN_BATCH_BYTES ((size_t)32 << 20)

struct hdf5_w {
	int vlen;		/* layout */
	int sync;		/* fsync the file, and its folder once renamed */
	char *final;
	char *tmp;
	hid_t file;
	hid_t images;
	struct bale_buf chunk;	/* encoded: bytes of the chunk being filled */
	uint64_t chunks;	/* encoded: chunks written */
	struct bale_buf batch;	/* vlen: copies of samples not yet written */
	struct bale_buf lens;	/* vlen: their sizes, size_t each */
	uint64_t written;	/* vlen: samples written */
	struct bale_buf offsets;	/* uint64_t each */
	struct bale_buf labels;		/* int64_t each */
	struct bale_buf crcs;		/* uint32_t each */
	struct bale_buf keys;		/* fixed-width keys */
	size_t keylen;
	struct bale_buf paths;		/* NUL-terminated paths */
	const char *const *classes;
	char **class_copy;
	size_t nclasses;
	uint64_t count;
	uint64_t total;
	int published;
};

/* The innermost HDF5 error message, for the sentence users see. */
static herr_t hdf5_err_walk(unsigned n, const H5E_error2_t *e, void *arg)
{
	if (n == 0)
		snprintf(arg, 256, "%s", e->desc ? e->desc : "unknown");
	return 0;
}

static int hdf5_fail(struct bale_writer *w, struct hdf5_w *st,
    const char *what)
{
	char why[256] = "unknown HDF5 error";

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, hdf5_err_walk, why);
	H5Eclear2(H5E_DEFAULT);
	return bale_writer_seterr(w, BALE_EBACKEND, "hdf5: %s '%s': %s", what,
	    st->tmp ? st->tmp : "", why);
}

static int hdf5_nomem(struct bale_writer *w)
{
	return bale_writer_seterr(w, BALE_ENOMEM, "hdf5: no memory");
}

/* ---- options and open ---------------------------------------------------- */

static int hdf5_option(struct bale_writer *w, void *priv, const char *key,
    const char *value)
{
	struct hdf5_w *st = priv;

	if (strcmp(key, "layout") == 0) {
		if (strcmp(value, "encoded") != 0 && strcmp(value, "vlen"))
			return bale_writer_seterr(w, BALE_EINVAL,
			    "hdf5: layout '%s': expected encoded or vlen",
			    value);
		st->vlen = strcmp(value, "vlen") == 0;
		return BALE_OK;
	}
	if (strcmp(key, "fsync") == 0) {
		st->sync = strcmp(value, "0") != 0;
		return BALE_OK;
	}
	return BALE_ENOOPT;
}

/* Creation properties: chunked, extendible, no object times. */
static hid_t hdf5_dcpl(hsize_t chunk)
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

static int hdf5_create_images(struct bale_writer *w, struct hdf5_w *st)
{
	hsize_t zero = 0;
	hsize_t unlimited = H5S_UNLIMITED;
	hid_t type = st->vlen ? H5Tvlen_create(H5T_NATIVE_UINT8) :
	    H5Tcopy(H5T_NATIVE_UINT8);
	hid_t space = H5Screate_simple(1, &zero, &unlimited);
	hid_t dcpl = hdf5_dcpl(st->vlen ? HDF5_VLEN_CHUNK : HDF5_CHUNK);

	if (type >= 0 && space >= 0 && dcpl >= 0)
		st->images = H5Dcreate2(st->file, "images", type, space,
		    H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Pclose(dcpl);
	H5Sclose(space);
	H5Tclose(type);
	return st->images < 0 ? hdf5_fail(w, st, "cannot create images in")
	    : BALE_OK;
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

static int hdf5_open(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds)
{
	struct hdf5_w *st = priv;
	hid_t fcpl;

	st->file = st->images = -1;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);	/* we report, not HDF5 */
	st->final = bale_strfmt("%s/%s.h5", dir, ds->name);
	st->tmp = bale_strfmt("%s/%s.h5%s", dir, ds->name, BALE_PARTIAL);
	if (!st->final || !st->tmp || hdf5_keep_classes(st, ds) != 0)
		return hdf5_nomem(w);
	if (access(st->final, F_OK) == 0 && !ds->replace)
		return bale_writer_seterr(w, BALE_EEXIST,
		    "hdf5: '%s' exists (use --force to replace it)",
		    st->final);
	if (ds->replace && unlink(st->final) != 0 && errno != ENOENT)
		return bale_writer_seterr(w, BALE_EIO,
		    "hdf5: cannot remove '%s': %s", st->final, strerror(errno));
	fcpl = H5Pcreate(H5P_FILE_CREATE);
	if (fcpl >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0)
		st->file = H5Fcreate(st->tmp, H5F_ACC_TRUNC, fcpl,
		    H5P_DEFAULT);
	H5Pclose(fcpl);
	if (st->file < 0)
		return hdf5_fail(w, st, "cannot create");
	bale_buf_add(&st->offsets, &st->total, sizeof(st->total));
	return hdf5_create_images(w, st);
}

/* ---- samples ------------------------------------------------------------ */

/* Write the filled chunk buffer as chunk number st->chunks. */
static int hdf5_flush_chunk(struct bale_writer *w, struct hdf5_w *st,
    uint64_t extent)
{
	hsize_t offset = st->chunks * HDF5_CHUNK;
	hsize_t size = extent;

	if (H5Dset_extent(st->images, &size) < 0 ||
	    H5Dwrite_chunk(st->images, H5P_DEFAULT, 0, &offset, HDF5_CHUNK,
	    st->chunk.data) < 0)
		return hdf5_fail(w, st, "cannot write images to");
	st->chunks++;
	bale_buf_reset(&st->chunk);
	return BALE_OK;
}

static int hdf5_put_encoded(struct bale_writer *w, struct hdf5_w *st,
    const struct bale_sample *s)
{
	const unsigned char *p = s->data;
	size_t left = s->size;
	size_t n;
	int rc;

	while (left > 0) {
		n = HDF5_CHUNK - st->chunk.len;
		n = n < left ? n : left;
		bale_buf_add(&st->chunk, p, n);
		if (st->chunk.failed)
			return hdf5_nomem(w);
		p += n;
		left -= n;
		if (st->chunk.len == HDF5_CHUNK) {
			rc = hdf5_flush_chunk(w, st,
			    (st->chunks + 1) * HDF5_CHUNK);
			if (rc != BALE_OK)
				return rc;
		}
	}
	return BALE_OK;
}

/* Write the batched vlen samples in one hyperslab. */
static int hdf5_flush_batch(struct bale_writer *w, struct hdf5_w *st)
{
	size_t n = st->lens.len / sizeof(size_t);
	const size_t *lens = (const size_t *)st->lens.data;
	hvl_t *vl = calloc(n ? n : 1, sizeof(*vl));
	hsize_t start = st->written;
	hsize_t count = n;
	hsize_t extent = st->written + n;
	hid_t type = H5Tvlen_create(H5T_NATIVE_UINT8);
	hid_t fspace = -1;
	hid_t mspace = H5Screate_simple(1, &count, NULL);
	char *p = st->batch.data;
	size_t i;
	int ok;

	if (!vl)
		return hdf5_nomem(w);
	for (i = 0; i < n; p += lens[i], i++) {
		vl[i].len = lens[i];
		vl[i].p = p;
	}
	ok = n == 0 || (H5Dset_extent(st->images, &extent) >= 0 &&
	    (fspace = H5Dget_space(st->images)) >= 0 &&
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count,
	    NULL) >= 0 &&
	    H5Dwrite(st->images, type, mspace, fspace, H5P_DEFAULT, vl) >= 0);
	H5Sclose(fspace);
	H5Sclose(mspace);
	H5Tclose(type);
	free(vl);
	if (!ok)
		return hdf5_fail(w, st, "cannot write images to");
	st->written += n;
	bale_buf_reset(&st->batch);
	bale_buf_reset(&st->lens);
	return BALE_OK;
}

static int hdf5_put_vlen(struct bale_writer *w, struct hdf5_w *st,
    const struct bale_sample *s)
{
	bale_buf_add(&st->batch, s->data, s->size);
	bale_buf_add(&st->lens, &s->size, sizeof(s->size));
	if (st->batch.failed || st->lens.failed)
		return hdf5_nomem(w);
	if (st->batch.len >= HDF5_VLEN_BATCH_BYTES ||
	    st->lens.len / sizeof(size_t) >= HDF5_VLEN_CHUNK)
		return hdf5_flush_batch(w, st);
	return BALE_OK;
}

static int hdf5_put(struct bale_writer *w, void *priv,
    const struct bale_sample *s)
{
	struct hdf5_w *st = priv;
	int64_t label = s->label;
	int rc;

	rc = st->vlen ? hdf5_put_vlen(w, st, s) : hdf5_put_encoded(w, st, s);
	if (rc != BALE_OK)
		return rc;
	if (!st->keylen)
		st->keylen = strlen(s->key);
	if (strlen(s->key) != st->keylen)
		return bale_writer_seterr(w, BALE_EINVAL,
		    "hdf5: key '%s' is not %zu characters", s->key,
		    st->keylen);
	st->total += s->size;
	bale_buf_add(&st->offsets, &st->total, sizeof(st->total));
	bale_buf_add(&st->labels, &label, sizeof(label));
	bale_buf_add(&st->crcs, &s->crc32, sizeof(s->crc32));
	bale_buf_add(&st->keys, s->key, st->keylen);
	bale_buf_add(&st->paths, s->relpath, strlen(s->relpath) + 1);
	if (st->offsets.failed || st->labels.failed || st->crcs.failed ||
	    st->keys.failed || st->paths.failed)
		return hdf5_nomem(w);
	st->count++;
	return BALE_OK;
}

/* ---- finish ------------------------------------------------------------ */

/* A contiguous 1-D dataset of @n elements of @type from @data. */
static int hdf5_write_array(struct bale_writer *w, struct hdf5_w *st,
    const char *name, hid_t type, hsize_t n, const void *data)
{
	hid_t space = H5Screate_simple(1, &n, NULL);
	hid_t dcpl = hdf5_dcpl(0);
	hid_t ds = -1;
	int ok;

	if (space >= 0 && dcpl >= 0)
		ds = H5Dcreate2(st->file, name, type, space, H5P_DEFAULT, dcpl,
		    H5P_DEFAULT);
	ok = ds >= 0 && (n == 0 ||
	    H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
	H5Dclose(ds);
	H5Pclose(dcpl);
	H5Sclose(space);
	return ok ? BALE_OK : hdf5_fail(w, st, name);
}

static hid_t hdf5_string_type(size_t size)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	H5Tset_size(t, size);
	H5Tset_cset(t, H5T_CSET_UTF8);
	return t;
}

/* An array of pointers to the NUL-separated strings in @b. */
static const char **hdf5_split(const struct bale_buf *b, size_t n)
{
	const char **v = calloc(n ? n : 1, sizeof(char *));
	const char *p = b->data;
	size_t i;

	for (i = 0; v && i < n; i++) {
		v[i] = p;
		p += strlen(p) + 1;
	}
	return v;
}

static int hdf5_write_strings(struct bale_writer *w, struct hdf5_w *st)
{
	hid_t vstr = hdf5_string_type(H5T_VARIABLE);
	hid_t fixed = hdf5_string_type(st->keylen ? st->keylen : 1);
	const char **paths = hdf5_split(&st->paths, st->count);
	int rc;

	if (!paths)
		rc = hdf5_nomem(w);
	else
		rc = hdf5_write_array(w, st, "paths", vstr, st->count, paths);
	if (rc == BALE_OK)
		rc = hdf5_write_array(w, st, "keys", fixed, st->count,
		    st->keys.data);
	free(paths);
	H5Tclose(vstr);
	H5Tclose(fixed);
	return rc;
}

static int hdf5_attr(struct bale_writer *w, struct hdf5_w *st,
    const char *name, hid_t type, hsize_t n, const void *v)
{
	hid_t space = n ? H5Screate_simple(1, &n, NULL) :
	    H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(st->file, name, type, space, H5P_DEFAULT,
	    H5P_DEFAULT);
	int ok = a >= 0 && H5Awrite(a, type, v) >= 0;

	H5Aclose(a);
	H5Sclose(space);
	return ok ? BALE_OK : hdf5_fail(w, st, name);
}

static int hdf5_write_attrs(struct bale_writer *w, struct hdf5_w *st)
{
	hid_t vstr = hdf5_string_type(H5T_VARIABLE);
	const char *version = bale_version();
	const char *layout = st->vlen ? "vlen" : "encoded";
	int64_t one = 1;
	int64_t count = (int64_t)st->count;
	int rc;

	rc = hdf5_attr(w, st, "bale_version", vstr, 0, &version);
	if (rc == BALE_OK)
		rc = hdf5_attr(w, st, "layout", vstr, 0, &layout);
	if (rc == BALE_OK)
		rc = hdf5_attr(w, st, "layout_version", H5T_NATIVE_INT64, 0,
		    &one);
	if (rc == BALE_OK)
		rc = hdf5_attr(w, st, "count", H5T_NATIVE_INT64, 0, &count);
	if (rc == BALE_OK && st->nclasses)
		rc = hdf5_attr(w, st, "class_names", vstr, st->nclasses,
		    st->class_copy);
	H5Tclose(vstr);
	return rc;
}

/* The last, partial chunk, then the exact extent. */
static int hdf5_finish_images(struct bale_writer *w, struct hdf5_w *st)
{
	if (st->vlen)
		return hdf5_flush_batch(w, st);
	if (st->chunk.len == 0) {
		hsize_t size = st->total;

		return H5Dset_extent(st->images, &size) < 0 ?
		    hdf5_fail(w, st, "cannot size images in") : BALE_OK;
	}
	/* a chunk is always written whole: pad it */
	bale_buf_zeros(&st->chunk, HDF5_CHUNK - st->chunk.len);
	if (st->chunk.failed)
		return hdf5_nomem(w);
	return hdf5_flush_chunk(w, st, st->total);
}

static int hdf5_finish(struct bale_writer *w, void *priv)
{
	struct hdf5_w *st = priv;
	int rc;

	rc = hdf5_finish_images(w, st);
	if (rc == BALE_OK && !st->vlen)
		rc = hdf5_write_array(w, st, "offsets", H5T_NATIVE_UINT64,
		    st->count + 1, st->offsets.data);
	if (rc == BALE_OK)
		rc = hdf5_write_array(w, st, "labels", H5T_NATIVE_INT64,
		    st->count, st->labels.data);
	if (rc == BALE_OK)
		rc = hdf5_write_array(w, st, "crc32", H5T_NATIVE_UINT32,
		    st->count, st->crcs.data);
	if (rc == BALE_OK)
		rc = hdf5_write_strings(w, st);
	if (rc == BALE_OK)
		rc = hdf5_write_attrs(w, st);
	if (rc != BALE_OK)
		return rc;
	H5Dclose(st->images);
	st->images = -1;
	if (H5Fclose(st->file) < 0) {
		st->file = -1;
		return hdf5_fail(w, st, "cannot close");
	}
	st->file = -1;
	if (st->sync && bale_file_sync(st->tmp) != 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "hdf5: cannot sync '%s': %s", st->tmp, strerror(errno));
	return BALE_OK;
}

static int hdf5_publish(struct bale_writer *w, void *priv)
{
	struct hdf5_w *st = priv;

	if (rename(st->tmp, st->final) != 0 ||
	    (st->sync && bale_file_sync_parent(st->final) != 0))
		return bale_writer_seterr(w, BALE_EIO,
		    "hdf5: cannot rename '%s': %s", st->tmp, strerror(errno));
	st->published = 1;
	return BALE_OK;
}

static void hdf5_release(void *priv)
{
	struct hdf5_w *st = priv;
	size_t i;

	if (st->images > 0)
		H5Dclose(st->images);
	if (st->file > 0)
		H5Fclose(st->file);
	if (!st->published && st->tmp)
		unlink(st->tmp);
	for (i = 0; st->class_copy && i < st->nclasses; i++)
		free(st->class_copy[i]);
	free(st->class_copy);
	free(st->final);
	free(st->tmp);
	bale_buf_release(&st->chunk);
	bale_buf_release(&st->batch);
	bale_buf_release(&st->lens);
	bale_buf_release(&st->offsets);
	bale_buf_release(&st->labels);
	bale_buf_release(&st->crcs);
	bale_buf_release(&st->keys);
	bale_buf_release(&st->paths);
}

static const struct bale_writer_ops hdf5_writer = {
	.option = hdf5_option,
	.open = hdf5_open,
	.put = hdf5_put,
	.finish = hdf5_finish,
	.publish = hdf5_publish,
	.release = hdf5_release,
};

const struct bale_backend bale_backend_hdf5 = {
	.abi = BALE_BACKEND_ABI,
	.name = "hdf5",
	.summary = "HDF5 file (encoded bytes + offsets, or vlen uint8)",
	.caps = BALE_CAP_EMPTY,
	.writer_priv = sizeof(struct hdf5_w),
	.writer = &hdf5_writer,
	.reader_priv = 0,
	.reader = NULL,
};
