/* reader.c - the state machine around one backend's reader ops; which
 * backend a path needs is core/open.c's business. */
#include "handle.h"

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define READER_MAX_OPTIONS 4

struct bale_reader {
	const struct bale_backend *be;
	void *priv;
	int open;
	const char *opt_key[READER_MAX_OPTIONS];
	const char *opt_value[READER_MAX_OPTIONS];
	size_t nopts;
	bale_dest_fn dest;	/* the caller's memory for data bytes */
	void *dest_ctx;
	int dest_used;		/* this get called dest already */
	struct bale_errbuf err;
	struct bale_errbuf note;	/* the last get's, or empty */
	const char *const *files;	/* bale_reader_describe()'s */
	const char *info;
	int described;
};

int bale_reader_option(struct bale_reader *r, const char *key,
    const char *value)
{
	if (r->be || r->nopts == READER_MAX_OPTIONS)
		return bale_errbuf_set(&r->err, BALE_ESTATE,
		    "reader options go before open, at most %d",
		    READER_MAX_OPTIONS);
	r->opt_key[r->nopts] = key;
	r->opt_value[r->nopts++] = value;
	return BALE_OK;
}

static int reader_apply_options(struct bale_reader *r)
{
	size_t i;
	int rc;

	for (i = 0; i < r->nopts; i++) {
		rc = r->be->reader->option ? r->be->reader->option(r, r->priv,
		    r->opt_key[i], r->opt_value[i]) : BALE_ENOOPT;
		/* "meta=0" and "check_indexes=1" are wishes, not demands:
		 * readers that keep their metadata in memory anyway or have
		 * no index apart from their data may ignore them */
		if (rc == BALE_ENOOPT && (strcmp(r->opt_key[i], "meta") == 0 ||
		    strcmp(r->opt_key[i], "check_indexes") == 0))
			rc = BALE_OK;
		if (rc == BALE_ENOOPT)
			return bale_reader_seterr(r, rc,
			    "%s: unknown reader option '%s'", r->be->name,
			    r->opt_key[i]);
		if (rc != BALE_OK)
			return rc;
	}
	return BALE_OK;
}

int bale_reader_new(struct bale_reader **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? BALE_OK : BALE_ENOMEM;
}

/* A backend's message (and the handle's about a backend's output), named
 * by the backend. The handle's messages about its own use (order of
 * calls) go to r->err as they are. */
int bale_reader_seterr(struct bale_reader *r, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bale_errbuf_setv_named(&r->err, r->be ? r->be->name : NULL, rc, fmt,
	    ap);
	va_end(ap);
	return rc;
}

int bale_reader_setnote(struct bale_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bale_errbuf_setv_named(&r->note, r->be ? r->be->name : NULL, BALE_OK,
	    fmt, ap);
	va_end(ap);
	return BALE_OK;
}

const char *bale_reader_note(const struct bale_reader *r)
{
	return r->note.msg[0] ? r->note.msg : NULL;
}

int bale_reader_open_with(struct bale_reader *r,
    const struct bale_backend *be, const char *path)
{
	int rc;

	if (r->be)
		return bale_errbuf_set(&r->err, BALE_ESTATE, "already open");
	r->priv = calloc(1, be->reader_priv ? be->reader_priv : 1);
	if (!r->priv)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	r->be = be;
	rc = reader_apply_options(r);
	if (rc == BALE_OK)
		rc = be->reader->open(r, r->priv, path);
	r->open = rc == BALE_OK;
	if (rc != BALE_OK && !r->err.msg[0])
		bale_reader_seterr(r, rc, "%s: cannot open '%s'", be->name,
		    path);
	return rc;
}

static int reader_check(struct bale_reader *r)
{
	if (!r->open)
		return bale_errbuf_set(&r->err, BALE_ESTATE,
		    "reader not open");
	return BALE_OK;
}

int bale_reader_count(struct bale_reader *r, uint64_t *n)
{
	int rc = reader_check(r);

	return rc ? rc : r->be->reader->count(r, r->priv, n);
}

/* Open, and @i names a sample. */
static int reader_check_index(struct bale_reader *r, uint64_t i)
{
	uint64_t n = 0;
	int rc = reader_check(r);

	if (rc == BALE_OK)
		rc = r->be->reader->count(r, r->priv, &n);
	if (rc == BALE_OK && i >= n)
		rc = bale_reader_seterr(r, BALE_EINVAL, "%s: no sample %"
		    PRIu64, r->be->name, i);
	return rc;
}

int bale_reader_size(struct bale_reader *r, uint64_t i, size_t *size)
{
	int rc = reader_check_index(r, i);

	if (rc != BALE_OK)
		return rc;
	return r->be->reader->size ? r->be->reader->size(r, r->priv, i, size) :
	    BALE_ENOTSUP;
}

int bale_reader_label(struct bale_reader *r, uint64_t i, int64_t *label)
{
	bale_dest_fn dest = r->dest;
	struct bale_blob b;
	int rc = reader_check_index(r, i);

	if (rc != BALE_OK || r->be->reader->label)
		return rc ? rc : r->be->reader->label(r, r->priv, i, label);
	r->dest = NULL;		/* the bytes are not the caller's business */
	rc = bale_reader_get(r, i, &b);
	r->dest = dest;
	*label = b.label;
	return rc;
}

int bale_reader_labels(struct bale_reader *r, uint64_t first, uint64_t n,
    int64_t *out)
{
	uint64_t i;
	int rc = n ? reader_check_index(r, first + n - 1) : BALE_OK;

	if (rc == BALE_OK && n > UINT64_MAX - first)
		rc = bale_reader_seterr(r, BALE_EINVAL, "no samples from %"
		    PRIu64 " on: the range wraps around", first);
	if (rc != BALE_OK || n == 0)
		return rc;
	if (r->be->reader->labels)
		return r->be->reader->labels(r, r->priv, first, n, out);
	for (i = 0; rc == BALE_OK && i < n; i++)
		rc = bale_reader_label(r, first + i, &out[i]);
	return rc;
}

int bale_reader_set_dest(struct bale_reader *r, bale_dest_fn dest,
    void *ctx)
{
	r->dest = dest;
	r->dest_ctx = ctx;
	return BALE_OK;
}

unsigned char *bale_reader_data_buffer(struct bale_reader *r,
    unsigned char *own, size_t size)
{
	if (!r->dest)
		return own;
	r->dest_used = 1;
	return r->dest(r->dest_ctx, size);
}

/* A backend that found the bytes in place (a memory map, a library's
 * buffer) did not read them into the destination: copy them there. */
static int reader_copy_to_dest(struct bale_reader *r, struct bale_blob *out)
{
	unsigned char *p = r->dest(r->dest_ctx, out->size);

	if (!p)
		return bale_reader_seterr(r, BALE_ENOMEM,
		    "%s: no memory for sample bytes", r->be->name);
	if (out->size)
		memcpy(p, out->data, out->size);
	out->data = p;
	return BALE_OK;
}

int bale_reader_get(struct bale_reader *r, uint64_t i, struct bale_blob *out)
{
	int rc = reader_check(r);

	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	r->dest_used = 0;
	r->note.msg[0] = '\0';
	rc = r->be->reader->get(r, r->priv, i, out);
	if (rc == BALE_OK && r->dest && !r->dest_used)
		rc = reader_copy_to_dest(r, out);
	return rc;
}

int bale_reader_where(struct bale_reader *r, int *fd, uint64_t *offset)
{
	if (reader_check(r) != BALE_OK || !r->be->reader->where)
		return BALE_ENOTSUP;
	return r->be->reader->where(r, r->priv, fd, offset);
}

int bale_reader_prefetch(struct bale_reader *r, uint64_t first, uint64_t n)
{
	if (reader_check(r) != BALE_OK || !r->be->reader->prefetch || n == 0 ||
	    first + n < first || reader_check_index(r, first + n - 1) !=
	    BALE_OK)
		return 0;
	return r->be->reader->prefetch(r, r->priv, first, n);
}

void bale_reader_describe(struct bale_reader *r, const char *const *files,
    const char *info)
{
	r->files = files;
	r->info = info;
	r->described = 1;
}

/* What the reader was not given: no memory, or nothing at all. */
static int reader_undescribed(struct bale_reader *r, const char *what)
{
	return r->described ? bale_reader_seterr(r, BALE_ENOMEM,
	    "%s: no memory", r->be->name) : bale_reader_seterr(r,
	    BALE_ENOTSUP, "%s: its reader gives no %s", r->be->name, what);
}

int bale_reader_files(struct bale_reader *r, const char *const **list)
{
	int rc = reader_check(r);

	if (rc || r->be->reader->files)
		return rc ? rc : r->be->reader->files(r, r->priv, list);
	*list = r->files;
	return r->files ? BALE_OK : reader_undescribed(r, "files");
}

int bale_reader_info(struct bale_reader *r, const char **json)
{
	int rc = reader_check(r);

	if (rc || r->be->reader->info)
		return rc ? rc : r->be->reader->info(r, r->priv, json);
	*json = r->info;
	return r->info ? BALE_OK : reader_undescribed(r, "info");
}

const char *bale_reader_format(const struct bale_reader *r)
{
	return r->be ? r->be->name : "";
}

const char *bale_reader_errmsg(const struct bale_reader *r)
{
	return r->err.msg;
}

void bale_reader_free(struct bale_reader *r)
{
	if (!r)
		return;
	if (r->be)
		r->be->reader->release(r->priv);
	free(r->priv);
	free(r);
}
