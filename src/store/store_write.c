/* store_write.c - the writing calls of include/bale_store.h, each handed
 * to the store that takes the name, and copies from any store to any. */
#include "multipart.h"
#include "store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct bale_swrite {
	const struct bale_store *store;
	void *h;
	uint64_t bytes;
};

/* The store of @name, when it writes; else said in @err. */
static const struct bale_store *write_store(const char *name,
    struct bale_errbuf *err)
{
	const struct bale_store *store = bale_store_for(name);

	if (!store->wopen)
		bale_errbuf_set(err, BALE_ENOTSUP, "'%s': the %s store is "
		    "read-only", name, store->name);
	return store->wopen ? store : NULL;
}

int bale_swrite_open(struct bale_swrite **w, const char *name,
    struct bale_errbuf *err)
{
	const struct bale_store *store = write_store(name, err);
	struct bale_swrite *s;
	int rc;

	*w = NULL;
	if (!store)
		return err->rc;
	s = calloc(1, sizeof(*s));
	if (!s)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	s->store = store;
	rc = store->wopen(name, &s->h, err);
	if (rc != BALE_OK) {
		free(s);
		return rc;
	}
	*w = s;
	return BALE_OK;
}

int bale_swrite_write(struct bale_swrite *w, const void *p, size_t n,
    struct bale_errbuf *err)
{
	int rc = w->store->wwrite(w->h, p, n, err);

	w->bytes += rc == BALE_OK ? n : 0;
	return rc;
}

uint64_t bale_swrite_bytes(const struct bale_swrite *w)
{
	return w->bytes;
}

int bale_swrite_finish(struct bale_swrite *w, struct bale_errbuf *err)
{
	int rc = w->store->wfinish(w->h, err);

	free(w);
	return rc;
}

void bale_swrite_abort(struct bale_swrite *w)
{
	if (!w)
		return;
	w->store->wabort(w->h);
	free(w);
}

int bale_store_put(const char *name, const void *p, size_t n,
    struct bale_errbuf *err)
{
	struct bale_swrite *w;
	int rc = bale_swrite_open(&w, name, err);

	if (rc == BALE_OK)
		rc = bale_swrite_write(w, p, n, err);
	if (rc == BALE_OK)
		return bale_swrite_finish(w, err);
	bale_swrite_abort(w);
	return rc;
}

int bale_store_writable(const char *dir, struct bale_errbuf *err)
{
	const struct bale_store *store = write_store(dir, err);

	return store ? store->writable(dir, err) : err->rc;
}

int bale_store_remove(const char *name, struct bale_errbuf *err)
{
	const struct bale_store *store = write_store(name, err);

	return store ? store->remove(name, err) : err->rc;
}

int bale_store_clean(const char *prefix, struct bale_errbuf *err)
{
	const struct bale_store *store = write_store(prefix, err);

	if (!store)
		return err->rc;
	return store->clean ? store->clean(prefix, err) : BALE_OK;
}

int bale_store_set_uploads(size_t part_size, unsigned in_flight)
{
	if (part_size && (part_size < BALE_MPU_PART_MIN ||
	    part_size > BALE_MPU_PART_MAX))
		return BALE_EINVAL;
	bale_mpu_configure(part_size, in_flight);
	return BALE_OK;
}

/* ---- copies ------------------------------------------------------------ */

#define COPY_PIECE (8u << 20)	/* a ranged GET, or a part, at a time */

/* Both local: the kernel copies (bale_file_copy_range). */
static int copy_by_kernel(struct bale_sfile *in, uint64_t off, uint64_t len,
    struct bale_swrite *out, int fd, struct bale_errbuf *err)
{
	if (bale_file_copy_range(bale_sfile_fd(in), off, fd, len) != 0)
		return bale_errbuf_set(err, BALE_EIO, "cannot copy '%s': %s",
		    bale_sfile_name(in), strerror(errno));
	out->bytes += len;
	return BALE_OK;
}

int bale_store_copy_range(struct bale_sfile *in, uint64_t off, uint64_t len,
    struct bale_swrite *out, struct bale_errbuf *err)
{
	int fd = out->store->wfd ? out->store->wfd(out->h) : -1;
	size_t n = len < COPY_PIECE ? (size_t)len : COPY_PIECE;
	unsigned char *buf;
	int rc = BALE_OK;

	if (fd >= 0 && bale_sfile_fd(in) >= 0)
		return copy_by_kernel(in, off, len, out, fd, err);
	buf = malloc(n ? n : 1);
	if (!buf)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	for (; rc == BALE_OK && len > 0; off += n, len -= n) {
		n = len < COPY_PIECE ? (size_t)len : COPY_PIECE;
		rc = bale_sfile_pread(in, buf, n, off, err);
		if (rc == BALE_OK)
			rc = bale_swrite_write(out, buf, n, err);
	}
	free(buf);
	return rc;
}

/* Can @from's store make @to from it itself? */
static int copy_in_store(const char *from, const char *to, uint64_t size)
{
	const struct bale_store *store = bale_store_for(from);

	return store->copy && store == bale_store_for(to) &&
	    size <= BALE_STORE_COPY_MAX;
}

int bale_store_copy(const char *from, const char *to,
    struct bale_errbuf *err)
{
	struct bale_sfile *in = NULL;
	struct bale_swrite *out = NULL;
	int rc = bale_sfile_open(&in, from, err);

	if (rc == BALE_OK && copy_in_store(from, to, bale_sfile_size(in))) {
		bale_sfile_close(in);
		return bale_store_for(from)->copy(from, to, err);
	}
	if (rc == BALE_OK)
		rc = bale_swrite_open(&out, to, err);
	if (rc == BALE_OK)
		rc = bale_store_copy_range(in, 0, bale_sfile_size(in), out,
		    err);
	if (rc == BALE_OK)
		rc = bale_swrite_finish(out, err);
	else
		bale_swrite_abort(out);
	bale_sfile_close(in);
	return rc;
}
