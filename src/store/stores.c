/* stores.c - the stores bale reads from, and the calls of
 * include/bale_store.h, each handed to the store that takes the name.
 * A new store is one file and one line in the list. */
#include "prefetch.h"
#include "store.h"

#include "bale_backend_util.h"
#include "clock.h"

#include <pthread.h>
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

void bale_store_set_stop(const atomic_int *stop)
{
	bale_http_set_stop(stop);
}

int bale_store_is_local(const char *name)
{
	return bale_store_for(name) == &bale_store_local;
}

int bale_sfile_open(struct bale_sfile **f, const char *name,
    struct bale_errbuf *err)
{
	return bale_sfile_open_sized(f, name, 0, err);
}

int bale_sfile_open_sized(struct bale_sfile **f, const char *name,
    uint64_t size, struct bale_errbuf *err)
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
	s->size = size;
	rc = size && s->store->open_known ?
	    s->store->open_known(name, &s->h, err) :
	    s->store->open(name, &s->h, &s->size, err);
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

/* Nanoseconds readers of this process spent waiting for remote bytes
 * (a prefetched answer still on its way, or a GET of their own). */
static uint64_t stores_wait_ns;

static int stores_read_remote(struct bale_sfile *f, const struct iovec *iov,
    int iovcnt, uint64_t off, struct bale_errbuf *err)
{
	double t0 = bale_clock_now();
	int rc = bale_prefetch_take(f->name, off, iov, iovcnt) ? BALE_OK :
	    f->store->read(f->h, iov, iovcnt, off, err);

	__atomic_fetch_add(&stores_wait_ns,
	    (uint64_t)((bale_clock_now() - t0) * 1e9), __ATOMIC_RELAXED);
	return rc;
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
	if (!f->store->request)		/* local: no waiting counted */
		return f->store->read(f->h, iov, iovcnt, off, err);
	return stores_read_remote(f, iov, iovcnt, off, err);
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

int bale_sfile_prefetch_blocks(struct bale_sfile *f, uint64_t off, size_t n,
    unsigned reads, uint64_t gen)
{
	const struct bale_aws *sign;
	const char *url;

	if (!f->store->request || off > f->size || n > f->size - off)
		return 0;
	f->store->request(f->h, &url, &sign);
	return bale_prefetch_add_blocks(f->name, url, sign, f->size, off, n,
	    reads, gen);
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

int bale_store_walk(const char *dir, bale_store_object_fn fn, void *arg,
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

/* An index read from a remote store, shared by the readers of this
 * process that open it (a Loader's threads each open the output): one
 * download and one copy in memory, however many read it. */
struct index_copy {
	struct index_copy *next;
	char *name;
	void *data;
	size_t len;
	unsigned refs;
};

static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t index_fork_once = PTHREAD_ONCE_INIT;
static struct index_copy *index_copies;

/* A fork while another thread reads an index in would leave the child's
 * lock held for ever: held across fork(), released on both sides. */
static void index_fork_prepare(void)
{
	pthread_mutex_lock(&index_lock);
}

static void index_fork_done(void)
{
	pthread_mutex_unlock(&index_lock);
}

static void index_fork_guard(void)
{
	pthread_atfork(index_fork_prepare, index_fork_done, index_fork_done);
}

static void index_copy_release(void *data, void *arg)
{
	struct index_copy **p, *c = arg;

	(void)data;
	pthread_mutex_lock(&index_lock);
	if (--c->refs == 0) {
		for (p = &index_copies; *p != c; p = &(*p)->next)
			;
		*p = c->next;
		free(c->data);
		free(c->name);
		free(c);
	}
	pthread_mutex_unlock(&index_lock);
}

/* The copy of @name held, pinned (under the lock), or NULL. */
static struct index_copy *index_copy_pin(const char *name)
{
	struct index_copy *c;

	for (c = index_copies; c; c = c->next)
		if (strcmp(c->name, name) == 0) {
			c->refs++;
			return c;
		}
	return NULL;
}

/* @data (@len bytes) held as @name's copy, pinned (under the lock): the
 * copy's from here on. NULL without memory (@data is still the
 * caller's). */
static struct index_copy *index_copy_add(const char *name, void *data,
    size_t len)
{
	struct index_copy *c = calloc(1, sizeof(*c));

	if (c)
		c->name = strdup(name);
	if (!c || !c->name) {
		free(c);
		return NULL;
	}
	c->data = data;
	c->len = len;
	c->refs = 1;
	c->next = index_copies;
	index_copies = c;
	return c;
}

/* The copy of @name, read now unless held (under the lock). */
static struct index_copy *index_copy_get(const char *name, int *rc)
{
	struct index_copy *c = index_copy_pin(name);
	struct bale_errbuf err;
	char *data;
	size_t len;

	if (c)
		return c;
	*rc = bale_store_read_all(name, &data, &len, &err);
	if (*rc != BALE_OK)
		return NULL;
	c = index_copy_add(name, data, len);
	if (!c) {
		free(data);
		*rc = BALE_ENOMEM;
	}
	return c;
}

/* What warming got: the copies it pinned. */
struct bale_index_pins {
	struct index_copy **pinned;
	size_t n;
};

/* Answer @body for @name as a copy (under the lock), pinned; the held
 * one when another reader was quicker. */
static struct index_copy *index_copy_keep(const char *name,
    struct bale_buf *body)
{
	struct index_copy *c = index_copy_pin(name);

	if (c || body->failed)
		return c;
	c = index_copy_add(name, body->data, body->len);
	if (c)
		body->data = NULL;	/* the answer is the copy now */
	return c;
}

/* One of index_fetch()'s GETs: the handle its URL lives in. */
struct index_get {
	const struct bale_store *store;
	void *h;
	struct bale_buf body;
};

/* The @n GETs of @names' objects (remote, not held), at once; those
 * answered kept as copies, pinned in @p. */
static void index_fetch(const char *const *names, size_t n,
    struct bale_index_pins *p)
{
	struct bale_http_req *q = calloc(n, sizeof(*q));
	struct bale_http_resp *r = calloc(n, sizeof(*r));
	struct index_get *g = calloc(n, sizeof(*g));
	const struct bale_aws *sign;
	struct bale_errbuf err;
	struct index_copy *c;
	const char *url;
	size_t i;

	for (i = 0; q && r && g && i < n; i++) {
		g[i].store = bale_store_for(names[i]);
		if (!g[i].store->open_known || !g[i].store->request ||
		    g[i].store->open_known(names[i], &g[i].h, &err) != BALE_OK)
			continue;
		g[i].store->request(g[i].h, &url, &sign);
		q[i] = (struct bale_http_req){ "GET", url, sign, 0, NULL, 0,
		    &g[i].body, SIZE_MAX / 2, NULL, 0, NULL, NULL };
	}
	if (q && r && g)
		bale_http_do_many(q, r, n, &err);
	pthread_mutex_lock(&index_lock);
	for (i = 0; q && r && g && i < n; i++) {
		c = q[i].url && r[i].status == 200 ?
		    index_copy_keep(names[i], &g[i].body) : NULL;
		if (c)
			p->pinned[p->n++] = c;
	}
	pthread_mutex_unlock(&index_lock);
	for (i = 0; g && i < n; i++) {
		if (g[i].h)
			g[i].store->close(g[i].h);
		bale_buf_release(&g[i].body);
	}
	free(g);
	free(r);
	free(q);
}

struct bale_index_pins *bale_store_index_warm(const char *const *names,
    size_t n)
{
	struct bale_index_pins *p = calloc(1, sizeof(*p));
	const char **want = calloc(n ? n : 1, sizeof(*want));
	size_t i, k = 0;
	struct index_copy *c;

	if (p)
		p->pinned = calloc(n ? n : 1, sizeof(*p->pinned));
	if (!p || !p->pinned || !want) {
		free(want);
		bale_store_index_unpin(p);
		return NULL;
	}
	pthread_once(&index_fork_once, index_fork_guard);
	pthread_mutex_lock(&index_lock);
	for (i = 0; i < n; i++) {
		c = bale_store_is_local(names[i]) ? NULL :
		    index_copy_pin(names[i]);
		if (c)
			p->pinned[p->n++] = c;
		else if (!bale_store_is_local(names[i]))
			want[k++] = names[i];
	}
	pthread_mutex_unlock(&index_lock);
	if (k)
		index_fetch(want, k, p);
	free(want);
	return p;
}

void bale_store_index_unpin(struct bale_index_pins *p)
{
	size_t i;

	for (i = 0; p && p->pinned && i < p->n; i++)
		index_copy_release(NULL, p->pinned[i]);
	if (p)
		free(p->pinned);
	free(p);
}

int bale_store_index_open(struct bale_index *ix, const char *name,
    uint64_t count, uint64_t source_size)
{
	struct index_copy *c;
	int rc = BALE_OK;

	if (bale_store_is_local(name))
		return bale_index_open(ix, name, count, source_size);
	pthread_once(&index_fork_once, index_fork_guard);
	pthread_mutex_lock(&index_lock);
	c = index_copy_get(name, &rc);
	pthread_mutex_unlock(&index_lock);
	if (!c)
		return rc;
	return bale_index_adopt(ix, c->data, c->len, count, source_size,
	    index_copy_release, c);
}

void bale_store_counts(uint64_t *requests, uint64_t *bytes,
    uint64_t *wait_ns)
{
	bale_http_counts(requests, bytes);
	*wait_ns = __atomic_load_n(&stores_wait_ns, __ATOMIC_RELAXED);
}
