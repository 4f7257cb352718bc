/* http.h - one HTTP request, retried (http.c): what the S3 and https
 * stores ask of libcurl. */
#ifndef BALE_HTTP_H
#define BALE_HTTP_H

#include "aws_config.h"

#include "bale_backend_util.h"

#include <curl/curl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/uio.h>

/* The longest error or listing body kept: S3 lists 1000 keys in about
 * 300 KB. */
#define BALE_HTTP_BODY_MAX ((size_t)16 << 20)

struct bale_http_req {
	const char *method;		/* "GET", "HEAD", "PUT", "POST",
					 * "DELETE" */
	const char *url;
	const struct bale_aws *sign;	/* SigV4 with these; NULL: none */
	/* GET of a range: bytes [lo, lo + the pieces' length) into @iov;
	 * iovcnt 0: the whole body into @body */
	uint64_t lo;
	const struct iovec *iov;
	int iovcnt;
	struct bale_buf *body;
	size_t body_max;	/* the most @body takes (0: the limit
				 * BALE_HTTP_BODY_MAX) */
	/* PUT or POST: the @send_len bytes at @send sent (signed as an
	 * unsigned payload), and its MD5 in base64 (NULL: none), which the
	 * store checks the bytes it got against */
	const void *send;
	size_t send_len;
	const char *content_md5;
	/* PUT: S3's CopyObject of this source ("/BUCKET/KEY", escaped) into
	 * the URL's object, by the store (NULL: none) */
	const char *copy_source;
};

struct bale_http_resp {
	long status;
	int has_length;
	uint64_t length;		/* Content-Length */
	uint64_t total;			/* a range's: the object's size */
	char etag[80];
	int attempts;
};

/* One transfer: its request, its answer so far, and what libcurl
 * needs kept while it runs. */
struct bale_http_xfer {
	const struct bale_http_req *q;
	struct bale_http_resp *r;
	uint64_t want;		/* a range's bytes */
	uint64_t got;
	int piece;		/* where the next byte of a range goes */
	size_t piece_off;
	int to_body;		/* this answer's bytes go to q->body */
	int has_range;
	uint64_t range_lo, range_hi;
	char bad[160];		/* the answer is not what was asked */
	char range[64];
	char curl_err[CURL_ERROR_SIZE];
	struct curl_slist *hdr;
	CURL *easy;		/* on a multi handle: its own */
	void *owner;		/* on a multi handle: handed back at its end */
};

/** From now on, once *@stop is set (NULL: never), transfers are cut
 *  and bale_http_do() returns BALE_EINTR: what a run's Ctrl-C sets. One
 *  for the process. */
void bale_http_set_stop(const atomic_int *stop);

/** libcurl's global set-up, once per process. */
void bale_http_global_init(void);

/** Set @easy up to send @q, its answer into @r, @x keeping the state:
 *  then run it (curl_easy_perform, or a multi handle). @return 0, or -1
 *  without memory */
int bale_http_begin(struct bale_http_xfer *x, CURL *easy,
    const struct bale_http_req *q, struct bale_http_resp *r);
/** The transfer of @x ended with @cc: 0, an answer to act on (any
 *  status); 1, one to try again (@why says why); 2, a failure no retry
 *  mends (an untrusted TLS peer: @why says so); -1 without memory. */
int bale_http_end(struct bale_http_xfer *x, CURLcode cc, char *why,
    size_t cap);

/** Start @q on a new handle added to multi handle @m, @x and @r its
 *  state, @owner what bale_http_multi_next() hands back at its end.
 *  @return 0, or -1: nothing started (no memory) */
int bale_http_multi_add(CURLM *m, struct bale_http_xfer *x,
    const struct bale_http_req *q, struct bale_http_resp *r, void *owner);
/** A transfer of @m that ended: its handle gone, its outcome in *@rc (as
 *  bale_http_end()), its owner returned; NULL when none has ended. */
void *bale_http_multi_next(CURLM *m, int *rc);
/** Stop transfer @x of @m on its way, its handle gone. */
void bale_http_multi_drop(CURLM *m, struct bale_http_xfer *x);

/** Send @q until it has an answer that retrying cannot change: any 2xx,
 *  3xx or 4xx but 408 and 429 (5xx, 408, 429, resets, timeouts and a
 *  body other than asked are tried again, AWS_MAX_ATTEMPTS times in all,
 *  10 by default, with exponential backoff and jitter; an untrusted TLS
 *  peer fails at once). An error body
 *  lands in @q->body whatever was asked. @return BALE_OK with @r set, or
 *  BALE_EIO (no answer; @err says why, naming the host), BALE_ENOMEM */
int bale_http_do(const struct bale_http_req *q, struct bale_http_resp *r,
    struct bale_errbuf *err);

/** The @n requests @q at once (16 connections at most; one with no url
 *  is skipped), their answers in @r: those that fail or want retrying are
 *  then sent alone, with bale_http_do()'s retries. @return BALE_OK, or
 *  the first such one's error */
int bale_http_do_many(const struct bale_http_req *q, struct bale_http_resp *r,
    size_t n, struct bale_errbuf *err);

/** Requests sent (every try) and body bytes received so far, by every
 *  thread of this process. */
void bale_http_counts(uint64_t *requests, uint64_t *bytes);

/** @text with every byte but unreserved ones %-encoded (RFC 3986), '/'
 *  kept when @keep_slash: for keys in paths and query values. NULL
 *  without memory. */
char *bale_http_escape(const char *text, int keep_slash);

/** The host[:port] of @url, into @out. */
void bale_http_host(const char *url, char *out, size_t cap);

#endif
