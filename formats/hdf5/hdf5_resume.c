/* hdf5_resume.c - pick up the HDF5 file a killed run left: reopen it,
 * cut every dataset back to the checkpoint's rows, check each kept row
 * against its crc32; if any of that fails, the file is made anew. */
#include "hdf5_write.h"

#include "hdf5_common.h"
#include "hdf5_pixels.h"
#include "hdf5_read.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What row @i holds (a pixels row: its array) into @b. */
static int hdf5_read_row(struct hdf5_w *st, uint64_t i, const uint64_t *off,
    unsigned char **b, size_t *cap, size_t *len)
{
	if (st->vlen)
		return bale_hdf5_read_vlen(st->images, i, b, cap, len);
	if (off && off[i + 1] < off[i])
		return -1;
	*len = st->pixels_w ? (size_t)st->pixels_w * (size_t)st->pixels_h * 3 :
	    (size_t)(off[i + 1] - off[i]);
	if (bale_grow(b, cap, *len ? *len : 1) != 0)
		return -1;
	return st->pixels_w ? bale_hdf5_pixels_get(st->images, i, *b) :
	    bale_hdf5_read_bytes(st->images, off[i], *len, *b);
}

/* Each kept row must match its crc32 (and the offsets end at @bytes). */
static int hdf5_verify_rows(struct hdf5_w *st, uint64_t rows, uint64_t bytes,
    struct bale_errbuf *err)
{
	uint32_t *crcs = NULL;
	uint64_t *off = NULL;
	unsigned char *b = NULL;
	size_t bcap = 0;
	size_t len;
	uint64_t i;
	int rc = BALE_OK;

	if (bale_hdf5_rows_read(&st->rows, rows, &crcs, &off) != 0)
		rc = bale_errbuf_set(err, BALE_EINVAL, "cannot read its rows");
	else if (off && off[rows] != bytes)
		rc = bale_errbuf_set(err, BALE_EINVAL, "its offsets do not end "
		    "at %" PRIu64, bytes);
	for (i = 0; rc == BALE_OK && i < rows; i++)
		if (hdf5_read_row(st, i, off, &b, &bcap, &len) != 0 ||
		    bale_crc32(b, len) != crcs[i])
			rc = bale_errbuf_set(err, BALE_EINVAL, "row %" PRIu64
			    " does not match its crc32", i);
	free(b);
	free(crcs);
	free(off);
	return rc;
}

/* Cut images back to @rows rows; encoded: the bytes of the last, partial
 * chunk go back in the chunk buffer, to be written whole later. */
static int hdf5_reopen_images(struct hdf5_w *st, uint64_t rows,
    uint64_t bytes)
{
	hsize_t size = st->vlen ? rows : bytes;
	size_t part = (size_t)(bytes % HDF5_CHUNK);

	st->images = H5Dopen2(st->file, "images", H5P_DEFAULT);
	if (st->images < 0)
		return -1;
	if (st->pixels_w)
		return bale_hdf5_pixels_resize(st->images, rows);
	if (H5Dset_extent(st->images, &size) < 0)
		return -1;
	st->written = rows;
	st->chunks = bytes / HDF5_CHUNK;
	if (st->vlen || part == 0)
		return 0;
	bale_buf_zeros(&st->chunk, part);
	return st->chunk.failed ? -1 : bale_hdf5_read_bytes(st->images,
	    st->chunks * HDF5_CHUNK, part, st->chunk.data);
}

/* Attributes an interrupted finish may have written already. */
static void hdf5_drop_attrs(hid_t file)
{
	static const char *const names[] = { "bale_version", "layout",
	    "layout_version", "count", "class_names" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (H5Aexists(file, names[i]) > 0)
			H5Adelete(file, names[i]);
}

/* Reopen st->tmp at the checkpoint of @rows rows, @bytes image bytes.
 * @return BALE_OK, or BALE_EINVAL with @err saying what is wrong */
static int hdf5_pick_up(struct hdf5_w *st, uint64_t rows, uint64_t bytes,
    struct bale_errbuf *err)
{
	char why[BALE_HDF5_WHY_MAX];

	st->file = H5Fopen(st->tmp, H5F_ACC_RDWR, H5P_DEFAULT);
	if (st->file < 0 || hdf5_reopen_images(st, rows, bytes) != 0 ||
	    bale_hdf5_rows_reopen(&st->rows, st->file,
	    !st->vlen && !st->pixels_w, rows) != 0) {
		bale_hdf5_why(why);
		return bale_errbuf_set(err, BALE_EINVAL, "%s", why);
	}
	if (hdf5_verify_rows(st, rows, bytes, err) != BALE_OK)
		return err->rc;
	hdf5_drop_attrs(st->file);
	H5Eclear2(H5E_DEFAULT);
	st->count = rows;
	st->total = bytes;
	return BALE_OK;
}

/* Close what a failed pick-up opened, so the file can be made anew. */
static void hdf5_drop_open(struct hdf5_w *st)
{
	bale_hdf5_rows_release(&st->rows);
	if (st->images > 0)
		H5Dclose(st->images);
	if (st->file > 0)
		H5Fclose(st->file);
	st->file = st->images = -1;
	bale_buf_reset(&st->chunk);
	st->count = st->total = st->chunks = st->written = 0;
}

static int hdf5_state(const char *state, const char *key, uint64_t *v)
{
	const char *vend;
	const char *p = state ? bale_jsonr_find(state, state + strlen(state),
	    key, &vend) : NULL;

	return p ? bale_jsonr_u64(p, vend, v) : -1;
}

int bale_hdf5_resume(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs)
{
	struct hdf5_w *st = priv;
	uint64_t rows;
	uint64_t bytes;
	struct bale_errbuf err;
	int rc = bale_hdf5_remote_paths(w, st, dir, ds);

	if (rc != BALE_OK)
		return rc;
	if (rs->next > 0 && hdf5_state(rs->state, "rows", &rows) == 0 &&
	    hdf5_state(rs->state, "bytes", &bytes) == 0 &&
	    access(st->tmp, F_OK) == 0) {
		if (hdf5_pick_up(st, rows, bytes, &err) == BALE_OK) {
			st->ckpt_next = rs->next;
			return BALE_OK;
		}
		snprintf(rs->note, sizeof(rs->note), "hdf5: %.160s; writing "
		    "'%s' again", err.msg, st->tmp);
		hdf5_drop_open(st);
	}
	if (rs->next > 0 && st->remote)
		snprintf(rs->note, sizeof(rs->note), "hdf5: '%.150s' is made "
		    "on local disk and uploaded whole: written again",
		    st->remote);
	rs->next = 0;
	return bale_hdf5_create(w, st, ds);
}
