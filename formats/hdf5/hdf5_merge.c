/* hdf5_merge.c - the parts of a run as one HDF5 file.
 *
 * Its "images" is a virtual dataset over the parts' own "images": no
 * image byte is copied. Each part is named by its path from the merged
 * file's folder, so the merged folder and the parts move together. The
 * per-sample datasets (labels, crc32, keys, paths, and offsets shifted
 * onto the joined bytes) are copied, a few dozen bytes a sample, so the
 * file has every dataset a single run's has and h5py reads it as one.
 * Written as NAME.h5.partial and renamed when complete. HDF5 reads a
 * missing source as zeros without an error; bale's reader (hdf5_images.c)
 * checks that every part is there. With --copy (m->copy) the images are
 * copied instead (hdf5_merge_copy.c), for a file that stands alone.
 */
#include "hdf5_write.h"

#include "hdf5_common.h"
#include "hdf5_index.h"
#include "hdf5_merge.h"
#include "hdf5_parts.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int hdf5_merge_nomem(struct hdf5_merging *g)
{
	return bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
}

/* Part 0's class names, which every part holds whole. */
static void hdf5_merge_classes(struct hdf5_merging *g, hid_t file)
{
	hid_t vstr = bale_hdf5_string_type(H5T_VARIABLE);
	hid_t a = H5Aopen(file, "class_names", H5P_DEFAULT);
	hid_t space = a >= 0 ? H5Aget_space(a) : -1;

	g->nclasses = space >= 0 ? H5Sget_simple_extent_npoints(space) : 0;
	if (g->nclasses > 0)
		g->classes = calloc((size_t)g->nclasses, sizeof(char *));
	if (!g->classes || H5Aread(a, vstr, g->classes) < 0)
		g->nclasses = 0;
	H5Sclose(space);
	H5Aclose(a);
	H5Tclose(vstr);
	H5Eclear2(H5E_DEFAULT);
}

/* The part's "images": of part 0's type and rank, and, past the first
 * dimension, of its shape. */
static int hdf5_merge_images_of(struct hdf5_merging *g, size_t i,
    hid_t file)
{
	struct hdf5_source *s = &g->src[i];
	hid_t d = H5Dopen2(file, "images", H5P_DEFAULT);
	hid_t t = d >= 0 ? H5Dget_type(d) : -1;
	hid_t space = d >= 0 ? H5Dget_space(d) : -1;
	int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
	int ok = t >= 0 && rank >= 1 && rank <= BALE_HDF5_MAX_RANK &&
	    H5Sget_simple_extent_dims(space, s->dims, NULL) == rank;
	int k;

	if (ok && i == 0) {
		g->type = H5Tcopy(t);
		g->rank = rank;
	}
	ok = ok && rank == g->rank && H5Tequal(t, g->type) > 0;
	for (k = 1; ok && k < rank; k++)
		ok = s->dims[k] == g->src[0].dims[k];
	H5Tclose(t);
	H5Sclose(space);
	H5Dclose(d);
	return ok ? BALE_OK : bale_errbuf_set(g->err, BALE_EBACKEND,
	    "'%s' holds no images of the first part's type and shape",
	    s->path);
}

/* Rows [@first, + p->n) of the part after those of the parts before
 * it: keys and labels as they are, offsets moved past the bytes
 * before. */
static int hdf5_merge_add_rows(struct hdf5_merging *g,
    const struct bale_hdf5_rowset *p, uint64_t first)
{
	uint64_t at = g->count + first;
	char key[128];
	uint64_t j;
	int rc;

	for (j = 0; j < p->n; j++) {
		if (bale_hdf5_rowset_key(p, j, key, sizeof(key)) != 0)
			return BALE_EINVAL;
		rc = bale_hdf5_rows_add(&g->rows, at + j, p->offsets ?
		    g->bytes + p->offsets[j + 1] : 0, p->labels[j], p->crcs[j],
		    key, p->paths[j] ? p->paths[j] : "");
		if (rc != 0)
			return rc == -2 ? BALE_ENOMEM : BALE_EINVAL;
	}
	return bale_hdf5_rows_write(&g->rows, at + p->n) == 0 ? BALE_OK :
	    BALE_EBACKEND;
}

/* Which of the part's "images" the merged file maps: its bytes up to
 * the last offset (@end, encoded), else its @n rows. */
static int hdf5_merge_extent(struct hdf5_merging *g, size_t i,
    int with_offsets, uint64_t end, uint64_t n)
{
	struct hdf5_source *s = &g->src[i];

	s->rows = with_offsets ? end : n;
	if ((with_offsets && s->rows > s->dims[0]) ||
	    (!with_offsets && s->rows != s->dims[0]))
		return bale_errbuf_set(g->err, BALE_EBACKEND, "'%s' "
		    "holds fewer images than its rows describe", s->path);
	return BALE_OK;
}

/* A part's rows as they are read. */
struct hdf5_merge_window {
	struct hdf5_merging *g;
	uint64_t end;		/* where its encoded bytes end so far */
};

/* A window of a part's rows into the merged file. */
static int hdf5_merge_window(void *ctx, const struct bale_hdf5_rowset *p,
    uint64_t first)
{
	struct hdf5_merge_window *w = ctx;
	int rc = hdf5_merge_add_rows(w->g, p, first);

	if (rc != BALE_OK)
		bale_hdf5_merge_fail(w->g, "cannot write rows to", w->g->tmp);
	else if (p->offsets)
		w->end = p->offsets[p->n];
	return rc;
}

/* Everything of part @i but its image bytes, a window of rows at a
 * time; *@end: where its encoded bytes end (its last offset). */
static int hdf5_merge_rows_in_steps(struct hdf5_merging *g, size_t i,
    hid_t file, uint64_t n, uint64_t *end)
{
	struct hdf5_merge_window w = { g, 0 };
	int read_failed;
	int rc = bale_hdf5_rowset_each(file, n, strcmp(g->layout,
	    "encoded") == 0, hdf5_merge_window, &w, &read_failed);

	if (read_failed && rc == BALE_ENOMEM)
		hdf5_merge_nomem(g);
	else if (read_failed)
		bale_hdf5_merge_fail(g, "cannot read the rows of",
		    g->src[i].path);
	*end = w.end;
	return rc;
}

static int hdf5_merge_part_rows(struct hdf5_merging *g, size_t i,
    hid_t file)
{
	int with_offsets = strcmp(g->layout, "encoded") == 0;
	int64_t n = bale_hdf5_attr_count(file);
	uint64_t end = 0;
	int rc;

	if (n < 0)
		return bale_errbuf_set(g->err, BALE_EBACKEND, "'%s' has "
		    "no attribute 'count'", g->src[i].path);
	rc = hdf5_merge_rows_in_steps(g, i, file, (uint64_t)n, &end);
	if (rc == BALE_OK)
		rc = hdf5_merge_extent(g, i, with_offsets, end, (uint64_t)n);
	if (rc == BALE_OK) {
		g->count += (uint64_t)n;
		g->bytes += end;
	}
	return rc;
}

static int hdf5_merge_part(struct hdf5_merging *g, size_t i)
{
	struct hdf5_source *s = &g->src[i];
	hid_t file;
	char *layout;
	int rc;

	s->path = bale_strfmt("%s/%s.h5", g->m->parts[i], g->m->name);
	if (!s->path)
		return hdf5_merge_nomem(g);
	file = H5Fopen(s->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (file < 0)
		return bale_hdf5_merge_fail(g, "cannot open", s->path);
	layout = bale_hdf5_attr_str(file, "layout");
	if (i == 0 && layout) {
		g->layout = strdup(layout);
		hdf5_merge_classes(g, file);
		if (bale_hdf5_rows_create(&g->rows, g->file,
		    strcmp(layout, "encoded") == 0) != 0) {
			H5free_memory(layout);
			H5Fclose(file);
			return bale_hdf5_merge_fail(g, "cannot create", g->tmp);
		}
	}
	if (!layout || !g->layout || strcmp(layout, g->layout) != 0)
		rc = bale_errbuf_set(g->err, BALE_EBACKEND, "'%s' is not "
		    "a bale HDF5 file of the first part's layout", s->path);
	else
		rc = hdf5_merge_images_of(g, i, file);
	if (rc == BALE_OK)
		rc = hdf5_merge_part_rows(g, i, file);
	H5free_memory(layout);
	H5Fclose(file);
	return rc;
}

/* "images": every part's, one after another, as a virtual dataset; each
 * part named by its path from the merged file's folder. */
static int hdf5_merge_images(struct hdf5_merging *g)
{
	size_t i, n = g->m->nparts;
	struct bale_hdf5_map *maps = calloc(n, sizeof(*maps));
	hsize_t dims[BALE_HDF5_MAX_RANK];
	uint64_t at = 0;
	hid_t d = -1;
	int rc = maps ? BALE_OK : hdf5_merge_nomem(g);

	for (i = 0; rc == BALE_OK && i < n; at += g->src[i].rows, i++) {
		maps[i].file = bale_file_relpath(g->m->out, g->src[i].path);
		memcpy(maps[i].src_dims, g->src[i].dims, sizeof(dims));
		maps[i].vstart = at;
		maps[i].count = g->src[i].rows;
		if (!maps[i].file)
			rc = bale_errbuf_set(g->err, BALE_EIO, "cannot "
			    "find '%s' from '%s'", g->src[i].path, g->m->out);
	}
	memcpy(dims, g->src[0].dims, sizeof(dims));
	dims[0] = at;
	if (rc == BALE_OK)
		d = bale_hdf5_vds_create(g->file, g->type, g->rank, dims, maps,
		    n);
	if (rc == BALE_OK && d < 0)
		rc = bale_hdf5_merge_fail(g, "cannot create images in", g->tmp);
	H5Dclose(d);
	for (i = 0; maps && i < n; i++)
		free((char *)maps[i].file);
	free(maps);
	return rc;
}

static int hdf5_merge_open(struct hdf5_merging *g)
{
	const struct bale_merge *m = g->m;
	struct stat sb;

	H5dont_atexit();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	g->file = g->type = -1;
	g->final = bale_strfmt("%s/%s.h5", m->out, m->name);
	g->tmp = bale_strfmt("%s/%s.h5" BALE_PARTIAL, m->out, m->name);
	g->src = calloc(m->nparts, sizeof(*g->src));
	if (!g->final || !g->tmp || !g->src)
		return hdf5_merge_nomem(g);
	if (lstat(g->final, &sb) == 0 && !m->replace)
		return bale_errbuf_exists(g->err, "hdf5", g->final);
	g->file = bale_hdf5_file_create(g->tmp);
	if (g->file < 0)
		return bale_hdf5_merge_fail(g, "cannot create", g->tmp);
	return BALE_OK;
}

static int hdf5_merge_finish(struct hdf5_merging *g)
{
	int rc = g->m->copy ? bale_hdf5_merge_copy_images(g) :
	    hdf5_merge_images(g);

	if (rc == BALE_OK && bale_hdf5_write_attrs(g->file, g->layout,
	    (int64_t)g->count, g->classes, (size_t)g->nclasses) != 0)
		rc = bale_hdf5_merge_fail(g, "cannot write attributes to",
		    g->tmp);
	bale_hdf5_rows_release(&g->rows);
	if (H5Fclose(g->file) < 0 && rc == BALE_OK)
		rc = bale_hdf5_merge_fail(g, "cannot close", g->tmp);
	g->file = -1;
	if (rc == BALE_OK && bale_hdf5_index_write(g->tmp, g->final, 0) != 0)
		rc = bale_errbuf_set(g->err, BALE_EIO, "cannot index "
		    "'%s': %s", g->tmp, strerror(errno));
	if (rc == BALE_OK && bale_file_publish(g->final, 0) != 0)
		rc = bale_errbuf_set(g->err, BALE_EIO, "cannot rename "
		    "'%s': %s", g->tmp, strerror(errno));
	return rc;
}

static void hdf5_merge_release(struct hdf5_merging *g, int failed)
{
	hssize_t k;
	size_t i;

	bale_hdf5_rows_release(&g->rows);
	if (g->file >= 0)
		H5Fclose(g->file);
	if (failed && g->tmp)
		unlink(g->tmp);
	if (g->type >= 0)
		H5Tclose(g->type);
	for (k = 0; g->classes && k < g->nclasses; k++)
		H5free_memory(g->classes[k]);
	for (i = 0; g->src && i < g->m->nparts; i++)
		free(g->src[i].path);
	free(g->classes);
	free(g->src);
	free(g->layout);
	free(g->final);
	free(g->tmp);
}

int bale_hdf5_merge(const struct bale_merge *m, struct bale_errbuf *err)
{
	struct hdf5_merging g;
	size_t i;
	int rc;

	memset(&g, 0, sizeof(g));
	g.m = m;
	g.err = err;
	rc = hdf5_merge_open(&g);
	for (i = 0; rc == BALE_OK && i < m->nparts; i++)
		rc = hdf5_merge_part(&g, i);
	if (rc == BALE_OK)
		rc = hdf5_merge_finish(&g);
	hdf5_merge_release(&g, rc != BALE_OK);
	return rc;
}
