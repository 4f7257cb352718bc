/* hdf5_images.c - where a bale HDF5 file's images are.
 *
 * The "encoded" layout is read with plain preads: the file address of
 * every chunk is looked up once, at open. A merged file (bale merge)
 * holds no images itself: its "images" is a virtual dataset over the
 * parts' files. HDF5 reads a source it cannot find as zeros, without an
 * error, so every source is found and checked here at open, and a
 * missing or shortened part is named. The encoded bytes are then read
 * from the parts' files directly, one segment per mapping (an updated
 * file maps runs of samples from inside its sources), each source file
 * opened once.
 */
#include "hdf5_read.h"

#include "hdf5_btree.h"
#include "hdf5_common.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int hdf5_images_fail(struct bale_reader *r, const char *what,
    const char *path)
{
	char why[BALE_HDF5_WHY_MAX];

	bale_hdf5_why(why);
	return bale_reader_seterr(r, BALE_EBACKEND, "%s '%s': %s", what,
	    path, why);
}

/* Encoded images: one dimension of bytes, chunked and unfiltered (get()
 * reads the chunks' bytes from the file itself), the chunk size into
 * *@chunk. @return 0, -1 when not, 1 when it holds fewer than @len */
static int hdf5_encoded_check(hid_t images, uint64_t len, hsize_t *chunk)
{
	hid_t type = H5Dget_type(images);
	hid_t space = H5Dget_space(images);
	hid_t dcpl = H5Dget_create_plist(images);
	hsize_t extent = 0;
	int ok = type >= 0 && H5Tget_class(type) == H5T_INTEGER &&
	    H5Tget_size(type) == 1 && space >= 0 &&
	    H5Sget_simple_extent_ndims(space) == 1 &&
	    H5Sget_simple_extent_dims(space, &extent, NULL) == 1 &&
	    dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED &&
	    H5Pget_chunk(dcpl, 1, chunk) == 1 && *chunk > 0 &&
	    H5Pget_nfilters(dcpl) == 0;

	H5Pclose(dcpl);
	H5Sclose(space);
	H5Tclose(type);
	return !ok ? -1 : extent < len ? 1 : 0;
}

/* Segment @g's chunk addresses, each asked of HDF5 (when the tree
 * cannot be read: hdf5_btree.c). */
static int hdf5_seg_lookup(struct hdf5_seg *g, hid_t images)
{
	hsize_t off, bytes;
	unsigned mask;
	uint64_t c;

	for (c = 0; c < g->nchunks; c++) {
		off = (g->first_chunk + c) * g->chunk;
		if (H5Dget_chunk_info_by_coord(images, &off, &mask,
		    &g->addr[c], &bytes) < 0 || mask != 0)
			return -1;
	}
	return 0;
}

/* Segment @g: bytes [g->src_start, + g->len) of @images, in the file
 * @path, open as @sf. */
static int hdf5_seg_locate(struct bale_reader *r, struct hdf5_seg *g,
    hid_t images, const char *path, struct bale_sfile *sf)
{
	uint64_t c, end = g->src_start + g->len, size = bale_sfile_size(sf);
	int ok;
	int bad = hdf5_encoded_check(images, end, &g->chunk);
	const char *q = g->sf ? "'" : "";	/* a source's: named */
	const char *part = g->sf ? path : "";
	const char *in = g->sf ? " in part " : "";

	if (bad < 0)
		return bale_reader_seterr(r, BALE_EBACKEND,
		    "images%s%s%s%s is not one chunked, unfiltered dimension "
		    "of bytes (layout encoded)", in, q, part, q);
	if (bad)
		return bale_reader_seterr(r, BALE_EBACKEND, "offsets end "
		    "at byte %" PRIu64 ", past the end of images%s%s%s%s",
		    g->start + g->len, in, q, part, q);
	g->first_chunk = g->src_start / g->chunk;
	g->nchunks = g->len ? (end - 1) / g->chunk + 1 - g->first_chunk : 0;
	g->addr = calloc(g->nchunks + 1, sizeof(haddr_t));
	if (!g->addr)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	ok = bale_hdf5_chunk_addrs(images, sf, g->chunk, g->first_chunk,
	    g->nchunks, g->addr) == 0 || hdf5_seg_lookup(g, images) == 0;
	for (c = 0; ok && c < g->nchunks; c++)
		ok = g->addr[c] != HADDR_UNDEF &&
		    g->addr[c] + g->chunk <= size;
	return ok ? BALE_OK : hdf5_images_fail(r, "cannot locate the image "
	    "chunks of", path);
}

/* The path of source @name of the merged file at @path: as HDF5 finds
 * it, relative to the merged file's folder. */
static char *hdf5_source_path(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');

	if (name[0] == '/')
		return strdup(name);
	if (strcmp(name, ".") == 0)
		return strdup(path);
	if (!slash)
		return strdup(name);
	return bale_strfmt("%.*s/%s", (int)(slash - path), path, name);
}

/* Mapping @k's source file and dataset names, and the first dimension's
 * bounds of its selections in the virtual and in the source dataset. */
struct hdf5_mapping {
	char file[4096];
	char dset[256];
	hsize_t vstart, vend, sstart, send;
};

static int hdf5_mapping_get(hid_t dcpl, size_t k, struct hdf5_mapping *mp)
{
	hsize_t lo[32], hi[32];
	hid_t vs = H5Pget_virtual_vspace(dcpl, k);
	hid_t ss = H5Pget_virtual_srcspace(dcpl, k);
	int ok = vs >= 0 && ss >= 0 && H5Sget_simple_extent_ndims(vs) <= 32 &&
	    H5Sget_simple_extent_ndims(ss) <= 32 &&
	    H5Sget_select_bounds(vs, lo, hi) >= 0;
	ssize_t fn = H5Pget_virtual_filename(dcpl, k, mp->file,
	    sizeof(mp->file));
	ssize_t dn = H5Pget_virtual_dsetname(dcpl, k, mp->dset,
	    sizeof(mp->dset));

	mp->vstart = lo[0];
	mp->vend = hi[0] + 1;
	ok = ok && H5Sget_select_bounds(ss, lo, hi) >= 0;
	mp->sstart = lo[0];
	mp->send = hi[0] + 1;
	H5Sclose(vs);
	H5Sclose(ss);
	return ok && fn > 0 && (size_t)fn < sizeof(mp->file) && dn > 0 &&
	    (size_t)dn < sizeof(mp->dset) ? 0 : -1;
}

/* Source @path, opened once: there, and its images' extent known. */
static int hdf5_src_open(struct bale_reader *r, struct hdf5_r *st,
    const char *path, const char *dset, struct hdf5_src **out)
{
	struct hdf5_src *s;
	struct bale_errbuf err;
	hsize_t dims[32];
	hid_t space;
	size_t i;

	for (i = 0; i < st->nparts; i++)
		if (strcmp(st->srcs[i].path, path) == 0) {
			*out = &st->srcs[i];
			return BALE_OK;
		}
	s = &st->srcs[st->nparts];
	s->sf = NULL;
	s->file = s->dset = -1;
	if (!(s->path = strdup(path)))
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	st->files[++st->nparts] = s->path;
	if (bale_sfile_open(&s->sf, path, &err) != BALE_OK)
		return bale_reader_seterr(r, BALE_EIO, "part '%s' of "
		    "this merged file is missing (%s): was it moved or "
		    "deleted? Its images would read as zeros", path,
		    err.msg);
	s->size = bale_sfile_size(s->sf);
	s->file = bale_hdf5_open_read(path, s->size);
	if (s->file < 0)
		return hdf5_images_fail(r, "cannot open part", path);
	s->dset = H5Dopen2(s->file, dset, H5P_DEFAULT);
	space = s->dset >= 0 ? H5Dget_space(s->dset) : -1;
	if (space >= 0 && H5Sget_simple_extent_ndims(space) <= 32 &&
	    H5Sget_simple_extent_dims(space, dims, NULL) >= 1)
		s->extent = dims[0];
	H5Sclose(space);
	*out = s;
	return BALE_OK;
}

/* Mapping @mp's source holds what it maps; for the encoded layout the
 * mapping becomes segment @g, else it is only checked (HDF5 reads it
 * through the virtual dataset). */
static int hdf5_source_check(struct bale_reader *r, struct hdf5_r *st,
    const struct hdf5_mapping *mp, const char *src, struct hdf5_seg *g)
{
	struct hdf5_src *s = NULL;
	int rc = hdf5_src_open(r, st, src, mp->dset, &s);

	if (rc != BALE_OK)
		return rc;
	if (s->extent < mp->send)
		return bale_reader_seterr(r, BALE_EBACKEND, "part '%s' "
		    "holds fewer images than this merged file maps from it: "
		    "was it replaced?", src);
	if (!g)
		return BALE_OK;
	g->start = mp->vstart;
	g->len = mp->vend - mp->vstart;
	g->src_start = mp->sstart;
	g->sf = s->sf;
	return hdf5_seg_locate(r, g, s->dset, src, s->sf);
}

/* The sources' HDF5 handles, once every mapping is checked. */
static void hdf5_srcs_close(struct hdf5_r *st)
{
	size_t i;

	for (i = 0; i < st->nparts; i++) {
		if (st->srcs[i].dset >= 0)
			H5Dclose(st->srcs[i].dset);
		if (st->srcs[i].file >= 0)
			H5Fclose(st->srcs[i].file);
		st->srcs[i].dset = st->srcs[i].file = -1;
	}
}

/* Each mapping of the virtual images, in order; for the encoded layout
 * their segments must tile the bytes. */
static int hdf5_sources(struct bale_reader *r, struct hdf5_r *st,
    hid_t dcpl, int encoded)
{
	struct hdf5_mapping mp;
	size_t n = 0, k;
	uint64_t next = 0;
	char *src;
	int rc = BALE_OK;

	if (H5Pget_virtual_count(dcpl, &n) < 0)
		return hdf5_images_fail(r, "cannot read the parts of",
		    st->files[0]);
	st->files = realloc(st->files, (n + 2) * sizeof(char *));
	st->segs = calloc(n + 1, sizeof(*st->segs));
	st->srcs = calloc(n + 1, sizeof(*st->srcs));
	if (!st->files || !st->segs || !st->srcs)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	memset(st->files + 1, 0, (n + 1) * sizeof(char *));
	for (k = 0; rc == BALE_OK && k < n; k++) {
		if (hdf5_mapping_get(dcpl, k, &mp) != 0)
			return hdf5_images_fail(r, "cannot read the parts of",
			    st->files[0]);
		src = hdf5_source_path(st->files[0], mp.file);
		if (!src)
			return bale_reader_seterr(r, BALE_ENOMEM, "no "
			    "memory");
		st->nsegs = encoded ? k + 1 : 0;
		rc = hdf5_source_check(r, st, &mp, src, encoded ?
		    &st->segs[k] : NULL);
		free(src);
		if (rc == BALE_OK && encoded && mp.vstart != next)
			rc = bale_reader_seterr(r, BALE_EBACKEND, "the "
			    "parts of '%s' are out of order: not a merge bale "
			    "wrote", st->files[0]);
		next = mp.vend;
	}
	hdf5_srcs_close(st);
	return rc;
}

int bale_hdf5_images_open(struct bale_reader *r, struct hdf5_r *st)
{
	hid_t dcpl = H5Dget_create_plist(st->images);
	int virtual = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_VIRTUAL;
	int encoded = !st->vlen && !st->pixels;
	uint64_t end = encoded ? st->images_end : 0;
	int rc = BALE_OK;

	if (virtual)
		rc = hdf5_sources(r, st, dcpl, encoded);
	else if (encoded && end > 0) {	/* no bytes: nothing to find */
		st->segs = calloc(1, sizeof(*st->segs));
		if (!st->segs)
			rc = bale_reader_seterr(r, BALE_ENOMEM, "no "
			    "memory");
		else {
			st->nsegs = 1;
			st->segs[0].sf = NULL;	/* st->sf */
			st->segs[0].len = end;
			rc = hdf5_seg_locate(r, &st->segs[0], st->images,
			    st->files[0], st->sf);
		}
	}
	H5Pclose(dcpl);
	if (rc == BALE_OK && encoded && st->nsegs &&
	    st->segs[st->nsegs - 1].start + st->segs[st->nsegs - 1].len < end)
		rc = bale_reader_seterr(r, BALE_EBACKEND, "offsets end "
		    "at byte %" PRIu64 ", past the end of images", end);
	return rc;
}

/* The segment holding byte @pos: the last that starts at or before it. */
static const struct hdf5_seg *hdf5_seg_at(const struct hdf5_r *st,
    uint64_t pos)
{
	size_t lo = 0, hi = st->nsegs, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (st->segs[mid].start <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return &st->segs[lo];
}

/* Bytes [lo, hi) of segment @g into @to: a pread for each run of chunks
 * that lie end to end in its file. */
static int hdf5_seg_read(struct bale_reader *r, const struct hdf5_r *st,
    const struct hdf5_seg *g, unsigned char *to, uint64_t lo, uint64_t hi)
{
	struct bale_sfile *sf = g->sf ? g->sf : st->sf;
	uint64_t pos = g->src_start + lo, end = g->src_start + hi;
	uint64_t c, run_end;
	struct bale_errbuf err;

	while (pos < end) {
		c = pos / g->chunk - g->first_chunk;
		run_end = (g->first_chunk + c + 1) * g->chunk;
		while (run_end < end && c + 1 < g->nchunks &&
		    g->addr[c + 1] == g->addr[c] + g->chunk) {
			c++;
			run_end += g->chunk;
		}
		run_end = run_end < end ? run_end : end;
		if (bale_sfile_pread(sf, to, (size_t)(run_end - pos),
		    g->addr[pos / g->chunk - g->first_chunk] + pos % g->chunk,
		    &err) != BALE_OK)
			return bale_reader_seterr(r, err.rc, "%s", err.msg);
		to += run_end - pos;
		pos = run_end;
	}
	return BALE_OK;
}

int bale_hdf5_images_pread(struct bale_reader *r, const struct hdf5_r *st,
    unsigned char *to, uint64_t lo, uint64_t hi)
{
	const struct hdf5_seg *g;
	uint64_t end;
	int rc = BALE_OK;

	while (rc == BALE_OK && lo < hi) {
		g = hdf5_seg_at(st, lo);
		end = g->start + g->len < hi ? g->start + g->len : hi;
		if (lo < g->start || end <= lo)
			return bale_reader_seterr(r, BALE_EINVAL, "byte %"
			    PRIu64 " of images is in no part", lo);
		rc = hdf5_seg_read(r, st, g, to, lo - g->start,
		    end - g->start);
		to += end - lo;
		lo = end;
	}
	return rc;
}

/* How many of the @n samples (@lo[k], @hi[k]) overlap [@a, @b). */
static unsigned hdf5_overlaps(const uint64_t *lo, const uint64_t *hi,
    uint64_t n, uint64_t a, uint64_t b)
{
	unsigned count = 0;
	uint64_t k;

	for (k = 0; k < n; k++)
		count += lo[k] < b && hi[k] > a;
	return count;
}

int bale_hdf5_images_prefetch(const struct hdf5_r *st, const uint64_t *lo,
    const uint64_t *hi, uint64_t n)
{
	const struct hdf5_seg *g;
	uint64_t a = lo[0], b = hi[n - 1], pos, end, c, piece_end;
	int rc = 0;

	if (!st->nsegs || a >= b)
		return 0;
	g = hdf5_seg_at(st, a);
	if (a < g->start || b > g->start + g->len)
		return 0;	/* across parts: read as it comes */
	/* one GET per run of chunks that lie end to end in the file: the
	 * reads of the samples there take their bytes from it */
	for (pos = a; pos < b && rc >= 0; pos = piece_end) {
		c = (g->src_start + pos - g->start) / g->chunk -
		    g->first_chunk;
		end = c + 1;
		while (end < g->nchunks && g->addr[end] == g->addr[end - 1] +
		    g->chunk && (g->first_chunk + end) * g->chunk <
		    g->src_start + b - g->start)
			end++;
		piece_end = (g->first_chunk + end) * g->chunk - g->src_start +
		    g->start;
		piece_end = piece_end < b ? piece_end : b;
		rc = bale_sfile_prefetch(g->sf ? g->sf : st->sf, g->addr[c] +
		    (g->src_start + pos - g->start) % g->chunk,
		    (size_t)(piece_end - pos),
		    hdf5_overlaps(lo, hi, n, pos, piece_end));
	}
	return rc;
}

void bale_hdf5_images_release(struct hdf5_r *st)
{
	size_t k;

	for (k = 0; st->segs && k < st->nsegs; k++)
		free(st->segs[k].addr);
	if (st->srcs)
		hdf5_srcs_close(st);
	for (k = 0; st->srcs && k < st->nparts; k++) {
		bale_sfile_close(st->srcs[k].sf);
		free(st->srcs[k].path);	/* also files[k + 1] */
	}
	if (st->files)
		free(st->files[0]);
	free(st->files);
	free(st->segs);
	free(st->srcs);
}
