/* fuzz_s3_xml.c - S3's XML answers as a hostile server could send them:
 * parsed as a listing (every entry handed over must be a string of its
 * field's room), as an error (code and message always terminated) and
 * as the multipart answers (an upload id, the uploads in progress). */
#include "s3_xml.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_entry(void *arg, const struct bale_s3_entry *e)
{
	size_t *n = arg;

	if (strlen(e->key) > S3_KEY_MAX + 64 ||
	    strlen(e->etag) > S3_ETAG_MAX)
		abort();
	return ++*n > 100000;	/* a listing stops when told */
}

static int fuzz_upload(void *arg, const char *key, const char *id)
{
	(void)arg;
	if (strlen(key) > S3_KEY_MAX || strlen(id) > S3_KEY_MAX)
		abort();
	return 0;
}

/* The multipart answers: a field within its room, markers terminated. */
static void fuzz_multipart(const char *s, size_t size)
{
	char out[32], key[S3_KEY_MAX + 1], id[S3_KEY_MAX + 1];
	int more;

	if (bale_s3_xml_field(s, size, "InitiateMultipartUploadResult",
	    "UploadId", out, sizeof(out)) && strlen(out) >= sizeof(out))
		abort();
	if (bale_s3_xml_uploads(s, size, fuzz_upload, NULL, &more, key,
	    id) == 0 && (strlen(key) > S3_KEY_MAX || strlen(id) > S3_KEY_MAX))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct bale_s3_listing l;
	struct bale_s3_error e;
	size_t n = 0;

	fuzz_multipart(s, size);

	if (bale_s3_xml_list(s, size, fuzz_entry, &n, &l) == 0 &&
	    strlen(l.next_token) >= sizeof(l.next_token))
		abort();
	if (bale_s3_xml_error(s, size, &e) &&
	    (strlen(e.code) >= sizeof(e.code) ||
	    strlen(e.message) >= sizeof(e.message)))
		abort();
	return 0;
}
