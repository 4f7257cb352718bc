/* s3_xml.h - what bale reads from S3's XML answers (s3_xml.c, with
 * expat): an error's code and message, and a listing's entries. */
#ifndef BALE_S3_XML_H
#define BALE_S3_XML_H

#include <stddef.h>
#include <stdint.h>

#define S3_KEY_MAX 1024		/* S3's longest key, in bytes */

struct bale_s3_error {
	char code[64];
	char message[256];
};

/** The <Error> in @body (@n bytes). @return 1 when it held one */
int bale_s3_xml_error(const char *body, size_t n, struct bale_s3_error *e);

#define S3_ETAG_MAX 128

/* One entry of a listing: an object (@size bytes, @etag as S3 quotes
 * it, "" when not given) or, @is_prefix set, a common prefix. */
struct bale_s3_entry {
	const char *key;
	uint64_t size;
	const char *etag;
	int is_prefix;
};

/** Called for each entry; non-zero stops the parse. */
typedef int (*bale_s3_entry_fn)(void *arg, const struct bale_s3_entry *e);

struct bale_s3_listing {
	int truncated;			/* more pages follow */
	char next_token[S3_KEY_MAX + 64];	/* NextContinuationToken */
	int stopped;			/* what the callback returned */
};

/** The text of element @field directly inside the root element @root
 *  of @body (@n bytes) into @out (@cap bytes): an upload's UploadId, a
 *  completed one's ETag. @return 1 found, 0 not (or @body is another
 *  document, or the text is longer than @cap) */
int bale_s3_xml_field(const char *body, size_t n, const char *root,
    const char *field, char *out, size_t cap);

/* One multipart upload in progress, as ListMultipartUploads gives it;
 * non-zero stops the parse. */
typedef int (*bale_s3_upload_fn)(void *arg, const char *key,
    const char *upload_id);

/** Hand each upload of ListMultipartUploads answer @body to @fn, and
 *  whether more pages follow, after @next_key and @next_id (each of
 *  S3_KEY_MAX + 1 bytes). @return 0, or -1: not such an answer */
int bale_s3_xml_uploads(const char *body, size_t n, bale_s3_upload_fn fn,
    void *arg, int *truncated, char *next_key, char *next_id);

/** Hand each entry of ListObjectsV2 answer @body (@n bytes) to @fn.
 *  @return 0, or -1 when @body is not such an answer */
int bale_s3_xml_list(const char *body, size_t n, bale_s3_entry_fn fn,
    void *arg, struct bale_s3_listing *out);

#endif
