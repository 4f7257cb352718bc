/* test_s3_xml.c - S3's XML answers: a listing's objects (with their
 * ETags) and prefixes, with entities decoded, its continuation; an
 * error's code; a multipart upload's id and completion, the uploads in
 * progress; answers that are not what they claim (not XML, another
 * document, a key longer than S3 allows) refused whole. */
#include "s3_xml.h"
#include "bale_backend_util.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

struct seen {
	struct bale_buf text;
	int stop_after;
	int n;
};

static int on_entry(void *arg, const struct bale_s3_entry *e)
{
	struct seen *s = arg;

	bale_buf_printf(&s->text, "%s%s:%llu%s;", e->is_prefix ? "P " : "",
	    e->key, (unsigned long long)e->size, e->etag);
	return ++s->n == s->stop_after ? 7 : 0;
}

static void test_list(void)
{
	const char *xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	    "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/"
	    "2006-03-01/\"><Name>b</Name><Prefix>d/</Prefix>"
	    "<KeyCount>3</KeyCount><IsTruncated>true</IsTruncated>"
	    "<NextContinuationToken>tok/+=</NextContinuationToken>"
	    "<Contents><Key>d/a&amp;b.tar</Key><Size>12</Size>"
	    "<ETag>\"x\"</ETag></Contents>"
	    "<Contents><Size>5</Size><Key>d/c</Key></Contents>"
	    "<CommonPrefixes><Prefix>d/sub/</Prefix></CommonPrefixes>"
	    "</ListBucketResult>";
	struct seen s = { BALE_BUF_INIT, 0, 0 };
	struct bale_s3_listing l;

	CHECK_EQ(0, bale_s3_xml_list(xml, strlen(xml), on_entry, &s, &l));
	bale_buf_add(&s.text, "", 1);
	CHECK_STR("d/a&b.tar:12\"x\";d/c:5;P d/sub/:0;", s.text.data);
	CHECK_EQ(1, l.truncated);
	CHECK_STR("tok/+=", l.next_token);
	/* the callback stops it: said, and nothing more is handed over */
	bale_buf_reset(&s.text);
	s.n = 0;
	s.stop_after = 1;
	CHECK_EQ(0, bale_s3_xml_list(xml, strlen(xml), on_entry, &s, &l));
	CHECK_EQ(7, l.stopped);
	CHECK_EQ(1, s.n);
	bale_buf_release(&s.text);
}

static void test_list_refused(void)
{
	struct seen s = { BALE_BUF_INIT, 0, 0 };
	struct bale_s3_listing l;
	const char *err = "<Error><Code>NoSuchBucket</Code></Error>";
	const char *cut = "<ListBucketResult><Contents><Key>a</Key>";
	char *big = malloc(3000);
	char *doc;

	CHECK_EQ(-1, bale_s3_xml_list(err, strlen(err), on_entry, &s, &l));
	CHECK_EQ(-1, bale_s3_xml_list(cut, strlen(cut), on_entry, &s, &l));
	CHECK_EQ(-1, bale_s3_xml_list("not xml", 7, on_entry, &s, &l));
	CHECK_EQ(-1, bale_s3_xml_list("", 0, on_entry, &s, &l));
	memset(big, 'k', 2999);
	big[2999] = '\0';
	doc = bale_strfmt("<ListBucketResult><Contents><Key>%s</Key>"
	    "</Contents></ListBucketResult>", big);
	CHECK_EQ(-1, bale_s3_xml_list(doc, strlen(doc), on_entry, &s, &l));
	free(doc);
	free(big);
	bale_buf_release(&s.text);
}

static void test_error(void)
{
	const char *xml = "<?xml version=\"1.0\"?><Error><Code>"
	    "SignatureDoesNotMatch</Code><Message>the signature &lt;x&gt;"
	    "</Message><RequestId>1</RequestId></Error>";
	struct bale_s3_error e;

	CHECK_EQ(1, bale_s3_xml_error(xml, strlen(xml), &e));
	CHECK_STR("SignatureDoesNotMatch", e.code);
	CHECK_STR("the signature <x>", e.message);
	CHECK_EQ(0, bale_s3_xml_error("<html>503</html>", 16, &e));
	CHECK_STR("", e.code);
	CHECK_EQ(0, bale_s3_xml_error("<Error><Code>", 13, &e));
	CHECK_EQ(0, bale_s3_xml_error(NULL, 0, &e));
}

/* One field of the root: an upload's id, a completion's ETag (Ceph's
 * empty one found as ""), not one of another root, nor a cut answer. */
static void test_field(void)
{
	const char *init = "<?xml version=\"1.0\"?><InitiateMultipartUpload"
	    "Result xmlns=\"x\"><Bucket>b</Bucket><Key>k</Key><UploadId>"
	    "2~a.b_c</UploadId></InitiateMultipartUploadResult>";
	const char *done = "<CompleteMultipartUploadResult><Location>l"
	    "</Location><ETag></ETag></CompleteMultipartUploadResult>";
	const char *nested = "<CompleteMultipartUploadResult><X><ETag>e"
	    "</ETag></X></CompleteMultipartUploadResult>";
	char out[64] = "unset";

	CHECK_EQ(1, bale_s3_xml_field(init, strlen(init),
	    "InitiateMultipartUploadResult", "UploadId", out, sizeof(out)));
	CHECK_STR("2~a.b_c", out);
	CHECK_EQ(1, bale_s3_xml_field(done, strlen(done),
	    "CompleteMultipartUploadResult", "ETag", out, sizeof(out)));
	CHECK_STR("", out);
	CHECK_EQ(0, bale_s3_xml_field(nested, strlen(nested),
	    "CompleteMultipartUploadResult", "ETag", out, sizeof(out)));
	CHECK_EQ(0, bale_s3_xml_field(init, strlen(init),
	    "CompleteMultipartUploadResult", "UploadId", out, sizeof(out)));
	CHECK_EQ(0, bale_s3_xml_field(init, 60,
	    "InitiateMultipartUploadResult", "UploadId", out, sizeof(out)));
	CHECK_EQ(0, bale_s3_xml_field(init, strlen(init),
	    "InitiateMultipartUploadResult", "UploadId", out, 4));
}

static int on_upload(void *arg, const char *key, const char *id)
{
	bale_buf_printf(arg, "%s=%s;", key, id);
	return 0;
}

/* ListMultipartUploads: each upload, and where the next page starts. */
static void test_uploads(void)
{
	const char *xml = "<ListMultipartUploadsResult><Bucket>b</Bucket>"
	    "<NextKeyMarker>d/b</NextKeyMarker><NextUploadIdMarker>2~y"
	    "</NextUploadIdMarker><IsTruncated>true</IsTruncated><Upload>"
	    "<Key>d/a</Key><UploadId>2~x</UploadId></Upload><Upload><Key>d/b"
	    "</Key><UploadId>2~y</UploadId></Upload>"
	    "</ListMultipartUploadsResult>";
	const char *list = "<ListBucketResult></ListBucketResult>";
	struct bale_buf seen = BALE_BUF_INIT;
	char key[S3_KEY_MAX + 1], id[S3_KEY_MAX + 1];
	int more = 0;

	CHECK_EQ(0, bale_s3_xml_uploads(xml, strlen(xml), on_upload, &seen,
	    &more, key, id));
	bale_buf_add(&seen, "", 1);
	CHECK_STR("d/a=2~x;d/b=2~y;", seen.data);
	CHECK_EQ(1, more);
	CHECK_STR("d/b", key);
	CHECK_STR("2~y", id);
	CHECK_EQ(-1, bale_s3_xml_uploads(list, strlen(list), on_upload, &seen,
	    &more, key, id));
	CHECK_EQ(0, more);
	bale_buf_release(&seen);
}

int main(void)
{
	test_list();
	test_list_refused();
	test_error();
	test_field();
	test_uploads();
	return CHECK_DONE();
}
