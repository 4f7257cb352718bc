/* wds_verify.c - check a finished shard before a resumed run keeps it.
 *
 * The tar is read back member by member with libarchive: each sample's
 * payload must match the crc32 its .json member records, every member
 * must belong to the sample it follows, and the .idx beside it must list
 * as many samples. A shard that fails any check is written again.
 */
#include "wds_verify.h"

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define VERIFY_KEY_DIGITS 10

/* One sample being read back: its key and what its members said. */
struct verify_sample {
	char key[32];
	int have_data;
	uint32_t data_crc;
	int have_meta;
	uint32_t meta_crc;
};

/* The member's key (the name up to its first dot) into @key. */
static int verify_key(const char *name, char *key, size_t cap)
{
	const char *dot = strchr(name, '.');
	size_t n = dot ? (size_t)(dot - name) : 0;
	size_t i;

	if (n != VERIFY_KEY_DIGITS || n >= cap)
		return -1;
	for (i = 0; i < n; i++)
		if (name[i] < '0' || name[i] > '9')
			return -1;
	memcpy(key, name, n);
	key[n] = '\0';
	return 0;
}

static int verify_read_member(struct archive *ar, struct bale_buf *b)
{
	char chunk[65536];
	la_ssize_t got;

	bale_buf_reset(b);
	while ((got = archive_read_data(ar, chunk, sizeof(chunk))) > 0)
		bale_buf_add(b, chunk, (size_t)got);
	return got < 0 || b->failed ? -1 : 0;
}

/* A sample is complete once its payload and its .json agree. */
static int verify_close_sample(const struct verify_sample *s,
    struct bale_wds_shard *out, struct bale_errbuf *err)
{
	if (!s->key[0])
		return BALE_OK;
	if (!s->have_data || !s->have_meta || s->data_crc != s->meta_crc)
		return bale_errbuf_set(err, BALE_EINVAL, "sample %s does not "
		    "match its crc32", s->key);
	out->samples++;
	out->last_index = strtoull(s->key, NULL, 10);
	return BALE_OK;
}

/* Fold member @name (its bytes in @b) into the sample being read. */
static int verify_member(struct verify_sample *s, const char *name,
    const struct bale_buf *b, struct bale_wds_shard *out,
    struct bale_errbuf *err)
{
	const char *ext = strchr(name, '.') + 1;
	char key[32];
	char *path = NULL;

	verify_key(name, key, sizeof(key));
	if (strcmp(key, s->key) != 0) {
		if (verify_close_sample(s, out, err) != BALE_OK)
			return err->rc;
		memset(s, 0, sizeof(*s));
		snprintf(s->key, sizeof(s->key), "%s", key);
	}
	if (strcmp(ext, "json") == 0) {
		bale_meta_parse(b->data ? b->data : "", b->len, &path,
		    &s->meta_crc, &s->have_meta);
		free(path);
	} else if (strcmp(ext, "cls") != 0) {
		s->have_data = 1;
		s->data_crc = bale_crc32(b->data, b->len);
	}
	return BALE_OK;
}

static int verify_tar(const char *tar, struct bale_wds_shard *out,
    struct bale_errbuf *err)
{
	struct archive *ar = archive_read_new();
	struct archive_entry *e;
	struct verify_sample s;
	struct bale_buf b = BALE_BUF_INIT;
	char key[32];
	int rc;
	int r;

	memset(&s, 0, sizeof(s));
	if (!ar || archive_read_support_format_tar(ar) != ARCHIVE_OK ||
	    archive_read_open_filename(ar, tar, 65536) != ARCHIVE_OK) {
		rc = bale_errbuf_set(err, BALE_EIO, "cannot open '%s'", tar);
		goto out;
	}
	while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);

		if (!name || verify_key(name, key, sizeof(key)) != 0 ||
		    verify_read_member(ar, &b) != 0) {
			rc = bale_errbuf_set(err, BALE_EINVAL, "'%s' has a bad "
			    "member", tar);
			goto out;
		}
		rc = verify_member(&s, name, &b, out, err);
		if (rc != BALE_OK)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		rc = bale_errbuf_set(err, BALE_EINVAL, "'%s' is damaged: %s",
		    tar, archive_error_string(ar));
		goto out;
	}
	rc = verify_close_sample(&s, out, err);
out:
	bale_buf_release(&b);
	archive_read_free(ar);
	return rc;
}

/* The .idx must exist and count the same samples. */
static int verify_idx(const char *idx, uint64_t samples,
    struct bale_errbuf *err)
{
	size_t n;
	char *text = bale_file_read_all(idx, &n);
	uint64_t count;
	int ok;

	if (!text)
		return bale_errbuf_set(err, BALE_EIO, "cannot read '%s': %s",
		    idx, strerror(errno));
	ok = sscanf(text, "v1.2 %" SCNu64, &count) == 1 && count == samples;
	free(text);
	if (!ok)
		return bale_errbuf_set(err, BALE_EINVAL, "'%s' does not list "
		    "the shard's %" PRIu64 " samples", idx, samples);
	return BALE_OK;
}

int bale_wds_verify_shard(const char *tar, const char *idx,
    struct bale_wds_shard *out, struct bale_errbuf *err)
{
	struct stat sb;

	memset(out, 0, sizeof(*out));
	if (stat(tar, &sb) != 0)
		return bale_errbuf_set(err, BALE_EIO, "cannot read '%s': %s",
		    tar, strerror(errno));
	out->filesize = (uint64_t)sb.st_size;
	if (verify_tar(tar, out, err) != BALE_OK)
		return err->rc;
	if (out->samples == 0)
		return bale_errbuf_set(err, BALE_EINVAL, "'%s' holds no sample",
		    tar);
	return verify_idx(idx, out->samples, err);
}
