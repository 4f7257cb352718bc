/* multipart.c - an object written into S3 front to back, as a writer
 * makes it (see multipart.h).
 *
 * The writer fills a part (8 MiB by default); a full part goes to the
 * senders, threads that each PUT one part at a time with its
 * Content-MD5 (the store refuses bytes that do not match it) and check
 * the ETag S3 answers (the part's MD5), while the writer fills the next.
 * At most in_flight parts are queued or on their way: memory is
 * (in_flight + 1) x part size. An object smaller than a part goes in one
 * PUT. Finishing sends the last part and completes the upload, checking
 * the whole's ETag (the MD5 of the parts' MD5s, "-" their count); an
 * answer to the completion that was lost, retried, finds the upload
 * gone and the object there: its ETag says whether it is this one. A
 * failure aborts the upload, so its parts do not linger (and are not
 * billed); a killed run's are aborted by the next (bale_store_clean()).
 * Requests are signed as unsigned payloads: the MD5s check the bytes.
 */
#include "multipart.h"

#include "remote.h"
#include "s3_xml.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	pthread_mutex_t lock;
	size_t part_size;
	unsigned in_flight;
} mpu_conf = { PTHREAD_MUTEX_INITIALIZER, BALE_MPU_PART_DEFAULT,
	BALE_MPU_IN_FLIGHT_DEFAULT };

/* Answers to a CreateMultipartUpload that hold no id, asked again. */
#define MPU_BEGIN_TRIES 4

struct mpu_part {
	unsigned char *buf;
	size_t len;
	unsigned no;		/* from 1 */
};

struct bale_mpu {
	char *name;
	char *url;
	struct bale_aws aws;
	const struct bale_aws *sign;	/* &aws, or NULL */
	size_t part_size;
	unsigned in_flight;
	char upload_id[S3_KEY_MAX + 1];	/* "": none begun */
	unsigned char *fill;	/* the part being filled */
	size_t fill_len;
	unsigned parts;		/* handed to the senders */
	unsigned char (*md5)[16];	/* each part's, once sent */
	size_t md5_cap;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct mpu_part *queue;	/* a ring of in_flight */
	unsigned qhead, qlen;
	unsigned busy;		/* parts queued or on their way */
	unsigned char **spare;	/* buffers free to fill */
	unsigned nspare;
	pthread_t *threads;
	unsigned nthreads;
	int closing;
	int failed;
	struct bale_errbuf err;	/* the first part's failure */
};

void bale_mpu_configure(size_t part_size, unsigned in_flight)
{
	pthread_mutex_lock(&mpu_conf.lock);
	if (part_size)
		mpu_conf.part_size = part_size;
	if (in_flight)
		mpu_conf.in_flight = in_flight;
	pthread_mutex_unlock(&mpu_conf.lock);
}

void bale_mpu_settings(size_t *part_size, unsigned *in_flight)
{
	pthread_mutex_lock(&mpu_conf.lock);
	*part_size = mpu_conf.part_size;
	*in_flight = mpu_conf.in_flight;
	pthread_mutex_unlock(&mpu_conf.lock);
}

/* ---- digests ------------------------------------------------------------ */

static void mpu_md5(const void *p, size_t n, unsigned char out[16])
{
	unsigned len = 16;

	EVP_Digest(p, n, out, &len, EVP_md5(), NULL);
}

static void mpu_hex(const unsigned char *md5, char out[33])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 16; i++) {
		out[2 * i] = digits[md5[i] >> 4];
		out[2 * i + 1] = digits[md5[i] & 15];
	}
	out[32] = '\0';
}

/* @etag (as a header or XML gives it, quoted or not) against @want. */
static int mpu_etag_is(const char *etag, const char *want)
{
	size_t n = strlen(want);

	while (*etag == ' ' || *etag == '"')
		etag++;
	return strncmp(etag, want, n) == 0 && (etag[n] == '"' || !etag[n]);
}

/* ---- one request -------------------------------------------------------- */

/* A request about @u that got no usable answer: its object named, and
 * for one that sent bytes, the likely cause of a store that stopped
 * answering writes (a Ceph cluster whose OSDs are full holds them). */
static int mpu_no_answer(const struct bale_mpu *u, int sent,
    struct bale_errbuf *err)
{
	char why[sizeof(err->msg)];

	snprintf(why, sizeof(why), "%s", err->msg);
	return bale_errbuf_set(err, BALE_EIO, "'%s': %.300s%s", u->name, why,
	    sent && strstr(why, "too slow") ? " (a store that holds writes "
	    "without answering may be full)" : "");
}

/* @method of @u's URL with @query, sending @len bytes at @data (with
 * their MD5 when @md5), its answer's body into @body. */
static int mpu_send(struct bale_mpu *u, const char *method, const char *query,
    const void *data, size_t len, const unsigned char *md5,
    struct bale_buf *body, struct bale_http_resp *r, struct bale_errbuf *err)
{
	char *url = bale_strfmt("%s%s", u->url, query);
	unsigned char b64[32];
	struct bale_http_req q = { method, url, u->sign, 0, NULL, 0, body, 0,
	    data, len, md5 ? (const char *)b64 : NULL, NULL };
	int rc;

	if (!url)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	if (md5)
		EVP_EncodeBlock(b64, md5, 16);
	rc = bale_http_do(&q, r, err);
	free(url);
	return rc == BALE_EIO ? mpu_no_answer(u, data != NULL, err) : rc;
}

/* A failed answer @r to a request about @u, in words. */
static int mpu_failed(const struct bale_mpu *u, const struct bale_http_resp *r,
    const struct bale_buf *body, struct bale_errbuf *err)
{
	return bale_remote_failed(u->name, u->url, u->sign, r, body, err);
}

/* CreateMultipartUpload: the upload's id. An answer cut short (a
 * dropped connection whose answer had no length) is asked again; an
 * upload it began is left to bale_store_clean(). */
static int mpu_begin(struct bale_mpu *u, struct bale_errbuf *err)
{
	struct bale_buf body = BALE_BUF_INIT;
	struct bale_http_resp r;
	int tries, rc = BALE_OK;

	for (tries = 0; rc == BALE_OK && !u->upload_id[0] &&
	    tries < MPU_BEGIN_TRIES; tries++) {
		rc = mpu_send(u, "POST", "?uploads=", NULL, 0, NULL, &body,
		    &r, err);
		if (rc == BALE_OK && r.status != 200)
			rc = mpu_failed(u, &r, &body, err);
		else if (rc == BALE_OK && !bale_s3_xml_field(body.data,
		    body.len, "InitiateMultipartUploadResult", "UploadId",
		    u->upload_id, sizeof(u->upload_id)))
			u->upload_id[0] = '\0';
	}
	if (rc == BALE_OK && !u->upload_id[0])
		rc = bale_errbuf_set(err, BALE_EIO, "'%s': the store's answers "
		    "to a multipart upload held no upload id", u->name);
	bale_buf_release(&body);
	return rc;
}

/* "?partNumber=N&uploadId=ID" (sorted, as the signature wants them). */
static char *mpu_query(const struct bale_mpu *u, unsigned no)
{
	char *id = bale_http_escape(u->upload_id, 0);
	char *q = id ? (no ? bale_strfmt("?partNumber=%u&uploadId=%s", no,
	    id) : bale_strfmt("?uploadId=%s", id)) : NULL;

	free(id);
	return q;
}

/* "part N: " for part @no, "" for the whole object (0). */
static const char *mpu_part_name(unsigned no, char *buf, size_t size)
{
	buf[0] = '\0';
	if (no)
		snprintf(buf, size, "part %u: ", no);
	return buf;
}

/* PUT @len bytes at @buf as part @no of the upload, or as the whole
 * object when @no is 0; their MD5 in @md5, kept for the completion.
 * The ETag the store answers must be that MD5 (a whole object's may be
 * left out). */
static int mpu_put(struct bale_mpu *u, unsigned no, const unsigned char *buf,
    size_t len, unsigned char md5[16], struct bale_errbuf *err)
{
	struct bale_buf body = BALE_BUF_INIT;
	char *query = no ? mpu_query(u, no) : strdup("");
	struct bale_http_resp r;
	char hex[33], part[32];
	int rc;

	if (!query)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	mpu_md5(buf, len, md5);
	mpu_hex(md5, hex);
	rc = mpu_send(u, "PUT", query, buf, len, md5, &body, &r, err);
	if (rc == BALE_OK && r.status != 200)
		rc = mpu_failed(u, &r, &body, err);
	else if (rc == BALE_OK && (no || r.etag[0]) &&
	    !mpu_etag_is(r.etag, hex))
		rc = bale_errbuf_set(err, BALE_EIO, "'%s': %sthe store holds "
		    "other bytes than were sent (ETag %s, MD5 %s)", u->name,
		    mpu_part_name(no, part, sizeof(part)), r.etag, hex);
	bale_buf_release(&body);
	free(query);
	return rc;
}

/* ---- the senders -------------------------------------------------------- */

/* A part sent (or failed: the first failure is kept), its buffer
 * free. Under the lock. */
static void mpu_part_done(struct bale_mpu *u, const struct mpu_part *p,
    const unsigned char *md5, int rc, const struct bale_errbuf *err)
{
	if (rc == BALE_OK)
		memcpy(u->md5[p->no - 1], md5, 16);
	else if (!u->failed) {
		u->failed = rc;
		bale_errbuf_copy(&u->err, err);
	}
	u->spare[u->nspare++] = p->buf;
	u->busy--;
	pthread_cond_broadcast(&u->changed);
}

static void *mpu_sender(void *arg)
{
	struct bale_mpu *u = arg;
	struct bale_errbuf err;
	unsigned char md5[16];
	struct mpu_part p;
	int rc;

	pthread_mutex_lock(&u->lock);
	for (;;) {
		while (u->qlen == 0 && !u->closing)
			pthread_cond_wait(&u->changed, &u->lock);
		if (u->qlen == 0)
			break;
		p = u->queue[u->qhead];
		u->qhead = (u->qhead + 1) % u->in_flight;
		u->qlen--;
		rc = u->failed;	/* after a failure, parts are let go */
		pthread_mutex_unlock(&u->lock);
		if (rc == BALE_OK)
			rc = mpu_put(u, p.no, p.buf, p.len, md5, &err);
		pthread_mutex_lock(&u->lock);
		mpu_part_done(u, &p, md5, rc, &err);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

static int mpu_start_senders(struct bale_mpu *u, struct bale_errbuf *err)
{
	u->threads = calloc(u->in_flight, sizeof(*u->threads));
	if (!u->threads)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	for (; u->nthreads < u->in_flight; u->nthreads++)
		if (pthread_create(&u->threads[u->nthreads], NULL, mpu_sender,
		    u) != 0)
			break;
	return u->nthreads ? BALE_OK : bale_errbuf_set(err, BALE_ENOMEM,
	    "cannot start a thread to upload with");
}

/* Hand the filled part over (the upload begun first), and take a
 * buffer to fill next, waiting while in_flight parts are on their way. */
static int mpu_hand(struct bale_mpu *u, struct bale_errbuf *err)
{
	struct mpu_part p = { u->fill, u->fill_len, u->parts + 1 };
	int rc = BALE_OK;

	if (p.no > BALE_MPU_PARTS_MAX)
		return bale_errbuf_set(err, BALE_EINVAL, "'%s': over %d "
		    "parts of %zu bytes: a larger part size is needed",
		    u->name, BALE_MPU_PARTS_MAX, u->part_size);
	if (!u->upload_id[0] && (rc = mpu_begin(u, err)) != BALE_OK)
		return rc;
	if (!u->threads && (rc = mpu_start_senders(u, err)) != BALE_OK)
		return rc;
	if (bale_grow_array((void **)&u->md5, &u->md5_cap, p.no,
	    sizeof(*u->md5)) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	pthread_mutex_lock(&u->lock);
	while (u->busy >= u->in_flight && !u->failed)
		pthread_cond_wait(&u->changed, &u->lock);
	if (!u->failed) {
		u->queue[(u->qhead + u->qlen) % u->in_flight] = p;
		u->qlen++;
		u->busy++;
		u->parts++;
		u->fill = u->nspare ? u->spare[--u->nspare] : NULL;
		pthread_cond_broadcast(&u->changed);
	}
	rc = u->failed;
	if (rc)
		bale_errbuf_copy(err, &u->err);
	pthread_mutex_unlock(&u->lock);
	if (rc != BALE_OK)
		return rc;
	u->fill_len = 0;
	if (!u->fill)
		u->fill = malloc(u->part_size);
	return u->fill ? BALE_OK : bale_errbuf_set(err, BALE_ENOMEM,
	    "no memory");
}

/* ---- the writer's side -------------------------------------------------- */

int bale_mpu_open(struct bale_mpu **out, const char *name, const char *url,
    const struct bale_aws *aws, struct bale_errbuf *err)
{
	struct bale_mpu *u = calloc(1, sizeof(*u));

	*out = NULL;
	if (!u)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	bale_mpu_settings(&u->part_size, &u->in_flight);
	u->name = strdup(name);
	u->url = strdup(url);
	u->queue = calloc(u->in_flight, sizeof(*u->queue));
	u->spare = calloc(u->in_flight + 1, sizeof(*u->spare));
	u->fill = malloc(u->part_size);
	if (aws) {
		u->aws = *aws;
		u->sign = &u->aws;
	}
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->changed, NULL);
	*out = u;
	if (!u->name || !u->url || !u->queue || !u->spare || !u->fill) {
		bale_mpu_abort(u);
		*out = NULL;
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	return BALE_OK;
}

int bale_mpu_write(struct bale_mpu *u, const void *p, size_t n,
    struct bale_errbuf *err)
{
	const unsigned char *from = p;
	size_t k;
	int rc;

	while (n > 0) {
		if (u->fill_len == u->part_size &&
		    (rc = mpu_hand(u, err)) != BALE_OK)
			return rc;
		k = u->part_size - u->fill_len;
		k = k < n ? k : n;
		memcpy(u->fill + u->fill_len, from, k);
		u->fill_len += k;
		from += k;
		n -= k;
	}
	return BALE_OK;
}

/* Wait for every part handed over. @return the first failure */
static int mpu_drain(struct bale_mpu *u, struct bale_errbuf *err)
{
	int rc;

	pthread_mutex_lock(&u->lock);
	while (u->busy > 0)
		pthread_cond_wait(&u->changed, &u->lock);
	rc = u->failed;
	if (rc)
		bale_errbuf_copy(err, &u->err);
	pthread_mutex_unlock(&u->lock);
	return rc;
}

/* The completion's body, and the ETag the whole must have. */
static int mpu_complete_body(const struct bale_mpu *u, struct bale_buf *b,
    char *etag, size_t cap)
{
	unsigned char whole[16];
	char hex[33];
	unsigned i;

	bale_buf_puts(b, "<CompleteMultipartUpload>");
	for (i = 0; i < u->parts; i++) {
		mpu_hex(u->md5[i], hex);
		bale_buf_printf(b, "<Part><PartNumber>%u</PartNumber>"
		    "<ETag>\"%s\"</ETag></Part>", i + 1, hex);
	}
	bale_buf_puts(b, "</CompleteMultipartUpload>");
	mpu_md5(u->md5, (size_t)u->parts * 16, whole);
	mpu_hex(whole, hex);
	snprintf(etag, cap, "%s-%u", hex, u->parts);
	return b->failed ? -1 : 0;
}

/* Is the object the one completed (with ETag @etag)? Asked when the
 * completion's answer does not say (an answer lost, and its retry
 * found the upload gone; or no ETag in it). */
static int mpu_completed_before(struct bale_mpu *u, const char *etag,
    struct bale_errbuf *err)
{
	struct bale_http_req q = { "HEAD", u->url, u->sign, 0, NULL, 0, NULL,
	    0, NULL, 0, NULL, NULL };
	struct bale_http_resp r;
	int rc = bale_http_do(&q, &r, err);

	if (rc == BALE_OK && r.status == 200 && mpu_etag_is(r.etag, etag))
		return BALE_OK;
	return rc != BALE_OK ? rc : bale_errbuf_set(err, BALE_EIO, "'%s': "
	    "the object is not the parts sent (ETag %s, expected %s)",
	    u->name, r.status == 200 ? r.etag : "none", etag);
}

/* CompleteMultipartUpload, its answer checked (an error may come in a
 * 200's body). */
static int mpu_complete(struct bale_mpu *u, struct bale_errbuf *err)
{
	struct bale_buf req = BALE_BUF_INIT, body = BALE_BUF_INIT;
	char *query = mpu_query(u, 0);
	char etag[48], got[S3_ETAG_MAX + 1];
	struct bale_s3_error e;
	struct bale_http_resp r;
	int rc = BALE_OK;

	if (!query || mpu_complete_body(u, &req, etag, sizeof(etag)) != 0)
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	if (rc == BALE_OK)
		rc = mpu_send(u, "POST", query, req.data, req.len, NULL, &body,
		    &r, err);
	got[0] = '\0';
	if (rc == BALE_OK && r.status == 404 && r.attempts > 1)
		rc = mpu_completed_before(u, etag, err);
	else if (rc == BALE_OK && (r.status != 200 ||
	    bale_s3_xml_error(body.data, body.len, &e)))
		rc = mpu_failed(u, &r, &body, err);
	else if (rc == BALE_OK && (!bale_s3_xml_field(body.data, body.len,
	    "CompleteMultipartUploadResult", "ETag", got, sizeof(got)) ||
	    !got[0]))	/* cut short; or Ceph's RGW, which gives none */
		rc = mpu_completed_before(u, etag, err);
	else if (rc == BALE_OK && !mpu_etag_is(got, etag))
		rc = bale_errbuf_set(err, BALE_EIO, "'%s': the completed "
		    "object is not the parts sent (ETag %s, expected %s)",
		    u->name, got, etag);
	free(query);
	bale_buf_release(&req);
	bale_buf_release(&body);
	return rc;
}

int bale_mpu_finish(struct bale_mpu *u, struct bale_errbuf *err)
{
	unsigned char md5[16];
	int rc;

	if (!u->upload_id[0]) {
		rc = mpu_put(u, 0, u->fill, u->fill_len, md5, err);
		bale_mpu_abort(u);	/* nothing begun: only freed */
		return rc;
	}
	rc = u->fill_len ? mpu_hand(u, err) : BALE_OK;
	if (rc == BALE_OK)
		rc = mpu_drain(u, err);
	if (rc == BALE_OK)
		rc = mpu_complete(u, err);
	if (rc == BALE_OK)
		u->upload_id[0] = '\0';	/* done: nothing to abort */
	bale_mpu_abort(u);
	return rc;
}

/* AbortMultipartUpload of @u's upload. */
static int mpu_abort_upload(struct bale_mpu *u, struct bale_errbuf *err)
{
	struct bale_buf body = BALE_BUF_INIT;
	struct bale_http_resp r;
	char *query = mpu_query(u, 0);
	int rc = query ? mpu_send(u, "DELETE", query, NULL, 0, NULL, &body,
	    &r, err) : bale_errbuf_set(err, BALE_ENOMEM, "no memory");

	if (rc == BALE_OK && r.status != 204 && r.status != 200 &&
	    r.status != 404)
		rc = mpu_failed(u, &r, &body, err);
	free(query);
	bale_buf_release(&body);
	return rc;
}

int bale_mpu_abort_id(const char *name, const char *url,
    const struct bale_aws *aws, const char *upload_id,
    struct bale_errbuf *err)
{
	struct bale_mpu u;

	memset(&u, 0, sizeof(u));
	u.name = (char *)name;
	u.url = (char *)url;
	u.sign = aws;
	snprintf(u.upload_id, sizeof(u.upload_id), "%s", upload_id);
	return mpu_abort_upload(&u, err);
}

static void mpu_stop_senders(struct bale_mpu *u)
{
	pthread_mutex_lock(&u->lock);
	u->closing = 1;
	if (!u->failed)
		u->failed = BALE_EINTR;	/* parts still queued are let go */
	pthread_cond_broadcast(&u->changed);
	pthread_mutex_unlock(&u->lock);
	while (u->nthreads > 0)
		pthread_join(u->threads[--u->nthreads], NULL);
}

void bale_mpu_abort(struct bale_mpu *u)
{
	struct bale_errbuf err;

	if (!u)
		return;
	mpu_stop_senders(u);
	/* failing, the parts are left to the next run's clean-up */
	if (u->upload_id[0])
		(void)mpu_abort_upload(u, &err);
	while (u->nspare > 0)
		free(u->spare[--u->nspare]);
	free(u->fill);
	free(u->spare);
	free(u->queue);
	free(u->threads);
	free(u->md5);
	free(u->name);
	free(u->url);
	pthread_mutex_destroy(&u->lock);
	pthread_cond_destroy(&u->changed);
	free(u);
}
