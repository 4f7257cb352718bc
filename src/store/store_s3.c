/* store_s3.c - objects in S3 and its kin (Ceph's RADOS Gateway, MinIO,
 * R2): s3://BUCKET/KEY. Requests are signed with SigV4 (aws_config.c
 * finds the credentials; none found: unsigned, for public buckets),
 * addressed by path for a custom endpoint and by host name for AWS, as
 * botocore does. A "folder" is a prefix: s3://b/out/ holds what lies
 * under "out/", listed one level at a time with ListObjectsV2. */
#include "multipart.h"
#include "remote.h"
#include "s3_xml.h"
#include "store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S3_SCHEME "s3://"

/* A name taken apart. */
struct s3_name {
	char bucket[64];
	const char *key;	/* in the name: "" for the bucket itself */
};

static int s3_claims(const char *name)
{
	return strncmp(name, S3_SCHEME, strlen(S3_SCHEME)) == 0;
}

static int s3_parse(const char *name, struct s3_name *n,
    struct bale_errbuf *err)
{
	const char *b = name + strlen(S3_SCHEME);
	size_t len = strcspn(b, "/");

	if (len < 3 || len > 63)
		return bale_errbuf_set(err, BALE_EINVAL, "'%s': a bucket name "
		    "has 3 to 63 characters", name);
	memcpy(n->bucket, b, len);
	n->bucket[len] = '\0';
	n->key = b[len] ? b + len + 1 : b + len;
	return BALE_OK;
}

/* The URL of @key (escaped, '/' kept) in @n's bucket, with @query
 * ("" or "?..."). NULL without memory. */
static char *s3_url(const struct bale_aws *a, const struct s3_name *n,
    const char *key, const char *query)
{
	char *esc = bale_http_escape(key, 1);
	const char *ep = a->endpoint;
	const char *host;
	char *url;

	if (!esc)
		return NULL;
	if (!ep[0] && a->path_style)
		url = bale_strfmt("https://s3.%s.amazonaws.com/%s/%s%s",
		    a->region, n->bucket, esc, query);
	else if (!ep[0])
		url = bale_strfmt("https://%s.s3.%s.amazonaws.com/%s%s",
		    n->bucket, a->region, esc, query);
	else if (a->path_style)
		url = bale_strfmt("%s/%s/%s%s", ep, n->bucket, esc, query);
	else {
		host = strstr(ep, "://");
		host = host ? host + 3 : ep;
		url = bale_strfmt("%.*s%s.%s/%s%s", (int)(host - ep), ep,
		    n->bucket, host, esc, query);
	}
	free(esc);
	return url;
}

/* What a listing is after: one level's entries (@fn), or every object
 * under the prefix (@deep, to @obj). */
struct s3_walk {
	const char *prefix;	/* the keys' common start, "d/" */
	bale_store_entry_fn fn;
	bale_store_object_fn obj;
	void *arg;
	int any;		/* something lies under the prefix */
	int deep;
};

static int s3_walk_entry(void *arg, const struct bale_s3_entry *e)
{
	struct s3_walk *w = arg;
	size_t pre = strlen(w->prefix);
	char entry[S3_KEY_MAX + 1];
	struct bale_store_object o = { entry, e->size, e->etag };

	w->any = 1;
	if (strncmp(e->key, w->prefix, pre) != 0 || !e->key[pre])
		return 0;	/* the folder's own marker object, "d/" */
	snprintf(entry, sizeof(entry), "%s", e->key + pre);
	if (e->is_prefix)
		entry[strcspn(entry, "/")] = '\0';
	if (w->obj)	/* a folder's marker below it ("d/sub/") is none */
		return entry[strlen(entry) - 1] == '/' ? 0 : w->obj(w->arg, &o);
	return w->fn ? w->fn(w->arg, entry, e->is_prefix) : 0;
}

/* The ListObjectsV2 query for @w's prefix, after @token ("": first):
 * one level ("/" the delimiter), or every key under it (@w->deep). */
static char *s3_list_query(const struct s3_walk *w, const char *token,
    int max_keys)
{
	char *pre = bale_http_escape(w->prefix, 0);
	char *tok = bale_http_escape(token, 0);
	char *q = pre && tok ? bale_strfmt("?continuation-token=%s%s"
	    "&list-type=2&max-keys=%d&prefix=%s", tok, w->deep ? "" :
	    "&delimiter=%2F", max_keys, pre) : NULL;

	free(pre);
	free(tok);
	return q;
}

/* One page of the listing (after @l->next_token), entries to @w. */
static int s3_list_page(const char *name, const struct bale_aws *a,
    const struct s3_name *n, struct s3_walk *w, struct bale_s3_listing *l,
    int max_keys, struct bale_errbuf *err)
{
	struct bale_buf body = BALE_BUF_INIT;
	char *query = s3_list_query(w, l->next_token, max_keys);
	char *url = query ? s3_url(a, n, "", query) : NULL;
	struct bale_http_req q = { "GET", url, a, 0, NULL, 0, &body, 0, NULL,
	    0, NULL, NULL };
	struct bale_http_resp r;
	int rc = url ? bale_http_do(&q, &r, err) :
	    bale_errbuf_set(err, BALE_ENOMEM, "no memory");

	if (rc == BALE_OK && r.status != 200)
		rc = bale_remote_failed(name, url, a, &r, &body, err);
	if (rc == BALE_OK &&
	    bale_s3_xml_list(body.data, body.len, s3_walk_entry, w, l) != 0)
		rc = bale_errbuf_set(err, BALE_EIO, "'%s': the listing's "
		    "answer is not a ListObjectsV2 result", name);
	if (rc == BALE_OK && l->stopped)
		rc = l->stopped;
	if (rc == BALE_OK && l->truncated && !l->next_token[0])
		rc = bale_errbuf_set(err, BALE_EIO, "'%s': a listing said it "
		    "goes on but gave no continuation token", name);
	bale_buf_release(&body);
	free(url);
	free(query);
	return rc;
}

/* Every page under @w's prefix (@max_keys a page; one page only when
 * @one). */
static int s3_list_prefix(const char *name, const struct s3_name *n,
    struct s3_walk *w, int max_keys, int one, struct bale_errbuf *err)
{
	struct bale_s3_listing l;
	struct bale_aws a;
	int rc = bale_aws_resolve(&a, err);

	memset(&l, 0, sizeof(l));
	while (rc == BALE_OK) {
		rc = s3_list_page(name, &a, n, w, &l, max_keys, err);
		if (rc != BALE_OK || !l.truncated || one)
			break;
		l.truncated = 0;
	}
	return rc;
}

/* "@key/" unless it is "" or ends in '/'. NULL without memory. */
static char *s3_dir_prefix(const char *key)
{
	size_t len = strlen(key);

	return bale_strfmt("%s%s", key, len && key[len - 1] != '/' ? "/" : "");
}

/* The entries under @dir: one level, or every key (@deep). */
static int s3_list_under(const char *dir, struct s3_walk *w,
    struct bale_errbuf *err)
{
	struct s3_name n;
	char *prefix;
	int rc = s3_parse(dir, &n, err);

	if (rc != BALE_OK)
		return rc;
	prefix = s3_dir_prefix(n.key);
	if (!prefix)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	w->prefix = prefix;
	rc = s3_list_prefix(dir, &n, w, 1000, 0, err);
	if (rc == BALE_OK && !w->any && prefix[0])
		rc = bale_errbuf_set(err, BALE_ENOENT, "'%s': nothing lies "
		    "under this prefix", dir);
	free(prefix);
	return rc;
}

static int s3_list(const char *dir, bale_store_entry_fn fn, void *arg,
    struct bale_errbuf *err)
{
	struct s3_walk w = { NULL, fn, NULL, arg, 0, 0 };

	return s3_list_under(dir, &w, err);
}

/* Is there anything under "@key/"? (1, 0, or an error) */
static int s3_is_prefix(const char *name, const struct s3_name *n,
    struct bale_errbuf *err)
{
	char *prefix = s3_dir_prefix(n->key);
	struct s3_walk w = { prefix, NULL, NULL, NULL, 0, 0 };
	int rc = prefix ? s3_list_prefix(name, n, &w, 1, 1, err) :
	    bale_errbuf_set(err, BALE_ENOMEM, "no memory");

	free(prefix);
	return rc == BALE_OK ? w.any : rc;
}

/* Object @name taken apart in @n, its credentials in @a, its URL in
 * *@url (to free). */
static int s3_object(const char *name, struct s3_name *n,
    struct bale_aws *a, char **url, struct bale_errbuf *err)
{
	int rc = s3_parse(name, n, err);

	if (rc == BALE_OK)
		rc = bale_aws_resolve(a, err);
	if (rc != BALE_OK)
		return rc;
	*url = s3_url(a, n, n->key, "");
	return *url ? BALE_OK : bale_errbuf_set(err, BALE_ENOMEM, "no memory");
}

static int s3_open(const char *name, void **h, uint64_t *size,
    struct bale_errbuf *err)
{
	struct s3_name n;
	struct bale_aws a;
	char *url;
	int rc = s3_object(name, &n, &a, &url, err);

	if (rc != BALE_OK)
		return rc;
	rc = bale_remote_open(name, url, &a, h, size, err);
	/* a HEAD's failure has no body to say why: the bucket's listing
	 * tells a missing bucket and refused credentials apart */
	if (rc == BALE_ENOENT || rc == BALE_EAUTH) {
		int why = s3_is_prefix(name, &n, err);

		if (why >= 0)
			rc = rc == BALE_ENOENT ? bale_errbuf_set(err,
			    BALE_ENOENT, "'%s': no such object%s", name,
			    why ? " (a prefix: name a file under it)" : "") :
			    rc;
		else
			rc = why;
	}
	return rc;
}

static int s3_open_known(const char *name, void **h,
    struct bale_errbuf *err)
{
	struct s3_name n;
	struct bale_aws a;
	char *url = NULL;
	int rc = s3_object(name, &n, &a, &url, err);

	return rc == BALE_OK ? bale_remote_open_known(name, url, &a, h, err) :
	    rc;
}

static int s3_stat(const char *name, struct bale_store_stat *st,
    struct bale_errbuf *err)
{
	struct s3_name n;
	size_t len = strlen(name);
	uint64_t size;
	void *h;
	int rc = s3_parse(name, &n, err);

	if (rc != BALE_OK)
		return rc;
	if (n.key[0] && name[len - 1] != '/') {
		rc = s3_open(name, &h, &size, err);
		if (rc == BALE_OK) {
			snprintf(st->tag, sizeof(st->tag), "%s",
			    ((struct remote_file *)h)->etag);
			bale_remote_close(h);
			st->size = size;
			return BALE_OK;
		}
		if (rc != BALE_ENOENT)
			return rc;
	}
	rc = s3_is_prefix(name, &n, err);
	if (rc == 1 || (rc == 0 && !n.key[0]))
		st->is_dir = 1;
	else if (rc == 0)
		rc = bale_errbuf_set(err, BALE_ENOENT, "'%s': no such object "
		    "or prefix", name);
	return rc < 0 ? rc : BALE_OK;
}

/* Every object under @dir, at any depth, named from @dir on. */
static int s3_walk_all(const char *dir, bale_store_object_fn fn, void *arg,
    struct bale_errbuf *err)
{
	struct s3_walk w = { NULL, NULL, fn, arg, 0, 1 };

	return s3_list_under(dir, &w, err);
}

/* The object in one GET (not a HEAD, then a GET). */
static int s3_read_all(const char *name, char **data, size_t *len,
    struct bale_errbuf *err)
{
	struct bale_aws a;
	struct s3_name n;
	char *url = NULL;
	int rc = s3_object(name, &n, &a, &url, err);

	if (rc == BALE_OK)
		rc = bale_remote_get_all(name, url, &a, data, len, err);
	free(url);
	return rc;
}

/* ---- writing ------------------------------------------------------------ */

static int s3_wopen(const char *name, void **h, struct bale_errbuf *err)
{
	struct s3_name n;
	struct bale_aws a;
	char *url = NULL;
	int rc = s3_object(name, &n, &a, &url, err);

	if (rc == BALE_OK && !n.key[0])
		rc = bale_errbuf_set(err, BALE_EINVAL, "'%s': a bucket, not "
		    "an object's name", name);
	if (rc == BALE_OK)
		rc = bale_mpu_open((struct bale_mpu **)h, name, url, &a,
		    err);
	free(url);
	return rc;
}

static int s3_wwrite(void *h, const void *p, size_t n,
    struct bale_errbuf *err)
{
	return bale_mpu_write(h, p, n, err);
}

static int s3_wfinish(void *h, struct bale_errbuf *err)
{
	return bale_mpu_finish(h, err);
}

static void s3_wabort(void *h)
{
	bale_mpu_abort(h);
}

static int s3_remove(const char *name, struct bale_errbuf *err)
{
	struct bale_buf body = BALE_BUF_INIT;
	struct bale_http_resp r;
	struct s3_name n;
	struct bale_aws a;
	char *url = NULL;
	int rc = s3_object(name, &n, &a, &url, err);
	struct bale_http_req q = { "DELETE", url, &a, 0, NULL, 0, &body, 0,
	    NULL, 0, NULL, NULL };

	if (rc == BALE_OK)
		rc = bale_http_do(&q, &r, err);
	if (rc == BALE_OK && r.status != 204 && r.status != 200 &&
	    r.status != 404)
		rc = bale_remote_failed(name, url, q.sign, &r, &body, err);
	bale_buf_release(&body);
	free(url);
	return rc;
}

/* CopyObject: @to made by the store from @from (up to 5 GiB), no byte
 * through here. Its answer may be a 200 whose document is an error (a
 * copy that failed on its way): only a CopyObjectResult with an ETag
 * is a copy made. */
static int s3_copy(const char *from, const char *to, struct bale_errbuf *err)
{
	struct bale_buf body = BALE_BUF_INIT;
	struct bale_http_resp r;
	struct s3_name src, n;
	struct bale_aws a;
	char etag[80], *url = NULL, *key = NULL, *source = NULL;
	int rc = s3_parse(from, &src, err);
	struct bale_http_req q = { "PUT", NULL, &a, 0, NULL, 0, &body, 0,
	    NULL, 0, NULL, NULL };

	if (rc == BALE_OK)
		rc = s3_object(to, &n, &a, &url, err);
	key = rc == BALE_OK ? bale_http_escape(src.key, 1) : NULL;
	source = key ? bale_strfmt("/%s/%s", src.bucket, key) : NULL;
	if (rc == BALE_OK && !source)
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	q.url = url;
	q.copy_source = source;
	if (rc == BALE_OK)
		rc = bale_http_do(&q, &r, err);
	if (rc == BALE_OK && r.status != 200)
		rc = bale_remote_failed(to, url, q.sign, &r, &body, err);
	else if (rc == BALE_OK && !bale_s3_xml_field(body.data, body.len,
	    "CopyObjectResult", "ETag", etag, sizeof(etag)))
		rc = bale_errbuf_set(err, BALE_EIO, "'%s': the store did not "
		    "finish copying '%s' into it", to, from);
	bale_buf_release(&body);
	free(source);
	free(key);
	free(url);
	return rc;
}

/* The bucket of @dir is there (a listing of it answers). */
static int s3_writable(const char *dir, struct bale_errbuf *err)
{
	struct s3_name n;
	int rc = s3_parse(dir, &n, err);

	if (rc != BALE_OK)
		return rc;
	n.key = "";
	rc = s3_is_prefix(dir, &n, err);
	return rc < 0 ? rc : BALE_OK;
}

/* One page of the uploads in progress under @prefix: each aborted. */
struct s3_clean {
	const char *name;	/* the prefix, as the user names it */
	const struct s3_name *n;
	const struct bale_aws *a;
	struct bale_errbuf *err;
};

static int s3_clean_one(void *arg, const char *key, const char *upload_id)
{
	struct s3_clean *c = arg;
	struct s3_name obj = *c->n;
	char *url, *name;
	int rc;

	obj.key = key;
	url = s3_url(c->a, &obj, key, "");
	name = bale_strfmt("s3://%s/%s", obj.bucket, key);
	rc = url && name ? bale_mpu_abort_id(name, url, c->a, upload_id,
	    c->err) : bale_errbuf_set(c->err, BALE_ENOMEM, "no memory");
	free(url);
	free(name);
	return rc;
}

/* ListMultipartUploads under @n's key, a page at a time. */
static int s3_clean_pages(struct s3_clean *c, char *key_at, char *id_at)
{
	struct bale_buf body = BALE_BUF_INIT;
	char *pre = bale_http_escape(c->n->key, 0);
	char *km = bale_http_escape(key_at, 0);
	char *im = bale_http_escape(id_at, 0);
	char *query = pre && km && im ? bale_strfmt("?key-marker=%s&prefix=%s"
	    "&upload-id-marker=%s&uploads=", km, pre, im) : NULL;
	char *url = query ? s3_url(c->a, c->n, "", query) : NULL;
	struct bale_http_req q = { "GET", url, c->a, 0, NULL, 0, &body, 0,
	    NULL, 0, NULL, NULL };
	struct bale_http_resp r;
	int more = 0;
	int rc = url ? bale_http_do(&q, &r, c->err) :
	    bale_errbuf_set(c->err, BALE_ENOMEM, "no memory");

	if (rc == BALE_OK && r.status != 200)
		rc = bale_remote_failed(c->name, url, c->a, &r, &body, c->err);
	else if (rc == BALE_OK && bale_s3_xml_uploads(body.data, body.len,
	    s3_clean_one, c, &more, key_at, id_at) != 0)
		rc = bale_errbuf_set(c->err, BALE_EIO, "'%s': the answer to "
		    "a listing of uploads is not one", c->name);
	if (rc == BALE_OK && more && !key_at[0])
		rc = bale_errbuf_set(c->err, BALE_EIO, "'%s': a listing of "
		    "uploads said it goes on but not from where", c->name);
	bale_buf_release(&body);
	free(url);
	free(query);
	free(pre);
	free(km);
	free(im);
	return rc == BALE_OK && more ? 1 : rc;
}

static int s3_clean(const char *prefix, struct bale_errbuf *err)
{
	char key_at[S3_KEY_MAX + 1] = "", id_at[S3_KEY_MAX + 1] = "";
	struct s3_name n;
	struct bale_aws a;
	struct s3_clean c = { prefix, &n, &a, err };
	int rc = s3_parse(prefix, &n, err);

	if (rc == BALE_OK)
		rc = bale_aws_resolve(&a, err);
	while (rc == BALE_OK && (rc = s3_clean_pages(&c, key_at, id_at)) == 1)
		rc = BALE_OK;	/* another page */
	return rc;
}

const struct bale_store bale_store_s3 = {
	.name = "s3",
	.claims = s3_claims,
	.open = s3_open,
	.open_known = s3_open_known,
	.read = bale_remote_read,
	.close = bale_remote_close,
	.request = bale_remote_request,
	.stat = s3_stat,
	.list = s3_list,
	.walk = s3_walk_all,
	.read_all = s3_read_all,
	.wopen = s3_wopen,
	.wwrite = s3_wwrite,
	.wfinish = s3_wfinish,
	.wabort = s3_wabort,
	.remove = s3_remove,
	.writable = s3_writable,
	.clean = s3_clean,
	.copy = s3_copy,
};
