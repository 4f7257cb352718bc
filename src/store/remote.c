/* remote.c - a file behind a URL: its size from a HEAD, its bytes by
 * ranged GETs (one GET a read), and what a failed answer means. */
#include "remote.h"

#include "s3_xml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* " (Code: message)" from an S3 error body, or "". */
static void remote_detail(const struct bale_buf *body, char *out,
    size_t cap)
{
	struct bale_s3_error e;

	out[0] = '\0';
	if (body && body->len &&
	    bale_s3_xml_error(body->data, body->len, &e))
		snprintf(out, cap, " (%s%s%s)", e.code,
		    e.message[0] ? ": " : "", e.message);
}

static int remote_auth_failed(const char *name, const char *host,
    const struct bale_aws *aws, const char *detail, struct bale_errbuf *err)
{
	if (!aws)	/* a plain URL: no credentials are sent */
		return bale_errbuf_set(err, BALE_EAUTH, "'%s': %s refused "
		    "access%s", name, host, detail);
	if (!aws->key_id[0])
		return bale_errbuf_set(err, BALE_EAUTH, "'%s': %s refused an "
		    "unsigned request%s: no AWS credentials were found (the "
		    "environment, ~/.aws/credentials, ~/.aws/config)", name,
		    host, detail);
	return bale_errbuf_set(err, BALE_EAUTH, "'%s': %s refused key id "
	    "%s (from %s)%s", name, host, aws->key_id, aws->source, detail);
}

int bale_remote_failed(const char *name, const char *url,
    const struct bale_aws *aws, const struct bale_http_resp *r,
    const struct bale_buf *body, struct bale_errbuf *err)
{
	char detail[400];
	char host[256];

	bale_http_host(url, host, sizeof(host));
	remote_detail(body, detail, sizeof(detail));
	if (r->status == 401 || r->status == 403)
		return remote_auth_failed(name, host, aws, detail, err);
	if (r->status == 404 && strstr(detail, "NoSuchBucket"))
		return bale_errbuf_set(err, BALE_ENOENT, "'%s': no such bucket "
		    "at %s%s", name, host, detail);
	if (r->status == 404)
		return bale_errbuf_set(err, BALE_ENOENT, "'%s': no such object "
		    "at %s%s", name, host, detail);
	return bale_errbuf_set(err, BALE_EIO, "'%s': %s answered status %ld%s",
	    name, host, r->status, detail);
}

/* A handle for @url (taken), known as @name. NULL without memory. */
static struct remote_file *remote_new(const char *name, char *url,
    const struct bale_aws *aws)
{
	struct remote_file *f = calloc(1, sizeof(*f));

	if (f)
		f->name = strdup(name);
	if (!f || !f->name) {
		free(url);
		free(f);
		return NULL;
	}
	f->url = url;
	f->signed_ = aws != NULL;
	if (aws)
		f->aws = *aws;
	return f;
}

int bale_remote_open(const char *name, char *url, const struct bale_aws *aws,
    void **h, uint64_t *size, struct bale_errbuf *err)
{
	struct remote_file *f = remote_new(name, url, aws);
	struct bale_http_req q;
	struct bale_http_resp r;
	int rc;

	if (!f)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	q = (struct bale_http_req){ "HEAD", f->url, aws, 0, NULL, 0, NULL, 0,
	    NULL, 0, NULL, NULL };
	rc = bale_http_do(&q, &r, err);
	if (rc == BALE_OK && r.status != 200)
		rc = bale_remote_failed(name, url, aws, &r, NULL, err);
	if (rc == BALE_OK && !r.has_length)
		rc = bale_errbuf_set(err, BALE_EIO, "'%s': the answer to HEAD "
		    "gave no size", name);
	if (rc != BALE_OK) {
		bale_remote_close(f);
		return rc;
	}
	*size = r.length;
	snprintf(f->etag, sizeof(f->etag), "%s", r.etag);
	*h = f;
	return BALE_OK;
}

int bale_remote_open_known(const char *name, char *url,
    const struct bale_aws *aws, void **h, struct bale_errbuf *err)
{
	struct remote_file *f = remote_new(name, url, aws);

	if (!f)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	*h = f;
	return BALE_OK;
}

int bale_remote_read(void *h, const struct iovec *iov, int iovcnt,
    uint64_t off, struct bale_errbuf *err)
{
	struct remote_file *f = h;
	struct bale_buf body = BALE_BUF_INIT;
	struct bale_http_req q = { "GET", f->url, f->signed_ ? &f->aws : NULL,
	    off, iov, iovcnt, &body, 0, NULL, 0, NULL, NULL };
	struct bale_http_resp r;
	int rc = bale_http_do(&q, &r, err);

	if (rc == BALE_OK && (r.status < 200 || r.status >= 300))
		rc = bale_remote_failed(f->name, f->url, q.sign, &r, &body,
		    err);
	bale_buf_release(&body);
	return rc;
}

int bale_remote_get_all(const char *name, const char *url,
    const struct bale_aws *aws, char **data, size_t *n,
    struct bale_errbuf *err)
{
	struct bale_buf body = BALE_BUF_INIT;
	struct bale_http_req q = { "GET", url, aws, 0, NULL, 0, &body,
	    SIZE_MAX / 2, NULL, 0, NULL, NULL };
	struct bale_http_resp r;
	int rc = bale_http_do(&q, &r, err);

	if (rc == BALE_OK && r.status != 200)
		rc = bale_remote_failed(name, url, aws, &r, &body, err);
	if (rc == BALE_OK)
		bale_buf_add(&body, "", 1);
	if (rc == BALE_OK && body.failed)
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	if (rc != BALE_OK) {
		bale_buf_release(&body);
		return rc;
	}
	*n = body.len - 1;
	*data = body.data;
	return BALE_OK;
}

void bale_remote_close(void *h)
{
	struct remote_file *f = h;

	if (!f)
		return;
	free(f->name);
	free(f->url);
	free(f);
}

void bale_remote_request(void *h, const char **url,
    const struct bale_aws **sign)
{
	const struct remote_file *f = h;

	*url = f->url;
	*sign = f->signed_ ? &f->aws : NULL;
}
