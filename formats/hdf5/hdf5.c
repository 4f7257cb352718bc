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
 * layout "pixels" (bale pack --pixels WxH)
 *   images   uint8 [N, H, W, 3], one image a chunk, optionally with the
 *            shuffle and deflate filters (option deflate=1..9);
 *            f["images"][i] is image i as a numpy array
 * all
 *   labels int64 [N], keys string [N] (the sample keys of every format),
 *   crc32 uint32 [N] (of what images holds for the sample), paths vlen
 *   string [N] (relative source paths); all chunked and appended at each
 *   checkpoint (hdf5_rows.c)
 *
 * Checkpoints (for bale pack --resume): when images are written (a whole
 * chunk, a vlen batch, every HDF5_PIXELS_CHECKPOINT pixel rows), the rows
 * they complete are appended and the file is flushed, so a killed run
 * leaves a file that holds them whole; a resumed run cuts every dataset
 * back to the checkpoint and checks each row against its crc32.
 *
 * The chunk is larger than h5py's default 1 MiB chunk cache, so a slice
 * of one sample is read straight from the file, no whole-chunk read.
 * Object times are not stored, so the same input gives the same bytes.
 * HDF5 (Debian's build) is not thread-safe: every call here runs on the
 * single writer thread. The reader is hdf5_read.c, picking up a killed
 * run's file hdf5_resume.c.
 */
#include "hdf5_write.h"

#include "hdf5_common.h"
#include "hdf5_index.h"
#include "hdf5_pixels.h"
#include "hdf5_read.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- options and open ---------------------------------------------------- */

static int hdf5_option(struct bale_writer *w, void *priv, const char *key,
    const char *value)
{
	struct hdf5_w *st = priv;

	if (strcmp(key, "layout") == 0) {
		if (strcmp(value, "encoded") != 0 && strcmp(value, "vlen"))
			return bale_writer_seterr(w, BALE_EINVAL,
			    "layout '%s': expected encoded or vlen",
			    value);
		st->vlen = strcmp(value, "vlen") == 0;
		st->layout_set = 1;
		return BALE_OK;
	}
	if (strcmp(key, "deflate") == 0) {
		if (strlen(value) != 1 || value[0] < '0' || value[0] > '9')
			return bale_writer_seterr(w, BALE_EINVAL,
			    "deflate '%s': expected 0 to 9", value);
		st->deflate = value[0] - '0';
		return BALE_OK;
	}
	if (strcmp(key, "fsync") == 0) {
		st->sync = strcmp(value, "0") != 0;
		return BALE_OK;
	}
	return BALE_ENOOPT;
}

static int hdf5_open(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds)
{
	struct hdf5_w *st = priv;
	int rc = bale_hdf5_remote_paths(w, st, dir, ds);

	if (rc == BALE_OK && st->remote)
		rc = bale_hdf5_remote_claim(w, st, ds->replace);
	if (rc != BALE_OK)
		return rc;
	if (access(st->final, F_OK) == 0 && !ds->replace)
		return bale_writer_seterr(w, BALE_EEXIST,
		    "'%s' exists",
		    st->final);
	if (ds->replace && unlink(st->final) != 0 && errno != ENOENT)
		return bale_writer_seterr(w, BALE_EIO,
		    "cannot remove '%s': %s", st->final, strerror(errno));
	return bale_hdf5_create(w, st, ds);
}

/* ---- samples ------------------------------------------------------------ */

static void hdf5_mark_durable(struct hdf5_w *st, uint64_t rows,
    uint64_t bytes)
{
	st->durable_rows = rows;
	st->durable_bytes = bytes;
	st->flushed = 1;
}

/* Write the filled chunk buffer as chunk number st->chunks. */
static int hdf5_flush_chunk(struct bale_writer *w, struct hdf5_w *st,
    uint64_t extent)
{
	hsize_t offset = st->chunks * HDF5_CHUNK;
	hsize_t size = extent;

	if (H5Dset_extent(st->images, &size) < 0 ||
	    H5Dwrite_chunk(st->images, H5P_DEFAULT, 0, &offset, HDF5_CHUNK,
	    st->chunk.data) < 0)
		return bale_hdf5_wfail(w, st, "cannot write images to");
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
			return bale_hdf5_wnomem(w);
		p += n;
		left -= n;
		if (st->chunk.len == HDF5_CHUNK) {
			rc = hdf5_flush_chunk(w, st,
			    (st->chunks + 1) * HDF5_CHUNK);
			if (rc != BALE_OK)
				return rc;
			/* every row before this sample is in the file */
			hdf5_mark_durable(st, st->count, st->total);
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
		return bale_hdf5_wnomem(w);
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
		return bale_hdf5_wfail(w, st, "cannot write images to");
	st->written += n;
	bale_buf_reset(&st->batch);
	bale_buf_reset(&st->lens);
	return BALE_OK;
}

static int hdf5_put_vlen(struct bale_writer *w, struct hdf5_w *st,
    const struct bale_sample *s)
{
	int rc;

	bale_buf_add(&st->batch, s->data, s->size);
	bale_buf_add(&st->lens, &s->size, sizeof(s->size));
	if (st->batch.failed || st->lens.failed)
		return bale_hdf5_wnomem(w);
	if (st->batch.len < HDF5_VLEN_BATCH_BYTES &&
	    st->lens.len / sizeof(size_t) < HDF5_VLEN_CHUNK)
		return BALE_OK;
	rc = hdf5_flush_batch(w, st);
	if (rc != BALE_OK)
		return rc;
	hdf5_mark_durable(st, st->count + 1, st->total + s->size);
	return BALE_OK;
}

/* A .npy sample of the promised shape becomes one row; its checksum is
 * taken again over the pixels, which is what the file gives back. */
static int hdf5_put_pixels(struct bale_writer *w, struct hdf5_w *st,
    const struct bale_sample *s, uint32_t *crc)
{
	size_t px = (size_t)st->pixels_w * (size_t)st->pixels_h * 3;

	if (s->size != st->npy_len + px ||
	    memcmp(s->data, st->npy_head, st->npy_len) != 0)
		return bale_writer_seterr(w, BALE_EINVAL, "sample '%s' "
		    "is not a %d x %d x 3 uint8 array", s->key, st->pixels_h,
		    st->pixels_w);
	if (bale_hdf5_pixels_put(st->images, st->count,
	    s->data + st->npy_len) != 0)
		return bale_hdf5_wfail(w, st, "cannot write images to");
	*crc = bale_crc32(s->data + st->npy_len, px);
	if ((st->count + 1) % HDF5_PIXELS_CHECKPOINT == 0)
		hdf5_mark_durable(st, st->count + 1, st->total + s->size);
	return BALE_OK;
}

static int hdf5_put_images(struct bale_writer *w, struct hdf5_w *st,
    const struct bale_sample *s, uint32_t *crc)
{
	*crc = s->crc32;
	if (st->pixels_w)
		return hdf5_put_pixels(w, st, s, crc);
	return st->vlen ? hdf5_put_vlen(w, st, s) :
	    hdf5_put_encoded(w, st, s);
}

/* The rows whose images are written are a checkpoint: their per-sample
 * rows go to the file too, and the file is flushed, so a killed run
 * leaves a file that holds them whole. */
static int hdf5_write_checkpoint(struct bale_writer *w, struct hdf5_w *st)
{
	uint64_t rows = st->durable_rows;
	char state[64];

	st->flushed = 0;
	if (rows <= st->rows.in_file)
		return BALE_OK;
	st->ckpt_next = bale_hdf5_rows_index(&st->rows, rows - 1) + 1;
	if (bale_hdf5_rows_write(&st->rows, rows) != 0 ||
	    H5Fflush(st->file, H5F_SCOPE_LOCAL) < 0)
		return bale_hdf5_wfail(w, st, "cannot write a checkpoint to");
	snprintf(state, sizeof(state), "{\"rows\":%" PRIu64 ",\"bytes\":%"
	    PRIu64 "}", rows, st->durable_bytes);
	bale_writer_reached(w, st->ckpt_next, state);
	return BALE_OK;
}

static int hdf5_put(struct bale_writer *w, void *priv,
    const struct bale_sample *s)
{
	struct hdf5_w *st = priv;
	uint32_t crc;
	int rc;

	rc = hdf5_put_images(w, st, s, &crc);
	if (rc != BALE_OK)
		return rc;
	rc = bale_hdf5_rows_add(&st->rows, s->index, st->total + s->size,
	    s->label, crc, s->key, s->relpath);
	if (rc == -1)
		return bale_writer_seterr(w, BALE_EINVAL,
		    "key '%s' is not %zu characters", s->key,
		    st->rows.keylen);
	if (rc != 0)
		return bale_hdf5_wnomem(w);
	st->total += s->size;
	st->count++;
	return st->flushed ? hdf5_write_checkpoint(w, st) : BALE_OK;
}

/* ---- finish ------------------------------------------------------------ */

static int hdf5_write_attrs(struct bale_writer *w, struct hdf5_w *st)
{
	const char *layout = st->pixels_w ? "pixels" : st->vlen ? "vlen" :
	    "encoded";

	if (bale_hdf5_write_attrs(st->file, layout, (int64_t)st->count,
	    st->class_copy, st->nclasses) != 0)
		return bale_hdf5_wfail(w, st, "cannot write attributes to");
	return BALE_OK;
}

/* Images that fill less than one chunk, none written yet: the dataset
 * is made again with a chunk of their size (rounded up to 4 KiB), so a
 * small output is not a 4 MiB file. */
static int hdf5_one_small_chunk(struct bale_writer *w, struct hdf5_w *st)
{
	hsize_t chunk = ((hsize_t)st->chunk.len + 4095) & ~(hsize_t)4095;
	hsize_t zero = 0;
	hsize_t unlimited = H5S_UNLIMITED;
	hsize_t size = st->total;
	hid_t space = H5Screate_simple(1, &zero, &unlimited);
	hid_t dcpl = bale_hdf5_dcpl(chunk);

	H5Dclose(st->images);
	st->images = -1;
	if (space >= 0 && dcpl >= 0 &&
	    H5Ldelete(st->file, "images", H5P_DEFAULT) >= 0)
		st->images = H5Dcreate2(st->file, "images", H5T_NATIVE_UINT8,
		    space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Pclose(dcpl);
	H5Sclose(space);
	bale_buf_zeros(&st->chunk, (size_t)chunk - st->chunk.len);
	if (st->chunk.failed)
		return bale_hdf5_wnomem(w);
	zero = 0;
	if (st->images < 0 || H5Dset_extent(st->images, &size) < 0 ||
	    H5Dwrite_chunk(st->images, H5P_DEFAULT, 0, &zero, (size_t)chunk,
	    st->chunk.data) < 0)
		return bale_hdf5_wfail(w, st, "cannot write images to");
	return BALE_OK;
}

/* The last, partial chunk, then the exact extent. */
static int hdf5_finish_images(struct bale_writer *w, struct hdf5_w *st)
{
	if (st->pixels_w)
		return bale_hdf5_pixels_resize(st->images, st->count) != 0 ?
		    bale_hdf5_wfail(w, st, "cannot size images in") : BALE_OK;
	if (st->vlen)
		return hdf5_flush_batch(w, st);
	if (st->chunk.len == 0) {
		hsize_t size = st->total;

		return H5Dset_extent(st->images, &size) < 0 ?
		    bale_hdf5_wfail(w, st, "cannot size images in") : BALE_OK;
	}
	if (st->chunks == 0)
		return hdf5_one_small_chunk(w, st);
	/* a chunk is always written whole: pad it */
	bale_buf_zeros(&st->chunk, HDF5_CHUNK - st->chunk.len);
	if (st->chunk.failed)
		return bale_hdf5_wnomem(w);
	return hdf5_flush_chunk(w, st, st->total);
}

static int hdf5_finish(struct bale_writer *w, void *priv)
{
	struct hdf5_w *st = priv;
	int rc;

	rc = hdf5_finish_images(w, st);
	if (rc == BALE_OK && bale_hdf5_rows_write(&st->rows, st->count) != 0)
		rc = bale_hdf5_wfail(w, st, "cannot write datasets to");
	if (rc == BALE_OK)
		rc = hdf5_write_attrs(w, st);
	if (rc != BALE_OK)
		return rc;
	H5Dclose(st->images);
	st->images = -1;
	bale_hdf5_rows_release(&st->rows);
	if (H5Fclose(st->file) < 0) {
		st->file = -1;
		return bale_hdf5_wfail(w, st, "cannot close");
	}
	st->file = -1;
	if (st->sync && bale_file_sync(st->tmp) != 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "cannot sync '%s': %s", st->tmp, strerror(errno));
	if (bale_hdf5_index_write(st->tmp, st->final, st->sync) != 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "cannot index '%s': %s", st->tmp, strerror(errno));
	return BALE_OK;
}

static int hdf5_publish(struct bale_writer *w, void *priv)
{
	struct hdf5_w *st = priv;
	int rc = st->remote ? bale_hdf5_remote_publish(w, st) :
	    bale_writer_publish_file(w, st->final, st->sync);

	st->published = rc == BALE_OK;
	return rc;
}

static void hdf5_release(void *priv)
{
	struct hdf5_w *st = priv;
	size_t i;

	if (st->images > 0)
		H5Dclose(st->images);
	bale_hdf5_rows_release(&st->rows);
	if (st->file > 0)
		H5Fclose(st->file);
	/* what a checkpoint covers stays, for a resumed run */
	if (!st->published && st->tmp && st->ckpt_next == 0)
		unlink(st->tmp);
	for (i = 0; st->class_copy && i < st->nclasses; i++)
		free(st->class_copy[i]);
	free(st->class_copy);
	free(st->final);
	free(st->tmp);
	bale_hdf5_remote_release(st);	/* after the file's close */
	bale_buf_release(&st->chunk);
	bale_buf_release(&st->batch);
	bale_buf_release(&st->lens);
}

static const struct bale_writer_ops hdf5_writer = {
	.option = hdf5_option,
	.open = hdf5_open,
	.put = hdf5_put,
	.finish = hdf5_finish,
	.publish = hdf5_publish,
	.release = hdf5_release,
	.resume = bale_hdf5_resume,
};

/* An HDF5 file: its signature at offset 0, or after a user block of
 * 512, 1024 or 2048 bytes (the spec's first places to look). */
static int hdf5_probe(const char *path, int is_dir, const unsigned char *head,
    size_t n)
{
	static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n',
	    0x1a, '\n' };
	size_t off;

	(void)path;
	if (is_dir)
		return 0;
	for (off = 0; off + sizeof(sig) <= n && off <= 2048;
	    off = off ? 2 * off : 512)
		if (memcmp(head + off, sig, sizeof(sig)) == 0)
			return 1;
	return 0;
}

static const char *hdf5_library_version(void)
{
	return H5_VERS_INFO;
}

static const struct bale_option hdf5_writer_options[] = {
	{ "layout", "L", BALE_OPTION_SHAPES, "hdf5-layout",
	    "encoded (bytes + offsets) or vlen" },
	{ "deflate", "0-9", BALE_OPTION_SHAPES, NULL,
	    "gzip level of pixel arrays (0: none)" },
	{ "fsync", NULL, BALE_OPTION_SYNC, "fsync", BALE_FSYNC_HELP },
	{ NULL, NULL, 0, NULL, NULL },
};

/* an updated output's images, by version (hdf5_update.c) */
static const char *const hdf5_side_files[] = { "-images", ".h5.bidx",
	NULL };

static const struct bale_option hdf5_reader_options[] = {
	{ "meta", NULL, 0, NULL,
	    "read each sample's checksum and path too (default 1)" },
	{ "row_window", "N", 0, NULL,
	    "with the metadata, hold N rows at a time while reads go in "
	    "order (default 65536); a read elsewhere reads every row" },
	{ NULL, NULL, 0, NULL, NULL },
};

const struct bale_backend bale_backend_hdf5 = {
	.abi = BALE_BACKEND_ABI,
	.name = "hdf5",
	.summary = "HDF5 file (encoded bytes + offsets, vlen uint8, or "
	    "N x H x W x 3 pixels)",
	.caps = BALE_CAP_EMPTY | BALE_CAP_RANDOM | BALE_CAP_THREADS |
	    BALE_CAP_REMOTE | BALE_CAP_WRITE_REMOTE,
	.probe = hdf5_probe,
	.suffix = ".h5",
	.read_rank = 20,	/* one file, chunk addresses read once */
	.side_files = hdf5_side_files,
	.library = "libhdf5",
	.library_version = hdf5_library_version,
	.writer_priv = sizeof(struct hdf5_w),
	.writer = &hdf5_writer,
	.writer_options = hdf5_writer_options,
	.reader_priv = sizeof(struct hdf5_r),
	.reader = &bale_hdf5_reader,
	.reader_options = hdf5_reader_options,
	.merge = bale_hdf5_merge,
	.update = bale_hdf5_update,
};
