/* hdf5_update.c - bale pack --update on an HDF5 output.
 *
 * No file is changed in place. NAME.h5 is rewritten, small: its rows
 * (labels, crc32, keys, paths, offsets) anew, and an "images" that is a
 * virtual dataset over files whose images never change, in the folder
 * NAME-images/ (a folder, so that nothing looking for outputs takes them
 * for some): NAME.h5 as it was packed, kept as vK.h5 (a hard link; K its
 * version), and each update's new samples, the delta's file moved in as
 * vN.h5. A sample that leaves is simply not mapped; the kept ones are
 * mapped in runs. The new NAME.h5 is written beside the old one and
 * renamed over it, so a reader that has the old one open reads on; the
 * files the version before maps from stay until the next update, older
 * ones (that neither maps) go then.
 */
#include "hdf5_write.h"

#include "hdf5_common.h"
#include "hdf5_index.h"
#include "hdf5_parts.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDF5_UPD_ROWS 65536	/* rows kept in memory before writing */

/* A run of the current images and the file it lives in. */
struct hdf5_extent {
	char *file;		/* named from the output's folder */
	hsize_t src_dims[BALE_HDF5_MAX_RANK];
	uint64_t vstart, src_start, count;
};

struct hdf5_updating {
	const struct bale_update *u;
	struct bale_errbuf *err;
	char *final, *tmp;
	char *linked;		/* NAME-vK.h5 made here, or NULL */
	char *moved;		/* the delta's file moved in, or NULL */
	hid_t cur, out;
	char *layout;
	int encoded;
	hid_t type;
	int rank;
	hsize_t dims[BALE_HDF5_MAX_RANK];
	uint64_t nrows;		/* the current file's rows */
	uint64_t end;		/* its images' rows (bytes, encoded) */
	struct hdf5_extent *ext;
	size_t next;
	struct bale_hdf5_map *maps;	/* the new images' */
	size_t nmaps, capmaps;
	uint64_t vrows;		/* rows (bytes, encoded) mapped so far */
	struct bale_hdf5_rows w;
	uint64_t count;		/* rows written */
};

static int hdf5_upd_fail(struct hdf5_updating *g, const char *what,
    const char *where)
{
	char why[BALE_HDF5_WHY_MAX];

	bale_hdf5_why(why);
	return bale_errbuf_set(g->err, BALE_EBACKEND, "%s '%s': %s",
	    what, where, why);
}

static int hdf5_upd_nomem(struct hdf5_updating *g)
{
	return bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
}

/* The current file's layout, images and rows, as the manifest says. */
static int hdf5_upd_read_current(struct hdf5_updating *g)
{
	const struct bale_update *u = g->u;
	int64_t n;
	struct bale_hdf5_rowset last;
	hid_t d, space;
	char key[64];
	int rc;

	g->cur = H5Fopen(g->final, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (g->cur < 0)
		return hdf5_upd_fail(g, "cannot open", g->final);
	g->layout = bale_hdf5_attr_str(g->cur, "layout");
	n = bale_hdf5_attr_count(g->cur);
	if (!g->layout || n < 0)
		return bale_errbuf_set(g->err, BALE_EINVAL, "'%s' is not "
		    "a bale HDF5 file", g->final);
	g->encoded = strcmp(g->layout, "encoded") == 0;
	g->nrows = (uint64_t)n;
	/* the last row: its key, and where the images end */
	rc = bale_hdf5_rowset_read_range(&last, g->cur, g->nrows, n ?
	    g->nrows - 1 : 0, n ? 1 : 0, g->encoded);
	if (rc != BALE_OK) {
		bale_hdf5_rowset_free(&last);
		return hdf5_upd_fail(g, "cannot read the rows of", g->final);
	}
	g->end = g->encoded ? last.offsets[last.n] : 0;
	if (g->nrows != u->count_before || (n && (bale_hdf5_rowset_key(
	    &last, 0, key, sizeof(key)) != 0 ||
	    strtoull(key, NULL, 10) != bale_update_key_before(u,
	    g->nrows - 1))))
		rc = bale_errbuf_cut_short(g->err, "hdf5", g->final,
		    g->nrows, u->count_before);
	bale_hdf5_rowset_free(&last);
	if (rc != BALE_OK)
		return rc;
	d = H5Dopen2(g->cur, "images", H5P_DEFAULT);
	space = d >= 0 ? H5Dget_space(d) : -1;
	g->type = d >= 0 ? H5Dget_type(d) : -1;
	g->rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
	rc = g->type >= 0 && g->rank >= 1 && g->rank <= BALE_HDF5_MAX_RANK &&
	    H5Sget_simple_extent_dims(space, g->dims, NULL) == g->rank ?
	    BALE_OK : hdf5_upd_fail(g, "no images in", g->final);
	H5Sclose(space);
	H5Dclose(d);
	return rc;
}

/* Mapping @k of the current virtual images, as an extent. */
static int hdf5_upd_extent_of(struct hdf5_updating *g, hid_t dcpl, size_t k)
{
	struct hdf5_extent *e = &g->ext[g->next];
	hsize_t lo[BALE_HDF5_MAX_RANK], hi[BALE_HDF5_MAX_RANK];
	hid_t vs = H5Pget_virtual_vspace(dcpl, k);
	hid_t ss = H5Pget_virtual_srcspace(dcpl, k);
	ssize_t len = H5Pget_virtual_filename(dcpl, k, NULL, 0);
	int ok = vs >= 0 && ss >= 0 && len > 0 &&
	    H5Sget_simple_extent_ndims(ss) == g->rank &&
	    H5Sget_simple_extent_dims(ss, e->src_dims, NULL) == g->rank &&
	    H5Sget_select_bounds(vs, lo, hi) >= 0;

	e->vstart = lo[0];
	e->count = hi[0] - lo[0] + 1;
	ok = ok && H5Sget_select_bounds(ss, lo, hi) >= 0;
	e->src_start = lo[0];
	e->file = ok ? malloc((size_t)len + 1) : NULL;
	ok = e->file && H5Pget_virtual_filename(dcpl, k, e->file,
	    (size_t)len + 1) == len;
	H5Sclose(vs);
	H5Sclose(ss);
	if (e->file)
		g->next++;
	return ok ? BALE_OK : hdf5_upd_fail(g, "cannot read the images of",
	    g->final);
}

/* NAME-images/, where the images of every version live. */
static int hdf5_upd_folder(struct hdf5_updating *g)
{
	char *dir = bale_strfmt("%s/%s-images", g->u->out, g->u->name);
	int rc = !dir ? hdf5_upd_nomem(g) : mkdir(dir, 0777) != 0 &&
	    errno != EEXIST ? bale_errbuf_set(g->err, BALE_EIO,
	    "cannot create '%s': %s", dir, strerror(errno)) : BALE_OK;

	free(dir);
	return rc;
}

/* Kept under its own name, the current file's images stay readable
 * after NAME.h5 is replaced. */
static int hdf5_upd_keep_plain(struct hdf5_updating *g)
{
	const struct bale_update *u = g->u;
	struct hdf5_extent *e = &g->ext[0];

	e->file = bale_strfmt("%s-images/v%" PRIu64 ".h5", u->name,
	    u->version - 1);
	g->linked = bale_strfmt("%s/%s", u->out, e->file ? e->file : "");
	if (!e->file || !g->linked)
		return hdf5_upd_nomem(g);
	if (hdf5_upd_folder(g) != BALE_OK)
		return g->err->rc;
	g->next = 1;
	memcpy(e->src_dims, g->dims, sizeof(g->dims));
	e->count = g->encoded ? g->end : g->dims[0];
	unlink(g->linked);	/* a name an abandoned output left */
	if (link(g->final, g->linked) != 0) {
		free(g->linked);
		g->linked = NULL;
		return bale_errbuf_set(g->err, BALE_EIO, "cannot link "
		    "'%s' to '%s/%s': %s", g->final, u->out, e->file,
		    strerror(errno));
	}
	return BALE_OK;
}

/* Where the current images live: its mappings, or the file itself. */
static int hdf5_upd_extents(struct hdf5_updating *g)
{
	hid_t d = H5Dopen2(g->cur, "images", H5P_DEFAULT);
	hid_t dcpl = d >= 0 ? H5Dget_create_plist(d) : -1;
	size_t n = 0, k;
	int rc = BALE_OK;

	if (dcpl >= 0 && H5Pget_layout(dcpl) == H5D_VIRTUAL &&
	    H5Pget_virtual_count(dcpl, &n) < 0)
		rc = hdf5_upd_fail(g, "cannot read the images of", g->final);
	g->ext = calloc(n + 2, sizeof(*g->ext));	/* + the delta's */
	if (rc == BALE_OK && !g->ext)
		rc = hdf5_upd_nomem(g);
	for (k = 0; rc == BALE_OK && k < n; k++)
		rc = hdf5_upd_extent_of(g, dcpl, k);
	if (rc == BALE_OK && n == 0)
		rc = hdf5_upd_keep_plain(g);
	H5Pclose(dcpl);
	H5Dclose(d);
	return rc;
}

/* Map [src, + len) of @file (extent dims @dims) next, as one run with the
 * mapping before when it continues it. */
static int hdf5_upd_map(struct hdf5_updating *g, const char *file,
    const hsize_t *dims, uint64_t src, uint64_t len)
{
	struct bale_hdf5_map *m = g->nmaps ? &g->maps[g->nmaps - 1] : NULL;
	void *grown;

	if (len == 0)
		return BALE_OK;
	if (m && m->file == file && m->src_start + m->count == src) {
		m->count += len;
		g->vrows += len;
		return BALE_OK;
	}
	if (g->nmaps == g->capmaps) {
		g->capmaps = g->capmaps ? 2 * g->capmaps : 64;
		grown = realloc(g->maps, g->capmaps * sizeof(*g->maps));
		if (!grown)
			return hdf5_upd_nomem(g);
		g->maps = grown;
	}
	m = &g->maps[g->nmaps++];
	m->file = file;
	memcpy(m->src_dims, dims, sizeof(m->src_dims));
	m->src_start = src;
	m->vstart = g->vrows;
	m->count = len;
	g->vrows += len;
	return BALE_OK;
}

/* One row into the new file, its images [@lo, @hi) of the old ones. */
static int hdf5_upd_row(struct hdf5_updating *g,
    const struct bale_hdf5_rowset *s, uint64_t i, const char *key)
{
	int rc = bale_hdf5_rows_add(&g->w, g->count, g->vrows, s->labels[i],
	    s->crcs[i], key, s->paths[i] ? s->paths[i] : "");

	if (rc != 0)
		return rc == -2 ? hdf5_upd_nomem(g) : bale_errbuf_set(g->err,
		    BALE_EINVAL, "key '%s' is not %zu characters", key,
		    g->w.keylen);
	g->count++;
	if (g->count % HDF5_UPD_ROWS == 0 &&
	    bale_hdf5_rows_write(&g->w, g->count) != 0)
		return hdf5_upd_fail(g, "cannot write rows to", g->tmp);
	return BALE_OK;
}

/* The current samples as their rows are read: where the images of
 * the next one are looked for. */
struct hdf5_upd_window {
	struct hdf5_updating *g;
	const struct hdf5_extent *e;
};

/* Row @j of window @s (row @first + @j of the file), if it stays:
 * mapped where it lives (w->e onwards), its row copied. */
static int hdf5_upd_keep_row(struct hdf5_upd_window *w,
    const struct bale_hdf5_rowset *s, uint64_t first, uint64_t j)
{
	struct hdf5_updating *g = w->g;
	const struct hdf5_extent *end = g->ext + g->next;
	uint64_t lo, hi;
	char key[64];

	if (bale_hdf5_rowset_key(s, j, key, sizeof(key)) != 0)
		return hdf5_upd_nomem(g);
	if (bale_update_removes(g->u, strtoull(key, NULL, 10)))
		return BALE_OK;
	lo = g->encoded ? s->offsets[j] : first + j;
	hi = g->encoded ? s->offsets[j + 1] : first + j + 1;
	while (w->e < end && w->e->vstart + w->e->count <= lo && hi > lo)
		w->e++;
	if (hi > lo && (w->e == end || lo < w->e->vstart ||
	    hi > w->e->vstart + w->e->count))
		return bale_errbuf_set(g->err, BALE_EINVAL, "a sample "
		    "of '%s' spans two of its sources: not a file bale wrote",
		    g->final);
	if (hdf5_upd_map(g, w->e->file, w->e->src_dims, hi > lo ?
	    w->e->src_start + (lo - w->e->vstart) : 0, hi - lo) != BALE_OK)
		return g->err->rc;
	return hdf5_upd_row(g, s, j, key);
}

static int hdf5_upd_keep_window(void *ctx, const struct bale_hdf5_rowset *s,
    uint64_t first)
{
	uint64_t j;
	int rc = BALE_OK;

	for (j = 0; rc == BALE_OK && j < s->n; j++)
		rc = hdf5_upd_keep_row(ctx, s, first, j);
	return rc;
}

/* The current samples that stay, a window of rows at a time. */
static int hdf5_upd_keep(struct hdf5_updating *g)
{
	struct hdf5_upd_window w = { g, g->ext };
	int read_failed;
	int rc = bale_hdf5_rowset_each(g->cur, g->nrows, g->encoded,
	    hdf5_upd_keep_window, &w, &read_failed);

	return read_failed ? hdf5_upd_fail(g, "cannot read the rows of",
	    g->final) : rc;
}

/* The delta's file, moved in as NAME-vN.h5: its images mapped whole,
 * its rows after the kept ones. */
static int hdf5_upd_delta(struct hdf5_updating *g)
{
	const struct bale_update *u = g->u;
	char *from = bale_strfmt("%s/%s.h5", u->delta, u->name);
	char *name = bale_strfmt("%s-images/v%" PRIu64 ".h5", u->name,
	    u->version);
	struct bale_hdf5_rowset s = { 0 };
	hsize_t dims[BALE_HDF5_MAX_RANK] = { 0 };
	hid_t f = from ? H5Fopen(from, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
	hid_t d = f >= 0 ? H5Dopen2(f, "images", H5P_DEFAULT) : -1;
	hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
	int64_t n = f >= 0 ? bale_hdf5_attr_count(f) : -1;
	uint64_t i;
	char key[64];
	int rc;

	g->moved = bale_strfmt("%s/%s", u->out, name ? name : "");
	rc = !from || !name || !g->moved ? hdf5_upd_nomem(g) :
	    hdf5_upd_folder(g) != BALE_OK ? g->err->rc : n < 0 ||
	    sp < 0 || H5Sget_simple_extent_ndims(sp) != g->rank ||
	    H5Sget_simple_extent_dims(sp, dims, NULL) != g->rank ?
	    hdf5_upd_fail(g, "cannot read", from) :
	    bale_hdf5_rowset_read(&s, f, (uint64_t)n, g->encoded);
	if (rc == BALE_OK && rename(from, g->moved) != 0)
		rc = bale_errbuf_set(g->err, BALE_EIO, "cannot move "
		    "'%s' in: %s", from, strerror(errno));
	for (i = 0; rc == BALE_OK && i < (uint64_t)n; i++) {
		rc = bale_hdf5_rowset_key(&s, i, key, sizeof(key)) ?
		    hdf5_upd_nomem(g) : hdf5_upd_map(g, name, dims, g->encoded ?
		    s.offsets[i] : i, g->encoded ? s.offsets[i + 1] -
		    s.offsets[i] : 1);
		if (rc == BALE_OK)
			rc = hdf5_upd_row(g, &s, i, key);
	}
	bale_hdf5_rowset_free(&s);
	H5Sclose(sp);
	H5Dclose(d);
	H5Fclose(f);
	free(from);
	if (rc != BALE_OK)
		free(name);
	else	/* the maps point at it */
		g->ext[g->next++].file = name;
	return rc;
}

/* The new NAME.h5 beside the old one: rows and attributes, and the
 * virtual images once every mapping is known. */
static int hdf5_upd_create(struct hdf5_updating *g)
{
	g->final = bale_strfmt("%s/%s.h5", g->u->out, g->u->name);
	g->tmp = bale_strfmt("%s/%s.h5" BALE_PARTIAL, g->u->out, g->u->name);
	if (!g->final || !g->tmp)
		return hdf5_upd_nomem(g);
	g->out = bale_hdf5_file_create(g->tmp);
	return g->out < 0 ? hdf5_upd_fail(g, "cannot create", g->tmp) :
	    BALE_OK;
}

static int hdf5_upd_finish(struct hdf5_updating *g)
{
	hsize_t dims[BALE_HDF5_MAX_RANK];
	hid_t d;
	int rc = BALE_OK;

	memcpy(dims, g->dims, sizeof(dims));
	dims[0] = g->vrows;
	d = bale_hdf5_vds_create(g->out, g->type, g->rank, dims, g->maps,
	    g->nmaps);
	if (d < 0 || bale_hdf5_rows_write(&g->w, g->count) != 0 ||
	    bale_hdf5_write_attrs(g->out, g->layout, (int64_t)g->count,
	    (char *const *)g->u->classes, g->u->nclasses) != 0)
		rc = hdf5_upd_fail(g, "cannot write", g->tmp);
	H5Dclose(d);
	bale_hdf5_rows_release(&g->w);
	if (H5Fclose(g->out) < 0 && rc == BALE_OK)
		rc = hdf5_upd_fail(g, "cannot close", g->tmp);
	g->out = -1;
	if (rc == BALE_OK && bale_hdf5_index_write(g->tmp, g->final, 0) != 0)
		rc = bale_errbuf_set(g->err, BALE_EIO, "cannot index "
		    "'%s': %s", g->tmp, strerror(errno));
	if (rc == BALE_OK && rename(g->tmp, g->final) != 0)
		rc = bale_errbuf_set(g->err, BALE_EIO, "cannot rename "
		    "'%s': %s", g->tmp, strerror(errno));
	return rc;
}

/* 1 if @file (in the output's folder) is one of the @n extents'. */
static int hdf5_upd_in_use(const struct hdf5_extent *e, size_t n,
    const char *file)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(e[i].file, file) == 0)
			return 1;
	return 0;
}

/* Files of NAME-images/ neither the version before nor this one maps
 * from: no reader can be in them any more. */
static void hdf5_upd_collect(struct hdf5_updating *g)
{
	char *dir = bale_strfmt("%s/%s-images", g->u->out, g->u->name);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	char *rel, *path, *end;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] != 'v')
			continue;
		strtoull(de->d_name + 1, &end, 10);
		if (end == de->d_name + 1 || strcmp(end, ".h5") != 0)
			continue;
		rel = bale_strfmt("%s-images/%s", g->u->name, de->d_name);
		path = bale_strfmt("%s/%s", dir, de->d_name);
		if (rel && path && !hdf5_upd_in_use(g->ext, g->next, rel))
			unlink(path);
		free(rel);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
}

static void hdf5_upd_release(struct hdf5_updating *g, int failed)
{
	size_t i;

	if (failed && g->out >= 0)
		H5Fclose(g->out);
	bale_hdf5_rows_release(&g->w);
	if (failed && g->tmp)
		unlink(g->tmp);
	if (failed && g->moved)
		unlink(g->moved);
	if (failed && g->linked)
		unlink(g->linked);
	if (g->cur >= 0)
		H5Fclose(g->cur);
	if (g->type >= 0)
		H5Tclose(g->type);
	for (i = 0; g->ext && i < g->next; i++)
		free(g->ext[i].file);
	H5free_memory(g->layout);
	free(g->ext);
	free(g->maps);
	free(g->linked);
	free(g->moved);
	free(g->final);
	free(g->tmp);
}

int bale_hdf5_update(const struct bale_update *u, struct bale_errbuf *err)
{
	struct hdf5_updating g;
	int rc;

	memset(&g, 0, sizeof(g));
	g.u = u;
	g.err = err;
	g.cur = g.out = g.type = -1;
	H5dont_atexit();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	rc = hdf5_upd_create(&g);
	if (rc == BALE_OK)
		rc = hdf5_upd_read_current(&g);
	if (rc == BALE_OK)
		rc = hdf5_upd_extents(&g);
	if (rc == BALE_OK && bale_hdf5_rows_create(&g.w, g.out,
	    g.encoded) != 0)
		rc = hdf5_upd_fail(&g, "cannot create", g.tmp);
	if (rc == BALE_OK)
		rc = hdf5_upd_keep(&g);
	if (rc == BALE_OK && u->delta)
		rc = hdf5_upd_delta(&g);
	if (rc == BALE_OK)
		rc = hdf5_upd_finish(&g);
	if (rc == BALE_OK)
		hdf5_upd_collect(&g);
	hdf5_upd_release(&g, rc != BALE_OK);
	return rc;
}
