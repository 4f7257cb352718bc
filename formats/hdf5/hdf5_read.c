/* hdf5_read.c - random reads of bale's HDF5 outputs (every layout).
 *
 * Every HDF5 call takes one process-wide lock (Debian's HDF5 is not
 * thread-safe). The "encoded" layout needs HDF5 only at open: the file
 * address of every images chunk is looked up once, and get() is then a
 * plain pread of the sample's bytes, lock-free (one pread when its chunks
 * lie end to end, as bale writes them).
 */
#include "hdf5_read.h"

#include "bale_backend.h"
#include "hdf5_common.h"
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
	return bale_reader_seterr(r, BALE_EBACKEND, "hdf5: %s: %s", what, why);
}

/* Read all @n elements of dataset @name as @type into a new *@out of
 * @elem-byte elements. Its extent is checked before anything is
 * allocated: a file does not choose how much memory bale takes. */
static int hdf5_read_all(struct bale_reader *r, hid_t file, const char *name,
    hid_t type, uint64_t n, void **out, size_t elem)
{
	hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
	hid_t space = d >= 0 ? H5Dget_space(d) : -1;
	hssize_t got = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
	char what[64];
	int rc = BALE_OK;

	*out = NULL;
	if (got < 0 || (uint64_t)got != n) {
		rc = bale_reader_seterr(r, BALE_EBACKEND, "hdf5: dataset '%s' "
		    "is missing or does not hold count (%" PRIu64 ") rows",
		    name, n);
		goto out;
	}
	*out = calloc(n + 1, elem);
	if (!*out) {
		rc = bale_reader_seterr(r, BALE_ENOMEM, "hdf5: no memory");
	} else if (n && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    *out) < 0) {
		snprintf(what, sizeof(what), "cannot read dataset '%s'", name);
		rc = hdf5_rfail(r, what);
	}
out:
	H5Sclose(space);
	H5Dclose(d);
	return rc;
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
		return bale_reader_seterr(r, BALE_EBACKEND, "hdf5: dataset "
		    "'keys' is missing or not strings of fixed width under "
		    "%zu bytes", sizeof(st->key));
	fixed = bale_hdf5_string_type(st->keylen);
	rc = hdf5_read_all(r, st->file, "keys", fixed, st->n,
	    (void **)&st->keys, st->keylen);
	H5Tclose(fixed);
	return rc;
}

/* The per-sample datasets, all of count rows (offsets: count + 1). */
static int hdf5_read_meta(struct bale_reader *r, struct hdf5_r *st)
{
	hid_t vstr = bale_hdf5_string_type(H5T_VARIABLE);
	int rc = hdf5_read_all(r, st->file, "labels", H5T_NATIVE_INT64, st->n,
	    (void **)&st->labels, sizeof(int64_t));

	if (rc == BALE_OK)
		rc = hdf5_read_all(r, st->file, "crc32", H5T_NATIVE_UINT32,
		    st->n, (void **)&st->crcs, sizeof(uint32_t));
	if (rc == BALE_OK)
		rc = hdf5_read_keys(r, st);
	if (rc == BALE_OK)
		rc = hdf5_read_all(r, st->file, "paths", vstr, st->n,
		    (void **)&st->paths, sizeof(char *));
	if (rc == BALE_OK && !st->vlen && !st->pixels)
		rc = hdf5_read_all(r, st->file, "offsets", H5T_NATIVE_UINT64,
		    st->n + 1, (void **)&st->offsets, sizeof(uint64_t));
	H5Tclose(vstr);
	return rc;
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
		rc = bale_reader_seterr(r, BALE_EBACKEND, "hdf5: not a bale "
		    "HDF5 file: no attribute 'layout' (a UTF-8 string)");
	else if (!st->vlen && !st->pixels && strcmp(layout, "encoded") != 0)
		rc = bale_reader_seterr(r, BALE_EBACKEND, "hdf5: layout "
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
	struct stat sb;

	if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &count) < 0)
		count = -1;
	H5Aclose(a);
	if (count < 0)
		return bale_reader_seterr(r, BALE_EBACKEND, "hdf5: not a bale "
		    "HDF5 file: no attribute 'count' (samples, an integer)");
	if (fstat(st->fd, &sb) != 0)
		return bale_reader_seterr(r, BALE_EIO, "hdf5: cannot stat "
		    "'%s': %s", st->files[0], strerror(errno));
	st->size = (uint64_t)sb.st_size;
	if ((uint64_t)count > st->size / sizeof(int64_t))
		return bale_reader_seterr(r, BALE_EBACKEND, "hdf5: count says "
		    "%" PRId64 " samples, more than a file of %lld bytes holds",
		    count, (long long)sb.st_size);
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

/* Encoded images: one dimension of bytes, chunked and unfiltered, as
 * get() reads the chunks' bytes from the file itself; and the offsets
 * end inside it. */
static int hdf5_check_encoded(struct bale_reader *r, struct hdf5_r *st)
{
	hid_t type = H5Dget_type(st->images);
	hid_t space = H5Dget_space(st->images);
	hid_t dcpl = H5Dget_create_plist(st->images);
	hsize_t extent = 0;
	uint64_t end = st->offsets[st->n];
	int ok = type >= 0 && H5Tget_class(type) == H5T_INTEGER &&
	    H5Tget_size(type) == 1 && space >= 0 &&
	    H5Sget_simple_extent_ndims(space) == 1 &&
	    H5Sget_simple_extent_dims(space, &extent, NULL) == 1 &&
	    dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED &&
	    H5Pget_chunk(dcpl, 1, &st->chunk) == 1 && st->chunk > 0 &&
	    H5Pget_nfilters(dcpl) == 0;

	H5Pclose(dcpl);
	H5Sclose(space);
	H5Tclose(type);
	if (!ok)
		return bale_reader_seterr(r, BALE_EBACKEND, "hdf5: images is "
		    "not one chunked, unfiltered dimension of bytes (layout "
		    "encoded)");
	if (end > extent || end > st->size)
		return bale_reader_seterr(r, BALE_EBACKEND, "hdf5: offsets end "
		    "at byte %" PRIu64 ", past the end of images", end);
	return BALE_OK;
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
	return ok ? BALE_OK : bale_reader_seterr(r, BALE_EBACKEND, "hdf5: "
	    "images is not count rows of variable-length bytes (layout "
	    "vlen)");
}

/* The file address of every images chunk. */
static int hdf5_read_chunks(struct bale_reader *r, struct hdf5_r *st)
{
	hsize_t off;
	hsize_t size;
	unsigned mask;
	uint64_t c;
	int ok = 1;

	st->nchunks = (st->offsets[st->n] + st->chunk - 1) / st->chunk;
	st->chunk_addr = calloc(st->nchunks + 1, sizeof(haddr_t));
	for (c = 0; ok && st->chunk_addr && c < st->nchunks; c++) {
		off = c * st->chunk;
		ok = H5Dget_chunk_info_by_coord(st->images, &off, &mask,
		    &st->chunk_addr[c], &size) >= 0 && mask == 0 &&
		    st->chunk_addr[c] != HADDR_UNDEF;
	}
	if (!st->chunk_addr)
		return bale_reader_seterr(r, BALE_ENOMEM, "hdf5: no memory");
	return ok ? BALE_OK : hdf5_rfail(r, "cannot locate image chunks");
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
		return bale_reader_seterr(r, BALE_EBACKEND, "hdf5: images is "
		    "not count x H x W x 3 bytes (layout pixels)");
	if (bale_grow(&st->buf, &st->bufcap, hdf5_row_bytes(st)) != 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "hdf5: no memory");
	return BALE_OK;
}

static int hdf5_rget_pixels(struct bale_reader *r, struct hdf5_r *st,
    uint64_t i, struct bale_blob *out)
{
	size_t size = hdf5_row_bytes(st);
	unsigned char *to = bale_reader_data_buffer(r, st->buf, size);
	int rc = BALE_OK;

	if (!to)
		return bale_reader_seterr(r, BALE_ENOMEM, "hdf5: no memory");
	pthread_mutex_lock(&hdf5_lock);
	if (bale_hdf5_pixels_get(st->images, i, to) != 0)
		rc = hdf5_rfail(r, "cannot read images");	/* reads HDF5's
								 * error stack */
	pthread_mutex_unlock(&hdf5_lock);
	out->data = to;
	out->size = size;
	return rc;
}

static int hdf5_ropen_locked(struct bale_reader *r, struct hdf5_r *st,
    const char *path)
{
	int rc;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	st->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (st->file < 0)
		return hdf5_rfail(r, path);
	st->images = H5Dopen2(st->file, "images", H5P_DEFAULT);
	if (st->images < 0)
		return bale_reader_seterr(r, BALE_EBACKEND, "hdf5: not a bale "
		    "HDF5 file: no dataset 'images'");
	rc = hdf5_read_layout(r, st);
	if (rc == BALE_OK)
		rc = hdf5_read_count(r, st);
	if (rc == BALE_OK)
		hdf5_read_info(st);
	if (rc == BALE_OK)
		rc = hdf5_read_meta(r, st);
	if (rc == BALE_OK && st->pixels)
		rc = hdf5_check_pixels(r, st);
	else if (rc == BALE_OK && st->vlen)
		rc = hdf5_check_vlen(r, st);
	else if (rc == BALE_OK)
		rc = hdf5_check_encoded(r, st);
	if (rc == BALE_OK && !st->pixels && !st->vlen)
		rc = hdf5_read_chunks(r, st);
	if (rc == BALE_OK && st->pixels)	/* what a row's bytes are */
		bale_buf_printf(&st->info, ",\"shape\":[%d,%d,3]",
		    st->pixels_h, st->pixels_w);
	bale_buf_puts(&st->info, "}");
	return rc;
}

static int hdf5_ropen(struct bale_reader *r, void *priv, const char *path)
{
	struct hdf5_r *st = priv;
	int rc;

	st->file = st->images = -1;
	st->fd = open(path, O_RDONLY | O_CLOEXEC);
	st->files[0] = strdup(path);
	if (st->fd < 0 || !st->files[0])
		return bale_reader_seterr(r, BALE_EIO, "hdf5: cannot open '%s': %s",
		    path, strerror(errno));
	pthread_once(&hdf5_fork_once, hdf5_fork_guard);
	pthread_mutex_lock(&hdf5_lock);
	rc = hdf5_ropen_locked(r, st, path);
	pthread_mutex_unlock(&hdf5_lock);
	return rc;
}

static int hdf5_rcount(struct bale_reader *r, void *priv, uint64_t *n)
{
	(void)r;
	*n = ((struct hdf5_r *)priv)->n;
	return BALE_OK;
}

/* Bytes [lo, hi) of images into @to: preads, one per run of adjacent
 * chunks. */
static int hdf5_pread_range(struct bale_reader *r, struct hdf5_r *st,
    unsigned char *to, uint64_t lo, uint64_t hi)
{
	uint64_t pos = lo;
	uint64_t c;
	uint64_t run_end;
	ssize_t got;

	while (pos < hi) {
		c = pos / st->chunk;
		run_end = (c + 1) * st->chunk;
		while (run_end < hi && c + 1 < st->nchunks &&
		    st->chunk_addr[c + 1] == st->chunk_addr[c] + st->chunk) {
			c++;
			run_end += st->chunk;
		}
		run_end = run_end < hi ? run_end : hi;
		got = pread(st->fd, to + (pos - lo), run_end - pos,
		    (off_t)(st->chunk_addr[pos / st->chunk] + pos % st->chunk));
		if (got != (ssize_t)(run_end - pos))
			return bale_reader_seterr(r, BALE_EIO,
			    "hdf5: cannot read: %s",
			    got < 0 ? strerror(errno) : "short read");
		pos = run_end;
	}
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
static int hdf5_sample_size(struct bale_reader *r, const struct hdf5_r *st,
    uint64_t i, size_t *size)
{
	if (st->vlen)
		return BALE_ENOTSUP;
	if (st->pixels) {
		*size = hdf5_row_bytes(st);
		return BALE_OK;
	}
	if (st->offsets[i] > st->offsets[i + 1] ||
	    st->offsets[i + 1] > st->offsets[st->n])
		return bale_reader_seterr(r, BALE_EINVAL, "hdf5: bad offsets "
		    "at sample %" PRIu64, i);
	*size = (size_t)(st->offsets[i + 1] - st->offsets[i]);
	return BALE_OK;
}

static int hdf5_rget(struct bale_reader *r, void *priv, uint64_t i,
    struct bale_blob *out)
{
	struct hdf5_r *st = priv;
	int rc;

	if (i >= st->n)
		return bale_reader_seterr(r, BALE_EINVAL, "hdf5: no sample %"
		    PRIu64, i);
	memcpy(st->key, st->keys + i * st->keylen, st->keylen);
	st->key[st->keylen] = '\0';
	out->key = st->key;
	out->label = st->labels[i];
	out->crc32 = st->crcs[i];
	out->has_crc32 = 1;
	out->path = st->paths[i];
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
		return bale_reader_seterr(r, BALE_ENOMEM, "hdf5: no memory");
	return hdf5_pread_range(r, st, (unsigned char *)out->data,
	    st->offsets[i], st->offsets[i + 1]);
}

static int hdf5_rsize(struct bale_reader *r, void *priv, uint64_t i,
    size_t *size)
{
	return hdf5_sample_size(r, priv, i, size);
}

static int hdf5_rlabel(struct bale_reader *r, void *priv, uint64_t i,
    int64_t *label)
{
	(void)r;
	*label = ((struct hdf5_r *)priv)->labels[i];
	return BALE_OK;
}

static int hdf5_rfiles(struct bale_reader *r, void *priv,
    const char *const **list)
{
	(void)r;
	*list = (const char *const *)((struct hdf5_r *)priv)->files;
	return BALE_OK;
}

static int hdf5_rinfo(struct bale_reader *r, void *priv, const char **json)
{
	struct hdf5_r *st = priv;

	if (st->info.failed)
		return bale_reader_seterr(r, BALE_ENOMEM, "hdf5: no memory");
	*json = st->info.data;
	return BALE_OK;
}

static void hdf5_rrelease(void *priv)
{
	struct hdf5_r *st = priv;
	uint64_t i;

	bale_buf_release(&st->info);
	pthread_mutex_lock(&hdf5_lock);
	for (i = 0; st->paths && i < st->n; i++)
		H5free_memory(st->paths[i]);
	if (st->images > 0)
		H5Dclose(st->images);
	if (st->file > 0)
		H5Fclose(st->file);
	pthread_mutex_unlock(&hdf5_lock);
	if (st->fd > 0)
		close(st->fd);
	free(st->paths);
	free(st->offsets);
	free(st->chunk_addr);
	free(st->labels);
	free(st->crcs);
	free(st->keys);
	free(st->buf);
	free(st->files[0]);
}

const struct bale_reader_ops bale_hdf5_reader = {
	.open = hdf5_ropen,
	.count = hdf5_rcount,
	.get = hdf5_rget,
	.files = hdf5_rfiles,
	.info = hdf5_rinfo,
	.release = hdf5_rrelease,
	.size = hdf5_rsize,
	.label = hdf5_rlabel,
};
