/* remote.h - what the S3 and https stores share (remote.c): a file
 * that is a URL, opened with HEAD and read with ranged GETs, and the
 * words for an answer that is not a success. */
#ifndef BALE_REMOTE_H
#define BALE_REMOTE_H

#include "http.h"

struct remote_file {
	char *name;		/* as the user gave it (s3://, https://) */
	char *url;		/* what is asked */
	struct bale_aws aws;	/* the signature's, when signed */
	int signed_;
	char etag[80];		/* as the HEAD gave it ("": none) */
};

/** A file at @url, known to the user as @name, signed with @aws when not
 *  NULL; its size from a HEAD. @return as a store's open */
int bale_remote_open(const char *name, char *url, const struct bale_aws *aws,
    void **h, uint64_t *size, struct bale_errbuf *err);
/** The same for a file whose size the caller knows: no request now. */
int bale_remote_open_known(const char *name, char *url,
    const struct bale_aws *aws, void **h, struct bale_errbuf *err);
int bale_remote_read(void *h, const struct iovec *iov, int iovcnt,
    uint64_t off, struct bale_errbuf *err);
void bale_remote_close(void *h);
/** The whole of @url (known as @name) in one GET, NUL-terminated (not
 *  counted in *@n), in *@data to free(). @return as a store's open */
int bale_remote_get_all(const char *name, const char *url,
    const struct bale_aws *aws, char **data, size_t *n,
    struct bale_errbuf *err);
void bale_remote_request(void *h, const char **url,
    const struct bale_aws **sign);

/** @name's failed answer @r (its body in @body, if any) in words:
 *  BALE_EAUTH for 401 and 403 (naming the endpoint and key id, never the
 *  secret), BALE_ENOENT for 404, else BALE_EIO. */
int bale_remote_failed(const char *name, const char *url,
    const struct bale_aws *aws, const struct bale_http_resp *r,
    const struct bale_buf *body, struct bale_errbuf *err);

#endif
