/* hdf5_read.c - random reads of bale's HDF5 outputs (every layout).
 *
 * Every HDF5 call takes one process-wide lock (Debian's HDF5 is not
 * thread-safe). The "encoded" layout needs HDF5 only at open: the file
 * address of every images chunk is looked up once (hdf5_images.c, which
 * also finds a merged file's parts), and get() is then a plain pread of
 * the sample's bytes, lock-free (one pread when its chunks lie end to
 * end, as bale writes them).
 */
#include "hdf5_read.h"

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "hdf5_common.h"
#include "hdf5_index.h"
#include "hdf5_pixels.h"
#include "hdf5_rows.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t hdf5_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t hdf5_fork_once = PTHREAD_ONCE_INIT;

/* A fork() while another thread holds the lock would leave the child's
 * copy locked for ever (a DataLoader forks workers from a parent that may
 * be reading): the lock is held across fork() and released on both
 * sides. */
static void hdf5_fork_prepare(void)
{
	pthread_mutex_lock(&hdf5_lock);
}

static void hdf5_fork_done(void)
{
	pthread_mutex_unlock(&hdf5_lock);
}

static void hdf5_fork_guard(void)
{
	pthread_atfork(hdf5_fork_prepare, hdf5_fork_done, hdf5_fork_done);
}

static int hdf5_rfail(struct bale_reader *r, const char *what)
{
	char why[BALE_HDF5_WHY_MAX];

	bale_hdf5_why(why);
	return bale_reader_seterr(r, BALE_EBACKEND, "%s: %s", what, why);
}

/* Rows [@first, @first + @count) of dataset @name (@n rows) as @type. */
static int hdf5_read_part(struct bale_reader *r, struct hdf5_r *st,
    const char *name, hid_t type, uint64_t n, uint64_t first,
    uint64_t count, void **out, size_t elem)
{
	char what[64];
	int why;

	*out = bale_hdf5_read_rows(st->file, name, type, n, first, count,
	    elem, &why);
	if (why == BALE_EINVAL)
		return bale_reader_seterr(r, BALE_EBACKEND, "dataset "
		    "'%s' is missing or does not hold count (%" PRIu64 ") rows",
		    name, st->n);
	if (why == BALE_ENOMEM)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	snprintf(what, sizeof(what), "cannot read dataset '%s'", name);
	return why == BALE_OK ? BALE_OK : hdf5_rfail(r, what);
}

/* keys: fixed-width strings, narrower than the key buffer. */
static int hdf5_read_keys(struct bale_reader *r, struct hdf5_r *st)
{
	hid_t d = H5Dopen2(st->file, "keys", H5P_DEFAULT);
	hid_t t = d >= 0 ? H5Dget_type(d) : -1;
	hid_t fixed;
	int rc;

	st->keylen = t >= 0 && H5Tget_class(t) == H5T_STRING &&
	    H5Tis_variable_str(t) == 0 ? H5Tget_size(t) : 0;
	H5Tclose(t);
	H5Dclose(d);
	if (st->keylen == 0 || st->keylen >= sizeof(st->key))
		return bale_reader_seterr(r, BALE_EBACKEND, "dataset "
		    "'keys' is missing or not strings of fixed width under "
		    "%zu bytes", sizeof(st->key));
	fixed = bale_hdf5_string_type(st->keylen);
	rc = hdf5_read_part(r, st, "keys", fixed, st->n, st->rows_first,
	    st->rows_n, (void **)&st->keys, st->keylen);
	H5Tclose(fixed);
	return rc;
}

static void hdf5_rows_free(struct hdf5_r *st)
{
	uint64_t i;

	for (i = 0; st->paths && i < st->rows_n; i++)
		H5free_memory(st->paths[i]);
	free(st->paths);
	free(st->offsets);
	free(st->labels);
	free(st->crcs);
	free(st->keys);
	st->paths = NULL;
	st->offsets = NULL;
	st->labels = NULL;
	st->crcs = NULL;
	st->keys = NULL;
	st->rows_n = 0;
}

/* Rows [@first, @first + @count) of the per-sample datasets, all of
 * count rows (offsets: count + 1), in place of those held. */
static int hdf5_read_meta(struct bale_reader *r, struct hdf5_r *st,
    uint64_t first, uint64_t count)
{
	hid_t vstr = bale_hdf5_string_type(H5T_VARIABLE);
	int rc;

	hdf5_rows_free(st);
	st->rows_first = first;
	st->rows_n = count;
	rc = hdf5_read_part(r, st, "labels", H5T_NATIVE_INT64, st->n, first,
	    count, (void **)&st->labels, sizeof(int64_t));
	/* the checksums and paths are the metadata: a reader without it
	 * (training's) does not hold them, a third of the rows' bytes and
	 * most of their memory (a string a sample) */
	if (rc == BALE_OK && !st->no_meta)
		rc = hdf5_read_part(r, st, "crc32", H5T_NATIVE_UINT32, st->n,
		    first, count, (void **)&st->crcs, sizeof(uint32_t));
	if (rc == BALE_OK)
		rc = hdf5_read_keys(r, st);
	if (rc == BALE_OK && !st->no_meta)
		rc = hdf5_read_part(r, st, "paths", vstr, st->n, first, count,
		    (void **)&st->paths, sizeof(char *));
	if (rc == BALE_OK && !st->vlen && !st->pixels)
		rc = hdf5_read_part(r, st, "offsets", H5T_NATIVE_UINT64,
		    st->n + 1, first, count + 1, (void **)&st->offsets,
		    sizeof(uint64_t));
	H5Tclose(vstr);
	if (rc != BALE_OK)
		hdf5_rows_free(st);
	return rc;
}

/* The rows a reader holds at a time while it goes through them in order
 * (ls, verify, extract): its memory stays flat. Reader option
 * row_window sets another. */
#define HDF5_ROWS_WINDOW 65536

/* At open: every row without the metadata (a training reader of a file
 * with no index: any sample, any order), else the first window, and
 * where the encoded bytes end (the last offset). */
static int hdf5_open_rows(struct bale_reader *r, struct hdf5_r *st)
{
	uint64_t *end = NULL;
	int all;
	int rc;

	if (!st->window)
		st->window = HDF5_ROWS_WINDOW;
	all = st->no_meta || st->n <= st->window;
	rc = hdf5_read_meta(r, st, 0, all ? st->n : st->window);
	if (rc != BALE_OK || !st->offsets)
		return rc;
	if (all) {
		st->images_end = st->offsets[st->n];
		return BALE_OK;
	}
	rc = hdf5_read_part(r, st, "offsets", H5T_NATIVE_UINT64, st->n + 1,
	    st->n, 1, (void **)&end, sizeof(uint64_t));
	st->images_end = end ? end[0] : 0;
	free(end);
	return rc;
}

/* Hold row @i: the next window when reads go in order, else every row
 * (a reader going anywhere reads as it did before windows). */
static int hdf5_rows_at(struct bale_reader *r, struct hdf5_r *st, uint64_t i)
{
	uint64_t count;
	int rc;

	if (st->by_index || i - st->rows_first < st->rows_n)
		return BALE_OK;
	pthread_mutex_lock(&hdf5_lock);
	if (i == st->rows_first + st->rows_n) {
		count = st->n - i < st->window ? st->n - i : st->window;
		rc = hdf5_read_meta(r, st, i, count);
	} else {
		rc = hdf5_read_meta(r, st, 0, st->n);
	}
	pthread_mutex_unlock(&hdf5_lock);
	return rc;
}

/* Without the metadata, the index beside the file in place of its rows,
 * when it describes the file as it is: 1 taken, 0 not (check mode
 * keeps it open, to compare each sample with). */
static int hdf5_take_index(struct hdf5_r *st, const char *path)
{
	char *ix = bale_hdf5_index_path(path);
	const struct bale_index_loc *last;
	int rc = ix ? bale_store_index_open(&st->ix, ix, st->n, st->size) :
	    BALE_ENOMEM;

	free(ix);
	st->index_bad = rc == BALE_EINVAL;
	if (rc != BALE_OK || st->check)
		return 0;
	if (!st->no_meta) {
		bale_index_close(&st->ix);	/* the rows are read anyway */
		return 0;
	}
	last = st->n ? &st->ix.locs[st->n - 1] : NULL;
	st->images_end = last ? last->off + last->size : 0;
	st->by_index = 1;
	return 1;
}

/* Check mode: sample @i as the rows give it (@out) against the index,
 * when the file has one. */
static int hdf5_check_index(struct bale_reader *r, const struct hdf5_r *st,
    uint64_t i, const struct bale_blob *out)
{
	const char *key;

	if (st->index_bad)
		return bale_reader_setnote(r, "the .bidx beside '%s' is "
		    "damaged or does not describe it (readers fall back to its "
		    "rows)", st->files[0]);
	if (!st->ix.map)
		return BALE_OK;	/* none: made before the indexes */
	key = bale_index_key(&st->ix, i);
	if (key && strcmp(key, out->key) == 0 &&
	    st->ix.labels[i] == out->label && (st->vlen || st->pixels ||
	    (st->ix.locs[i].off == st->offsets[i - st->rows_first] &&
	    st->ix.locs[i].off + st->ix.locs[i].size ==
	    st->offsets[i - st->rows_first + 1])))
		return BALE_OK;
	return bale_reader_setnote(r, "sample %" PRIu64 " (key '%s'): "
	    "the .bidx beside '%s' disagrees with its rows", i, out->key,
	    st->files[0]);
}

/* Sample @i's bytes in the encoded images: [*@lo, *@hi). */
static void hdf5_span(const struct hdf5_r *st, uint64_t i, uint64_t *lo,
    uint64_t *hi)
{
	if (st->by_index) {
		*lo = st->ix.locs[i].off;
		*hi = *lo + st->ix.locs[i].size;
	} else {	/* row i held: hdf5_rows_at() */
		*lo = st->offsets[i - st->rows_first];
		*hi = st->offsets[i - st->rows_first + 1];
	}
}

/* Attribute "layout": which of bale's layouts the file has. It opens the
 * info() object. */
static int hdf5_read_layout(struct bale_reader *r, struct hdf5_r *st)
{
	hid_t vstr = bale_hdf5_string_type(H5T_VARIABLE);
	hid_t a = H5Aopen(st->file, "layout", H5P_DEFAULT);
	char *layout = NULL;
	int rc = BALE_OK;

	if (a < 0 || H5Aread(a, vstr, &layout) < 0)
		layout = NULL;
	H5Aclose(a);
	H5Tclose(vstr);
	st->vlen = layout && strcmp(layout, "vlen") == 0;
	st->pixels = layout && strcmp(layout, "pixels") == 0;
	if (!layout)
		rc = bale_reader_seterr(r, BALE_EBACKEND, "not a bale "
		    "HDF5 file: no attribute 'layout' (a UTF-8 string)");
	else if (!st->vlen && !st->pixels && strcmp(layout, "encoded") != 0)
		rc = bale_reader_seterr(r, BALE_EBACKEND, "layout "
		    "'%.40s' is none of bale's (encoded, vlen, pixels)",
		    layout);
	bale_buf_puts(&st->info, "{");
	bale_json_kv_str(&st->info, "layout", layout, 1);
	H5free_memory(layout);
	return rc;
}

/* Attribute "count": the samples. Every bale file stores 8 bytes of
 * labels per sample, uncompressed, so a count the file is too small for
 * is refused before anything is allocated for it. */
static int hdf5_read_count(struct bale_reader *r, struct hdf5_r *st)
{
	hid_t a = H5Aopen(st->file, "count", H5P_DEFAULT);
	int64_t count = -1;

	if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &count) < 0)
		count = -1;
	H5Aclose(a);
	if (count < 0)
		return bale_reader_seterr(r, BALE_EBACKEND, "not a bale "
		    "HDF5 file: no attribute 'count' (samples, an integer)");
	st->size = bale_sfile_size(st->sf);
	if ((uint64_t)count > st->size / sizeof(int64_t))
		return bale_reader_seterr(r, BALE_EBACKEND, "count says "
		    "%" PRId64 " samples, more than a file of %" PRIu64
		    " bytes holds", count, st->size);
	st->n = (uint64_t)count;
	return BALE_OK;
}

/* bale_version and class_names, for info(); absent ones are null. */
static void hdf5_read_info(struct hdf5_r *st)
{
	hid_t vstr = bale_hdf5_string_type(H5T_VARIABLE);
	hid_t a = H5Aopen(st->file, "bale_version", H5P_DEFAULT);
	hid_t space;
	hssize_t n = 0;
	char *version = NULL;
	char **names = NULL;
	hssize_t i;

	if (a >= 0 && H5Aread(a, vstr, &version) < 0)
		version = NULL;
	H5Aclose(a);
	bale_json_kv_str(&st->info, "version", version, 0);
	H5free_memory(version);
	a = H5Aopen(st->file, "class_names", H5P_DEFAULT);
	space = a >= 0 ? H5Aget_space(a) : -1;
	n = space >= 0 ? H5Sget_simple_extent_npoints(space) : 0;
	names = n > 0 ? calloc((size_t)n, sizeof(char *)) : NULL;
	if (names && H5Aread(a, vstr, names) < 0)
		n = 0;
	bale_json_key(&st->info, "classes", 0);
	bale_buf_puts(&st->info, "[");
	for (i = 0; names && i < n; i++) {
		bale_buf_puts(&st->info, i ? "," : "");
		bale_json_str(&st->info, names[i]);
		H5free_memory(names[i]);
	}
	bale_buf_puts(&st->info, "]");
	free(names);
	H5Sclose(space);
	H5Aclose(a);
	H5Tclose(vstr);
}

/* Vlen images: count rows of variable-length bytes. */
static int hdf5_check_vlen(struct bale_reader *r, struct hdf5_r *st)
{
	hid_t type = H5Dget_type(st->images);
	hid_t space = H5Dget_space(st->images);
	hssize_t rows = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
	int ok = type >= 0 && H5Tget_class(type) == H5T_VLEN && rows >= 0 &&
	    (uint64_t)rows == st->n;

	H5Sclose(space);
	H5Tclose(type);
	return ok ? BALE_OK : bale_reader_seterr(r, BALE_EBACKEND,
	    "images is not count rows of variable-length bytes (layout "
	    "vlen)");
}

/* The bytes of one sample of the pixels layout: H x W x 3. */
static size_t hdf5_row_bytes(const struct hdf5_r *st)
{
	return (size_t)st->pixels_w * (size_t)st->pixels_h * 3;
}

static int hdf5_check_pixels(struct bale_reader *r, struct hdf5_r *st)
{
	uint64_t n;

	if (bale_hdf5_pixels_shape(st->images, &n, &st->pixels_h,
	    &st->pixels_w) != 0 || n != st->n)
		return bale_reader_seterr(r, BALE_EBACKEND, "images is "
		    "not count x H x W x 3 bytes (layout pixels)");
	if (bale_grow(&st->buf, &st->bufcap, hdf5_row_bytes(st)) != 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	return BALE_OK;
}

static int hdf5_rget_pixels(struct bale_reader *r, struct hdf5_r *st,
    uint64_t i, struct bale_blob *out)
{
	size_t size = hdf5_row_bytes(st);
	unsigned char *to = bale_reader_data_buffer(r, st->buf, size);
	int rc = BALE_OK;

	if (!to)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	pthread_mutex_lock(&hdf5_lock);
	if (bale_hdf5_pixels_get(st->images, i, to) != 0)
		/* hdf5_rfail() reads HDF5's error stack */
		rc = hdf5_rfail(r, "cannot read images");
	pthread_mutex_unlock(&hdf5_lock);
	out->data = to;
	out->size = size;
	return rc;
}

/* The end of file address the superblock at byte 0 records (versions
 * 0 to 3), or 0 when it cannot be read. */
static uint64_t hdf5_superblock_eof(struct bale_sfile *sf)
{
	unsigned char sb[64];
	struct bale_errbuf err;
	unsigned off_size;
	size_t at;
	uint64_t eof = 0;
	unsigned i;

	if (bale_sfile_pread(sf, sb, sizeof(sb), 0, &err) != BALE_OK ||
	    memcmp(sb, "\211HDF\r\n\032\n", 8) != 0 || sb[8] > 3)
		return 0;
	off_size = sb[8] < 2 ? sb[13] : sb[9];
	if (off_size != 4 && off_size != 8)
		return 0;
	/* v0: 24 bytes, v1: 28, v2 and v3: 12; then base, extension (or
	 * free space) and end of file addresses */
	at = (sb[8] == 0 ? 24 : sb[8] == 1 ? 28 : 12) + 2 * off_size;
	for (i = off_size; i-- > 0;)
		eof = eof << 8 | sb[at + i];
	return eof;
}

/* HDF5 cannot open the file: cut short, when its superblock says it
 * ends further than it does (said so, as the LMDB reader does); else
 * HDF5's own reason. */
static int hdf5_open_failed(struct bale_reader *r, const struct hdf5_r *st,
    const char *path)
{
	uint64_t eof = hdf5_superblock_eof(st->sf);

	if (eof && bale_sfile_size(st->sf) < eof)
		return bale_reader_seterr(r, BALE_EBACKEND, "'%s' is cut "
		    "short: %" PRIu64 " bytes, its superblock says %" PRIu64,
		    path, bale_sfile_size(st->sf), eof);
	return hdf5_rfail(r, path);
}

static int hdf5_ropen_locked(struct bale_reader *r, struct hdf5_r *st,
    const char *path)
{
	int rc;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	st->file = bale_hdf5_open_read(path, bale_sfile_size(st->sf));
	if (st->file < 0)
		return hdf5_open_failed(r, st, path);
	st->images = H5Dopen2(st->file, "images", H5P_DEFAULT);
	if (st->images < 0)
		return bale_reader_seterr(r, BALE_EBACKEND, "not a bale "
		    "HDF5 file: no dataset 'images'");
	rc = hdf5_read_layout(r, st);
	if (rc == BALE_OK)
		rc = hdf5_read_count(r, st);
	if (rc == BALE_OK)
		hdf5_read_info(st);
	if (rc == BALE_OK && !hdf5_take_index(st, path))
		rc = hdf5_open_rows(r, st);
	if (rc == BALE_OK && st->pixels)
		rc = hdf5_check_pixels(r, st);
	else if (rc == BALE_OK && st->vlen)
		rc = hdf5_check_vlen(r, st);
	if (rc == BALE_OK)
		rc = bale_hdf5_images_open(r, st);
	if (rc == BALE_OK && st->nparts)
		bale_buf_printf(&st->info, ",\"parts\":%zu", st->nparts);
	if (rc == BALE_OK && st->pixels)	/* what a row's bytes are */
		bale_buf_printf(&st->info, ",\"shape\":[%d,%d,3]",
		    st->pixels_h, st->pixels_w);
	bale_buf_puts(&st->info, "}");
	return rc;
}

static int hdf5_ropen(struct bale_reader *r, void *priv, const char *path)
{
	struct hdf5_r *st = priv;
	struct bale_errbuf err;
	int rc;

	st->file = st->images = -1;
	st->files = calloc(2, sizeof(char *));
	if (st->files)
		st->files[0] = strdup(path);
	if (!st->files || !st->files[0])
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	rc = bale_sfile_open(&st->sf, path, &err);
	if (rc != BALE_OK)
		return bale_reader_seterr(r, rc, "%s", err.msg);
	pthread_once(&hdf5_fork_once, hdf5_fork_guard);
	pthread_mutex_lock(&hdf5_lock);
	rc = hdf5_ropen_locked(r, st, path);
	pthread_mutex_unlock(&hdf5_lock);
	bale_reader_describe(r, (const char *const *)st->files,
	    st->info.failed ? NULL : st->info.data);
	return rc;
}

static int hdf5_rcount(struct bale_reader *r, void *priv, uint64_t *n)
{
	(void)r;
	*n = ((struct hdf5_r *)priv)->n;
	return BALE_OK;
}

static int hdf5_rget_vlen(struct bale_reader *r, struct hdf5_r *st,
    uint64_t i, struct bale_blob *out)
{
	size_t len;

	if (bale_hdf5_read_vlen(st->images, i, &st->buf, &st->bufcap,
	    &len) != 0)
		return hdf5_rfail(r, "cannot read images");
	out->size = len;
	out->data = st->buf;
	return BALE_OK;
}

/* Sample @i's data size, known up front except in the variable-length
 * layout, whose lengths HDF5 keeps (BALE_ENOTSUP); its offsets checked
 * against their neighbours and the end. */
static int hdf5_sample_size(struct bale_reader *r, struct hdf5_r *st,
    uint64_t i, size_t *size)
{
	uint64_t lo, hi;
	int rc;

	if (st->vlen)
		return BALE_ENOTSUP;
	if (st->pixels) {
		*size = hdf5_row_bytes(st);
		return BALE_OK;
	}
	rc = hdf5_rows_at(r, st, i);
	if (rc != BALE_OK)
		return rc;
	hdf5_span(st, i, &lo, &hi);
	if (lo > hi || hi > st->images_end)
		return bale_reader_seterr(r, BALE_EINVAL, "bad offsets "
		    "at sample %" PRIu64, i);
	*size = (size_t)(hi - lo);
	return BALE_OK;
}

static int hdf5_roption(struct bale_reader *r, void *priv, const char *key,
    const char *value)
{
	struct hdf5_r *st = priv;

	char *end;

	if (strcmp(key, "meta") == 0)
		st->no_meta = strcmp(value, "0") == 0;
	else if (strcmp(key, "check_indexes") == 0)
		st->check = strcmp(value, "0") != 0;
	else if (strcmp(key, "row_window") != 0)
		return BALE_ENOOPT;
	else if ((st->window = strtoull(value, &end, 10)) == 0 || *end ||
	    *value == '-')
		return bale_reader_seterr(r, BALE_EINVAL, "row_window "
		    "'%s' is not a count of rows", value);
	return BALE_OK;
}

/* Sample @i's key and label: from the index, or the rows. */
static int hdf5_key_label(struct bale_reader *r, struct hdf5_r *st,
    uint64_t i, struct bale_blob *out)
{
	const char *key;
	int rc;

	if (!st->by_index) {
		rc = hdf5_rows_at(r, st, i);
		if (rc != BALE_OK)
			return rc;
		memcpy(st->key, st->keys + (i - st->rows_first) * st->keylen,
		    st->keylen);
		st->key[st->keylen] = '\0';
		out->key = st->key;
		out->label = st->labels[i - st->rows_first];
		return BALE_OK;
	}
	key = bale_index_key(&st->ix, i);
	out->label = st->ix.labels[i];
	if (!key || out->label < BALE_LABEL_NONE ||
	    strlen(key) >= sizeof(st->key))
		return bale_reader_seterr(r, BALE_EINVAL, "its .bidx is "
		    "damaged at sample %" PRIu64, i);
	strcpy(st->key, key);
	out->key = st->key;
	return BALE_OK;
}

static int hdf5_rget(struct bale_reader *r, void *priv, uint64_t i,
    struct bale_blob *out)
{
	struct hdf5_r *st = priv;
	uint64_t lo, hi;
	int rc;

	if (i >= st->n)
		return bale_reader_seterr(r, BALE_EINVAL, "no sample %"
		    PRIu64, i);
	if (++st->reads % BALE_INDEX_LET_GO_EVERY == 0)
		bale_index_let_go(&st->ix);
	rc = hdf5_key_label(r, st, i, out);
	if (rc == BALE_OK && st->check)
		rc = hdf5_check_index(r, st, i, out);
	if (rc != BALE_OK)
		return rc;
	out->crc32 = st->crcs ? st->crcs[i - st->rows_first] : 0;
	out->has_crc32 = st->crcs != NULL;
	out->path = st->paths ? st->paths[i - st->rows_first] : NULL;
	if (st->pixels)
		return hdf5_rget_pixels(r, st, i, out);
	if (st->vlen) {
		pthread_mutex_lock(&hdf5_lock);
		rc = hdf5_rget_vlen(r, st, i, out);
		pthread_mutex_unlock(&hdf5_lock);
		return rc;
	}
	rc = hdf5_sample_size(r, st, i, &out->size);
	if (rc != BALE_OK)
		return rc;
	if (bale_grow(&st->buf, &st->bufcap, out->size ? out->size : 1) != 0 ||
	    !(out->data = bale_reader_data_buffer(r, st->buf, out->size)))
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	hdf5_span(st, i, &lo, &hi);
	return bale_hdf5_images_pread(r, st, (unsigned char *)out->data, lo,
	    hi);
}

static int hdf5_rsize(struct bale_reader *r, void *priv, uint64_t i,
    size_t *size)
{
	return hdf5_sample_size(r, priv, i, size);
}

static int hdf5_rlabel(struct bale_reader *r, void *priv, uint64_t i,
    int64_t *label)
{
	struct hdf5_r *st = priv;
	int rc = hdf5_rows_at(r, st, i);

	if (rc == BALE_OK)
		*label = st->by_index ? st->ix.labels[i] :
		    st->labels[i - st->rows_first];
	return rc;
}

/* Many labels: from the index by pread (4 bytes a sample), or memory. */
static int hdf5_rlabels(struct bale_reader *r, void *priv, uint64_t first,
    uint64_t n, int64_t *out)
{
	struct hdf5_r *st = priv;
	uint64_t i;
	int rc = BALE_OK;

	if (!st->by_index) {
		for (i = 0; rc == BALE_OK && i < n; i++) {
			rc = hdf5_rows_at(r, st, first + i);
			if (rc == BALE_OK)
				out[i] = st->labels[first + i - st->rows_first];
		}
		return rc;
	}
	return bale_index_labels(&st->ix, first, n, out) == BALE_OK ? BALE_OK :
	    bale_reader_seterr(r, BALE_EIO, "cannot read the labels "
	    "in its .bidx: %s", strerror(errno));
}

/* Samples [@first, @first + @n) asked for ahead, through the index (the
 * Loader's reader: meta=0), in the encoded layout. */
static int hdf5_rprefetch(struct bale_reader *r, void *priv, uint64_t first,
    uint64_t n)
{
	struct hdf5_r *st = priv;
	uint64_t *lo, *hi, k;
	int rc;

	(void)r;
	if (!st->by_index || st->vlen || st->pixels)
		return 0;
	lo = malloc(2 * n * sizeof(*lo));
	if (!lo)
		return -1;
	hi = lo + n;
	for (k = 0; k < n; k++)
		hdf5_span(st, first + k, &lo[k], &hi[k]);
	rc = bale_hdf5_images_prefetch(st, lo, hi, n);
	free(lo);
	return rc;
}

static void hdf5_rrelease(void *priv)
{
	struct hdf5_r *st = priv;

	bale_buf_release(&st->info);
	pthread_mutex_lock(&hdf5_lock);
	hdf5_rows_free(st);
	if (st->images > 0)
		H5Dclose(st->images);
	if (st->file > 0)
		H5Fclose(st->file);
	pthread_mutex_unlock(&hdf5_lock);
	bale_sfile_close(st->sf);
	bale_index_close(&st->ix);
	free(st->buf);
	bale_hdf5_images_release(st);
}

const struct bale_reader_ops bale_hdf5_reader = {
	.option = hdf5_roption,
	.labels = hdf5_rlabels,
	.open = hdf5_ropen,
	.count = hdf5_rcount,
	.get = hdf5_rget,
	.release = hdf5_rrelease,
	.size = hdf5_rsize,
	.label = hdf5_rlabel,
	.prefetch = hdf5_rprefetch,
};
