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

/** One entry of a listing: an object (@size bytes) or, @is_prefix set,
 *  a common prefix. Non-zero stops the parse. */
typedef int (*bale_s3_entry_fn)(void *arg, const char *key, uint64_t size,
    int is_prefix);

struct bale_s3_listing {
	int truncated;			/* more pages follow */
	char next_token[S3_KEY_MAX + 64];	/* NextContinuationToken */
	int stopped;			/* what the callback returned */
};

/** Hand each entry of ListObjectsV2 answer @body (@n bytes) to @fn.
 *  @return 0, or -1 when @body is not such an answer */
int bale_s3_xml_list(const char *body, size_t n, bale_s3_entry_fn fn,
    void *arg, struct bale_s3_listing *out);

#endif
