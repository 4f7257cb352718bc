/* stores.c - the stores bale reads from, and the calls of
 * include/bale_store.h, each handed to the store that takes the name.
 * A new store is one file and one line in the list. */
#include "prefetch.h"
#include "store.h"

#include "bale_backend_util.h"

#include <stdlib.h>
#include <string.h>

struct bale_sfile {
	const struct bale_store *store;
	void *h;
	uint64_t size;
	char *name;
};

/* Asked in order; the local store takes whatever no other claims. */
static const struct bale_store *const stores_list[] = {
	&bale_store_s3,
	&bale_store_https,
	&bale_store_local,
};

const struct bale_store *bale_store_for(const char *name)
{
	size_t i;

	for (i = 0; i + 1 < sizeof(stores_list) / sizeof(stores_list[0]); i++)
		if (stores_list[i]->claims(name))
			return stores_list[i];
	return &bale_store_local;
}

int bale_store_is_local(const char *name)
{
	return bale_store_for(name) == &bale_store_local;
}

int bale_sfile_open(struct bale_sfile **f, const char *name,
    struct bale_errbuf *err)
{
	struct bale_sfile *s = calloc(1, sizeof(*s));
	int rc;

	*f = NULL;
	if (s)
		s->name = strdup(name);
	if (!s || !s->name) {
		free(s);
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	s->store = bale_store_for(name);
	rc = s->store->open(name, &s->h, &s->size, err);
	if (rc != BALE_OK) {
		free(s->name);
		free(s);
		return rc;
	}
	*f = s;
	return BALE_OK;
}

uint64_t bale_sfile_size(const struct bale_sfile *f)
{
	return f->size;
}

const char *bale_sfile_name(const struct bale_sfile *f)
{
	return f->name;
}

int bale_sfile_preadv(struct bale_sfile *f, const struct iovec *iov,
    int iovcnt, uint64_t off, struct bale_errbuf *err)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < iovcnt; i++)
		n += iov[i].iov_len;
	if (off > f->size || n > f->size - off)
		return bale_errbuf_set(err, BALE_EIO, "cannot read '%s': "
		    "bytes %llu to %llu asked of %llu", f->name,
		    (unsigned long long)off, (unsigned long long)(off + n),
		    (unsigned long long)f->size);
	if (n == 0)
		return BALE_OK;
	if (f->store->request && bale_prefetch_take(f->name, off, iov, iovcnt))
		return BALE_OK;
	return f->store->read(f->h, iov, iovcnt, off, err);
}

int bale_sfile_pread(struct bale_sfile *f, void *buf, size_t n,
    uint64_t off, struct bale_errbuf *err)
{
	struct iovec one = { buf, n };

	return bale_sfile_preadv(f, &one, 1, off, err);
}

int bale_sfile_prefetch(struct bale_sfile *f, uint64_t off, size_t n,
    unsigned reads)
{
	const struct bale_aws *sign;
	const char *url;

	if (!f->store->request || off > f->size || n > f->size - off)
		return 0;
	f->store->request(f->h, &url, &sign);
	return bale_prefetch_add(f->name, url, sign, off, n, reads);
}

int bale_sfile_fd(const struct bale_sfile *f)
{
	return f->store->fd ? f->store->fd(f->h) : -1;
}

void bale_sfile_close(struct bale_sfile *f)
{
	if (!f)
		return;
	f->store->close(f->h);
	free(f->name);
	free(f);
}

int bale_store_stat(const char *name, struct bale_store_stat *st,
    struct bale_errbuf *err)
{
	memset(st, 0, sizeof(*st));
	return bale_store_for(name)->stat(name, st, err);
}

int bale_store_list(const char *dir, bale_store_entry_fn fn, void *arg,
    struct bale_errbuf *err)
{
	return bale_store_for(dir)->list(dir, fn, arg, err);
}

int bale_store_walk(const char *dir, bale_store_entry_fn fn, void *arg,
    struct bale_errbuf *err)
{
	const struct bale_store *store = bale_store_for(dir);

	if (!store->walk)
		return bale_errbuf_set(err, BALE_ENOTSUP, "'%s': the %s store "
		    "cannot list every file below a folder", dir, store->name);
	return store->walk(dir, fn, arg, err);
}

int bale_store_read_all(const char *name, char **data, size_t *n,
    struct bale_errbuf *err)
{
	const struct bale_store *store = bale_store_for(name);
	struct bale_sfile *f;
	int rc;

	*data = NULL;
	*n = 0;
	if (store->read_all)
		return store->read_all(name, data, n, err);
	rc = bale_sfile_open(&f, name, err);
	if (rc != BALE_OK)
		return rc;
	if (f->size >= SIZE_MAX) {
		bale_sfile_close(f);
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	*data = malloc((size_t)f->size + 1);
	rc = *data ? bale_sfile_pread(f, *data, (size_t)f->size, 0, err) :
	    bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	if (rc == BALE_OK) {
		(*data)[f->size] = '\0';
		*n = (size_t)f->size;
	} else {
		free(*data);
		*data = NULL;
	}
	bale_sfile_close(f);
	return rc;
}

int bale_store_index_open(struct bale_index *ix, const char *name,
    uint64_t count, uint64_t source_size)
{
	struct bale_errbuf err;
	char *data;
	size_t n;
	int rc;

	if (bale_store_is_local(name))
		return bale_index_open(ix, name, count, source_size);
	rc = bale_store_read_all(name, &data, &n, &err);
	if (rc != BALE_OK)
		return rc;
	return bale_index_adopt(ix, data, n, count, source_size);
}

void bale_store_counts(uint64_t *requests, uint64_t *bytes)
{
	bale_http_counts(requests, bytes);
}
