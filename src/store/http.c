/* http.c - one HTTP request through libcurl, retried until it has an
 * answer worth acting on.
 *
 * Each thread keeps one easy handle, so its connection stays open from
 * one request to the next (keep-alive); a forked child makes its own
 * rather than talk over its parent's sockets. A range's bytes go
 * straight into the caller's pieces; an answer that is not the range
 * asked (another range, too many bytes, too few) is retried like a
 * dropped connection, and said when retrying did not help.
 */
#include "http.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HTTP_ATTEMPTS 10
#define HTTP_BACKOFF_MS 100
#define HTTP_BACKOFF_CAP_MS 5000
#define HTTP_CONNECT_TIMEOUT_MS 10000L
#define HTTP_STALL_SECONDS 30L
#define HTTP_MANY_CONNECTIONS 16	/* bale_http_do_many() at once */
#define HTTP_WAIT_SLICE_MS 100L

/* The empty payload's SHA-256: what a GET or HEAD signs. */
#define HTTP_EMPTY_SHA256 \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static pthread_once_t http_once_init = PTHREAD_ONCE_INIT;
/* every request sent (each try), and the body bytes received: what a
 * benchmark divides by the samples read */
static uint64_t http_requests;
static uint64_t http_bytes;
static pthread_key_t http_key;
/* set once the run this process serves was asked to stop (Ctrl-C):
 * transfers and retries end then, rather than after their timeouts */
static const atomic_int *_Atomic http_stop;

struct http_handle {
	CURL *easy;
	pid_t pid;
	unsigned seed;
};

static void http_handle_free(void *p)
{
	struct http_handle *h = p;

	if (h && h->pid == getpid())
		curl_easy_cleanup(h->easy);
	free(h);
}

static void http_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	pthread_key_create(&http_key, http_handle_free);
}

void bale_http_global_init(void)
{
	pthread_once(&http_once_init, http_init);
}

/* This thread's handle, made on first use and after a fork. */
static struct http_handle *http_handle(void)
{
	struct http_handle *h;

	bale_http_global_init();
	h = pthread_getspecific(http_key);
	if (h && h->pid == getpid())
		return h;
	free(h);	/* a parent's: its sockets are not this process's */
	h = calloc(1, sizeof(*h));
	if (h)
		h->easy = curl_easy_init();
	if (!h || !h->easy) {
		free(h);
		pthread_setspecific(http_key, NULL);
		return NULL;
	}
	h->pid = getpid();
	h->seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)h;
	pthread_setspecific(http_key, h);
	return h;
}

void bale_http_set_stop(const atomic_int *stop)
{
	atomic_store(&http_stop, stop);
}

static int http_stopped(void)
{
	const atomic_int *stop = atomic_load(&http_stop);

	return stop && atomic_load_explicit(stop, memory_order_relaxed);
}

/* libcurl's progress callback: non-zero aborts the transfer. */
static int http_on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
    curl_off_t ultotal, curl_off_t ulnow)
{
	(void)arg;
	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return http_stopped();
}

static long http_env_long(const char *name, long def, long min)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return def;
	n = strtol(v, &end, 10);
	return *end || n < min ? def : n;
}

/* "Content-Range: bytes LO-HI/TOTAL" */
static void http_header_range(struct bale_http_xfer *x, const char *v)
{
	unsigned long long lo, hi, total;

	if (sscanf(v, " bytes %llu-%llu/%llu", &lo, &hi, &total) == 3) {
		x->has_range = 1;
		x->range_lo = lo;
		x->range_hi = hi;
		x->r->total = total;
	}
}

static size_t http_on_header(char *line, size_t size, size_t n, void *arg)
{
	struct bale_http_xfer *x = arg;
	size_t len = size * n;
	char text[256];
	long status;

	snprintf(text, sizeof(text), "%.*s", (int)(len < 255 ? len : 255),
	    line);
	if (sscanf(text, "HTTP/%*s %ld", &status) == 1) {
		/* a new answer (after a 100 Continue): nothing of the last */
		x->r->status = status;
		x->r->has_length = 0;
		x->has_range = 0;
		x->to_body = !(status >= 200 && status < 300) ||
		    x->q->iovcnt == 0;
	} else if (strncasecmp(text, "content-length:", 15) == 0) {
		x->r->has_length = 1;
		x->r->length = strtoull(text + 15, NULL, 10);
	} else if (strncasecmp(text, "content-range:", 14) == 0) {
		http_header_range(x, text + 14);
	} else if (strncasecmp(text, "etag:", 5) == 0) {
		snprintf(x->r->etag, sizeof(x->r->etag), "%.*s",
		    (int)sizeof(x->r->etag) - 1, text + 5);
		x->r->etag[strcspn(x->r->etag, "\r\n")] = '\0';
	}
	return len;
}

/* A range's bytes into the caller's pieces; more than asked stops the
 * transfer. */
static size_t http_scatter(struct bale_http_xfer *x, const char *p, size_t len)
{
	const struct bale_http_req *q = x->q;
	size_t left = len;

	if (len > x->want - x->got) {
		snprintf(x->bad, sizeof(x->bad), "more bytes than the %"
		    PRIu64 " asked", x->want);
		return 0;
	}
	while (left) {
		const struct iovec *v = &q->iov[x->piece];
		size_t take = v->iov_len - x->piece_off;

		take = take < left ? take : left;
		memcpy((char *)v->iov_base + x->piece_off, p, take);
		p += take;
		left -= take;
		x->piece_off += take;
		if (x->piece_off == v->iov_len) {
			x->piece++;
			x->piece_off = 0;
		}
	}
	x->got += len;
	return len;
}

static size_t http_on_body(char *p, size_t size, size_t n, void *arg)
{
	struct bale_http_xfer *x = arg;
	size_t len = size * n;
	size_t max = x->q->body_max ? x->q->body_max : BALE_HTTP_BODY_MAX;

	__atomic_fetch_add(&http_bytes, len, __ATOMIC_RELAXED);
	if (!x->to_body)
		return http_scatter(x, p, len);
	if (!x->q->body || x->q->body->len + len > max)
		return x->q->body ? 0 : len;
	bale_buf_add(x->q->body, p, len);
	return x->q->body->failed ? 0 : len;
}

/* 1 when @q sends a body. */
static int http_sends(const struct bale_http_req *q)
{
	return strcmp(q->method, "PUT") == 0 || strcmp(q->method, "POST") == 0;
}

/* "@name: @value" added to @h. NULL without memory. */
static struct curl_slist *http_header(struct curl_slist *h, const char *name,
    const char *value)
{
	char *line = bale_strfmt("%s: %s", name, value);
	struct curl_slist *more = line ? curl_slist_append(h, line) : NULL;

	free(line);
	if (!more)
		curl_slist_free_all(h);
	return more;
}

/* A body's headers: its type, its MD5, a copy's source. (libcurl asks
 * a large body's "Expect: 100-continue", a round trip per part; a
 * header removing it would be signed by libcurl 7.88 all the same, and
 * refused.) NULL
 * without memory. */
static struct curl_slist *http_send_headers(const struct bale_http_req *q,
    struct curl_slist *h)
{
	char line[96];

	h = curl_slist_append(h, "Content-Type: application/octet-stream");
	if (h && q->content_md5) {
		snprintf(line, sizeof(line), "Content-MD5: %s",
		    q->content_md5);
		h = curl_slist_append(h, line);
	}
	if (h && q->copy_source)	/* signed with the rest */
		h = http_header(h, "x-amz-copy-source", q->copy_source);
	return h;
}

static struct curl_slist *http_headers(const struct bale_http_req *q)
{
	struct curl_slist *h = NULL;
	char line[AWS_TEXT_MAX + 32];

	if (http_sends(q))
		h = http_send_headers(q, NULL);
	if (!q->sign || (http_sends(q) && !h))
		return h;
	/* libcurl 7.88 signs the payload's hash as this header says (it
	 * sends none itself, which S3 requires): a body is signed as
	 * unsigned, its MD5 checks it */
	h = curl_slist_append(h, http_sends(q) ?
	    "x-amz-content-sha256: UNSIGNED-PAYLOAD" :
	    "x-amz-content-sha256: " HTTP_EMPTY_SHA256);
	if (h && q->sign->token[0]) {
		snprintf(line, sizeof(line), "x-amz-security-token: %s",
		    q->sign->token);
		h = curl_slist_append(h, line);
	}
	return h;
}

static void http_sign(CURL *c, const struct bale_aws *a)
{
	char provider[96];

	snprintf(provider, sizeof(provider), "aws:amz:%s:s3", a->region);
	curl_easy_setopt(c, CURLOPT_AWS_SIGV4, provider);
	curl_easy_setopt(c, CURLOPT_USERNAME, a->key_id);
	curl_easy_setopt(c, CURLOPT_PASSWORD, a->secret);
}

static void http_setup(CURL *c, struct bale_http_xfer *x, char *range,
    char *curl_err)
{
	const struct bale_http_req *q = x->q;
	const char *ca;

	curl_easy_reset(c);	/* keeps the connections */
	curl_easy_setopt(c, CURLOPT_URL, q->url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
	    HTTP_CONNECT_TIMEOUT_MS);
	/* a stall: under a byte a second for so long */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
	    http_env_long("BALE_HTTP_STALL_SECONDS", HTTP_STALL_SECONDS, 1));
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, http_on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, http_on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, http_on_progress);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	if (strcmp(q->method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(q->method, "GET") != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, q->method);
	if (http_sends(q)) {
		/* not copied: the caller keeps it until the answer */
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)q->send_len);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS,
		    q->send_len ? q->send : "");
	}
	if (q->iovcnt) {
		snprintf(range, 64, "%" PRIu64 "-%" PRIu64, q->lo,
		    q->lo + x->want - 1);
		curl_easy_setopt(c, CURLOPT_RANGE, range);
	}
	if (q->sign && q->sign->key_id[0])
		http_sign(c, q->sign);
	/* the CAs to trust: the signature's settings, else (a plain URL)
	 * AWS_CA_BUNDLE alone; else the system's */
	ca = q->sign ? q->sign->ca_bundle : getenv("AWS_CA_BUNDLE");
	if (ca && ca[0])
		curl_easy_setopt(c, CURLOPT_CAINFO, ca);
}

/* A 2xx answer to a range: the bytes asked, all of them, or why not. */
static void http_check_range(struct bale_http_xfer *x)
{
	uint64_t hi = x->q->lo + x->want - 1;

	if (x->bad[0])
		return;
	if (x->r->status == 200 && x->q->lo == 0 && x->r->has_length &&
	    x->r->length == x->want && x->got == x->want)
		return;		/* the whole object, which is the range */
	if (x->r->status != 206 || !x->has_range)
		snprintf(x->bad, sizeof(x->bad), "status %ld without the "
		    "range asked", x->r->status);
	else if (x->range_lo != x->q->lo || x->range_hi != hi)
		snprintf(x->bad, sizeof(x->bad), "bytes %" PRIu64 "-%" PRIu64
		    " in answer to %" PRIu64 "-%" PRIu64, x->range_lo,
		    x->range_hi, x->q->lo, hi);
	else if (x->got != x->want)
		snprintf(x->bad, sizeof(x->bad), "%" PRIu64 " bytes of the %"
		    PRIu64 " asked", x->got, x->want);
}

/* A failure no retry can mend: the TLS peer not trusted, a URL or
 * protocol libcurl refuses. */
static int http_final(CURLcode cc)
{
	return cc == CURLE_PEER_FAILED_VERIFICATION ||
	    cc == CURLE_SSL_CACERT_BADFILE || cc == CURLE_SSL_CERTPROBLEM ||
	    cc == CURLE_UNSUPPORTED_PROTOCOL || cc == CURLE_URL_MALFORMAT ||
	    cc == CURLE_NOT_BUILT_IN;
}

/* Is an answer with @status worth asking for again? */
static int http_retryable(long status)
{
	return status >= 500 || status == 408 || status == 429;
}

int bale_http_begin(struct bale_http_xfer *x, CURL *easy,
    const struct bale_http_req *q, struct bale_http_resp *r)
{
	int i;

	memset(x, 0, sizeof(*x));
	memset(r, 0, sizeof(*r));
	__atomic_fetch_add(&http_requests, 1, __ATOMIC_RELAXED);
	x->q = q;
	x->r = r;
	for (i = 0; i < q->iovcnt; i++)
		x->want += q->iov[i].iov_len;
	if (q->body)
		bale_buf_reset(q->body);
	x->hdr = http_headers(q);
	if ((q->sign || http_sends(q)) && !x->hdr)
		return -1;
	http_setup(easy, x, x->range, x->curl_err);
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, x->hdr);
	return 0;
}

int bale_http_end(struct bale_http_xfer *x, CURLcode cc, char *why,
    size_t cap)
{
	const struct bale_http_req *q = x->q;
	struct bale_http_resp *r = x->r;

	curl_slist_free_all(x->hdr);
	x->hdr = NULL;
	if (q->body && q->body->failed)
		return -1;
	if (cc == CURLE_OK && q->iovcnt && r->status >= 200 &&
	    r->status < 300)
		http_check_range(x);
	if (x->bad[0])
		snprintf(why, cap, "an answer not as asked (%s)", x->bad);
	else if (cc != CURLE_OK)
		snprintf(why, cap, "%.160s%s", x->curl_err[0] ? x->curl_err :
		    curl_easy_strerror(cc),
		    cc == CURLE_PEER_FAILED_VERIFICATION ? " (AWS_CA_BUNDLE, "
		    "or ca_bundle in ~/.aws/config, names the CAs to trust)" :
		    "");
	else if (http_retryable(r->status))
		snprintf(why, cap, "status %ld", r->status);
	else
		return 0;
	return cc != CURLE_OK && http_final(cc) ? 2 : 1;
}

/* One try. @return 0: an answer to act on; 1: try again (@why says
 * why); -1: no memory */
static int http_once(struct http_handle *h, const struct bale_http_req *q,
    struct bale_http_resp *r, char *why, size_t cap)
{
	struct bale_http_xfer x;

	if (bale_http_begin(&x, h->easy, q, r) != 0)
		return -1;
	return bale_http_end(&x, curl_easy_perform(h->easy), why, cap);
}

/* Before try @attempt (2, 3, ...): a random wait between half the cap
 * and the cap, which doubles each time (100 ms to 5 s), so many readers
 * that failed together do not come back together. */
static void http_backoff(struct http_handle *h, int attempt)
{
	long cap = HTTP_BACKOFF_MS;
	long ms;
	struct timespec ts;
	int i;

	for (i = 2; i < attempt && cap < HTTP_BACKOFF_CAP_MS; i++)
		cap *= 2;
	cap = cap < HTTP_BACKOFF_CAP_MS ? cap : HTTP_BACKOFF_CAP_MS;
	ms = cap / 2 + (long)(rand_r(&h->seed) % (unsigned)(cap / 2 + 1));
	/* in slices, so a stop ends the wait */
	for (; ms > 0 && !http_stopped(); ms -= HTTP_WAIT_SLICE_MS) {
		ts.tv_sec = 0;
		ts.tv_nsec = (ms < HTTP_WAIT_SLICE_MS ? ms :
		    HTTP_WAIT_SLICE_MS) * 1000000L;
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
}

int bale_http_do(const struct bale_http_req *q, struct bale_http_resp *r,
    struct bale_errbuf *err)
{
	struct http_handle *h = http_handle();
	long attempts = http_env_long("AWS_MAX_ATTEMPTS", HTTP_ATTEMPTS, 1);
	char host[256];
	char why[256];
	int attempt, rc;

	if (!h)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	for (attempt = 1;; attempt++) {
		if (http_stopped())
			return bale_errbuf_set(err, BALE_EINTR, "stopped");
		rc = http_once(h, q, r, why, sizeof(why));
		r->attempts = attempt;
		if (rc <= 0)
			break;
		if (http_stopped())
			return bale_errbuf_set(err, BALE_EINTR, "stopped");
		if (attempt >= attempts || rc == 2) {
			bale_http_host(q->url, host, sizeof(host));
			return bale_errbuf_set(err, BALE_EIO, "%s gave no "
			    "usable answer in %d tr%s: %s", host, attempt,
			    attempt == 1 ? "y" : "ies", why);
		}
		http_backoff(h, attempt + 1);
	}
	return rc < 0 ? bale_errbuf_set(err, BALE_ENOMEM, "no memory") :
	    BALE_OK;
}

int bale_http_multi_add(CURLM *m, struct bale_http_xfer *x,
    const struct bale_http_req *q, struct bale_http_resp *r, void *owner)
{
	CURL *easy = curl_easy_init();

	if (!easy || bale_http_begin(x, easy, q, r) != 0 ||
	    curl_multi_add_handle(m, easy) != CURLM_OK) {
		curl_slist_free_all(easy ? x->hdr : NULL);
		curl_easy_cleanup(easy);
		return -1;
	}
	x->easy = easy;
	x->owner = owner;
	curl_easy_setopt(easy, CURLOPT_PRIVATE, x);
	return 0;
}

void bale_http_multi_drop(CURLM *m, struct bale_http_xfer *x)
{
	curl_multi_remove_handle(m, x->easy);
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->hdr);
	x->easy = NULL;
	x->hdr = NULL;
}

void *bale_http_multi_next(CURLM *m, int *rc)
{
	struct bale_http_xfer *x;
	char why[256];
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(m, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &x);
		*rc = bale_http_end(x, msg->data.result, why, sizeof(why));
		bale_http_multi_drop(m, x);
		return x->owner;
	}
	return NULL;
}

/* Run @m until its transfers end, each's outcome in the int its owner
 * is (1: an answer to act on, 0: to ask again alone). */
static void http_many_run(CURLM *m)
{
	int running = 1, rc;
	int *done;

	while (running) {
		curl_multi_perform(m, &running);
		while ((done = bale_http_multi_next(m, &rc)))
			*done = rc == 0;
		if (running)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
}

int bale_http_do_many(const struct bale_http_req *q, struct bale_http_resp *r,
    size_t n, struct bale_errbuf *err)
{
	struct bale_http_xfer *x = calloc(n ? n : 1, sizeof(*x));
	int *done = calloc(n ? n : 1, sizeof(*done));
	CURLM *m;
	size_t i;
	int rc = BALE_OK;

	bale_http_global_init();
	m = x && done ? curl_multi_init() : NULL;
	if (m)
		curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS,
		    (long)HTTP_MANY_CONNECTIONS);
	for (i = 0; done && i < n; i++)
		done[i] = q[i].url == NULL;	/* nothing to ask */
	for (i = 0; m && i < n; i++)
		if (!done[i])
			bale_http_multi_add(m, &x[i], &q[i], &r[i], &done[i]);
	if (m)
		http_many_run(m);
	/* what did not answer at once (or could not start): alone, with
	 * the retries */
	for (i = 0; rc == BALE_OK && i < n; i++)
		if (!done || !done[i])
			rc = bale_http_do(&q[i], &r[i], err);
	curl_multi_cleanup(m);
	free(done);
	free(x);
	return rc;
}

void bale_http_counts(uint64_t *requests, uint64_t *bytes)
{
	*requests = __atomic_load_n(&http_requests, __ATOMIC_RELAXED);
	*bytes = __atomic_load_n(&http_bytes, __ATOMIC_RELAXED);
}

char *bale_http_escape(const char *text, int keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	struct bale_buf b = BALE_BUF_INIT;
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p; p++) {
		char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };

		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr("-_.~", *p) ||
		    (keep_slash && *p == '/'))
			bale_buf_add(&b, p, 1);
		else
			bale_buf_add(&b, esc, 3);
	}
	bale_buf_add(&b, "", 1);
	if (b.failed) {
		bale_buf_release(&b);
		return NULL;
	}
	return b.data;
}

void bale_http_host(const char *url, char *out, size_t cap)
{
	const char *p = strstr(url, "://");

	p = p ? p + 3 : url;
	snprintf(out, cap, "%.*s", (int)strcspn(p, "/?"), p);
}
