/* tar_scan.c - walk the headers of an uncompressed tar in place. */
#include "tar_scan.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "bale_store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Header fields (offset, length) of POSIX ustar. */
#define TAR_NAME 0
#define TAR_NAME_LEN 100
#define TAR_SIZE 124
#define TAR_SIZE_LEN 12
#define TAR_CHKSUM 148
#define TAR_CHKSUM_LEN 8
#define TAR_TYPE 156
#define TAR_MAGIC 257
#define TAR_PREFIX 345
#define TAR_PREFIX_LEN 155

/* Read ahead of the scan by this much, in steps of half of it. */
#define TAR_READ_AHEAD ((uint64_t)4 << 20)

struct tar_scan {
	int fd;
	uint64_t pos;		/* of the next header */
	uint64_t end;
	uint64_t ahead;		/* read ahead up to here */
	char *name;		/* pending long name (GNU 'L' or pax path) */
	uint64_t pax_size;
	int has_pax_size;
	char *member_name;	/* the name handed to the callback */
	struct bale_errbuf *err;
};

static int tar_damaged(struct tar_scan *t, const char *what)
{
	return bale_errbuf_set(t->err, BALE_EINPUT,
	    "damaged tar at byte %" PRIu64 ": %s", t->pos, what);
}

static int tar_pread(struct tar_scan *t, void *buf, size_t n, uint64_t off,
    size_t *got)
{
	struct bale_errbuf why;

	if (bale_store_fd_scan(t->fd, buf, n, off, got, &why) != BALE_OK)
		return bale_errbuf_set(t->err, why.rc,
		    "cannot read the archive: %s", why.msg);
	return BALE_OK;
}

/* A numeric field: octal digits (space or NUL ended), or GNU base-256
 * when the top bit of the first byte is set. -1 when malformed. */
static int tar_number(const unsigned char *f, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		if (f[0] != 0x80)	/* negative or above 2^64 */
			return -1;
		for (i = 1; i < len; i++) {
			if (v >> 55)
				return -1;
			v = (v << 8) | f[i];
		}
		*out = v;
		return v >> 63 ? -1 : 0;
	}
	while (i < len && f[i] == ' ')
		i++;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = (v << 3) | (uint64_t)(f[i] - '0');
	}
	if (i < len && f[i] != ' ' && f[i] != '\0')
		return -1;
	*out = v;
	return 0;
}

/* The header's sum with its checksum field counted as spaces: the whole
 * block summed (a loop the compiler vectorizes; each header is summed
 * once a scan), the field taken out again. */
static int64_t tar_header_sum(const unsigned char *block, int is_signed)
{
	int64_t sum = 0;
	size_t i;

	if (is_signed)
		for (i = 0; i < BALE_TAR_BLOCK; i++)
			sum += (signed char)block[i];
	else
		for (i = 0; i < BALE_TAR_BLOCK; i++)
			sum += block[i];
	for (i = TAR_CHKSUM; i < TAR_CHKSUM + TAR_CHKSUM_LEN; i++)
		sum -= is_signed ? (signed char)block[i] : block[i];
	return sum + TAR_CHKSUM_LEN * ' ';
}

int bale_tar_is_header(const unsigned char *block)
{
	uint64_t want;

	if (tar_number(block + TAR_CHKSUM, TAR_CHKSUM_LEN, &want) != 0)
		return 0;
	return (uint64_t)tar_header_sum(block, 0) == want ||
	    (uint64_t)tar_header_sum(block, 1) == want;	/* some old tars
							 * summed signed */
}

static int tar_is_zero(const unsigned char *block)
{
	size_t i;

	for (i = 0; i < BALE_TAR_BLOCK; i++)
		if (block[i])
			return 0;
	return 1;
}

static enum bale_tar_kind tar_kind(char type)
{
	switch (type) {
	case '0': case '\0': case '7': return BALE_TAR_FILE;
	case '5': return BALE_TAR_DIR;
	case '2': return BALE_TAR_SYMLINK;
	case '1': return BALE_TAR_HARDLINK;
	case '3': case '4': case '6': return BALE_TAR_SPECIAL;
	default: return BALE_TAR_OTHER;
	}
}

/* Read a metadata member's data (a long name, pax records) whole. */
static int tar_read_meta(struct tar_scan *t, uint64_t off, uint64_t size,
    uint64_t max, char **out)
{
	size_t got;
	char *s;
	int rc;

	if (size > max)
		return tar_damaged(t, "name or pax header too long");
	s = malloc((size_t)size + 1);
	if (!s)
		return bale_errbuf_set(t->err, BALE_ENOMEM, "no memory");
	rc = tar_pread(t, s, (size_t)size, off, &got);
	if (rc == BALE_OK && got < size)
		rc = tar_damaged(t, "archive ends inside a header");
	if (rc != BALE_OK) {
		free(s);
		return rc;
	}
	s[size] = '\0';
	*out = s;
	return BALE_OK;
}

static int tar_set_name(struct tar_scan *t, const char *s, size_t n)
{
	char *name = strndup(s, n);

	if (!name)
		return bale_errbuf_set(t->err, BALE_ENOMEM, "no memory");
	free(t->name);
	t->name = name;
	return BALE_OK;
}

/* One pax record "LEN key=value\n" at @p (@n bytes left): apply path and
 * size, ignore the rest. Returns the record length, 0 when malformed. */
static size_t tar_pax_record(struct tar_scan *t, const char *p, size_t n)
{
	const char *eq;
	char *end;
	unsigned long long len;
	uint64_t size;

	errno = 0;
	len = strtoull(p, &end, 10);
	if (errno || *end != ' ' || len < 5 || len > n || p[len - 1] != '\n')
		return 0;
	eq = memchr(end + 1, '=', (size_t)(p + len - 1 - (end + 1)));
	if (!eq)
		return 0;
	if (eq - (end + 1) == 4 && memcmp(end + 1, "path", 4) == 0 &&
	    tar_set_name(t, eq + 1, (size_t)(p + len - 1 - (eq + 1))) != 0)
		return 0;
	if (eq - (end + 1) == 4 && memcmp(end + 1, "size", 4) == 0) {
		errno = 0;
		size = strtoull(eq + 1, &end, 10);
		if (errno || end != p + len - 1)
			return 0;
		t->pax_size = size;
		t->has_pax_size = 1;
	}
	return (size_t)len;
}

static int tar_pax(struct tar_scan *t, uint64_t off, uint64_t size)
{
	char *recs = NULL;
	size_t at = 0;
	size_t len;
	int rc;

	rc = tar_read_meta(t, off, size, BALE_TAR_MAX_PAX, &recs);
	if (rc != BALE_OK)
		return rc;
	while (at < size && recs[at] != '\0') {
		len = tar_pax_record(t, recs + at, (size_t)size - at);
		if (len == 0) {
			free(recs);
			return tar_damaged(t, "malformed pax header");
		}
		at += len;
	}
	free(recs);
	return BALE_OK;
}

static int tar_long_name(struct tar_scan *t, uint64_t off, uint64_t size)
{
	char *s = NULL;
	int rc;

	rc = tar_read_meta(t, off, size, BALE_TAR_MAX_NAME, &s);
	if (rc != BALE_OK)
		return rc;
	free(t->name);
	t->name = s;
	return BALE_OK;
}

/* The member's name: a pending long name, else ustar prefix/name. */
static int tar_member_name(struct tar_scan *t, const unsigned char *h)
{
	size_t n = strnlen((const char *)h + TAR_NAME, TAR_NAME_LEN);
	size_t np = 0;
	char *s;

	free(t->member_name);
	t->member_name = NULL;
	if (t->name) {
		t->member_name = t->name;
		t->name = NULL;
		return BALE_OK;
	}
	if (memcmp(h + TAR_MAGIC, "ustar\0", 6) == 0)
		np = strnlen((const char *)h + TAR_PREFIX, TAR_PREFIX_LEN);
	s = malloc(np + 1 + n + 1);
	if (!s)
		return bale_errbuf_set(t->err, BALE_ENOMEM, "no memory");
	memcpy(s, h + TAR_PREFIX, np);
	if (np)
		s[np++] = '/';
	memcpy(s + np, h + TAR_NAME, n);
	s[np + n] = '\0';
	t->member_name = s;
	return BALE_OK;
}

/* Handle the header at t->pos; *done at the end of the archive. */
static int tar_header(struct tar_scan *t, const unsigned char *h,
    bale_tar_member_fn fn, void *ctx)
{
	struct bale_tar_member m;
	uint64_t data = t->pos + BALE_TAR_BLOCK;
	uint64_t size;
	char type = (char)h[TAR_TYPE];
	int rc;

	if (!bale_tar_is_header(h))
		return tar_damaged(t, "not a tar header (bad checksum)");
	if (tar_number(h + TAR_SIZE, TAR_SIZE_LEN, &size) != 0)
		return tar_damaged(t, "bad size field");
	if (t->has_pax_size && type != 'x' && type != 'g' && type != 'L')
		size = t->pax_size;
	if (data > t->end || size > t->end - data)
		return tar_damaged(t, "member runs past the end of the "
		    "archive (truncated?)");
	if (type == 'x')
		rc = tar_pax(t, data, size);
	else if (type == 'L')
		rc = tar_long_name(t, data, size);
	else if (type == 'g' || type == 'K')
		rc = BALE_OK;	/* global pax records, link names: unused */
	else {
		rc = tar_member_name(t, h);
		if (rc != BALE_OK)
			return rc;
		m.name = t->member_name;
		m.kind = tar_kind(type);
		m.type = type;
		m.offset = data;
		m.size = size;
		t->has_pax_size = 0;
		rc = fn(ctx, &m);
	}
	/* the data, padded to whole blocks */
	t->pos = data + size + (BALE_TAR_BLOCK - size % BALE_TAR_BLOCK) %
	    BALE_TAR_BLOCK;
	return rc;
}

/* Each header's place is known only once the one before is read: on a
 * cold cache, one small read after another, each waiting for the disk
 * (0.70 s for the 10 000 members of a 1 GB tar). Reading ahead of the
 * scan makes it one sequential read (0.34 s; steps of 2, 8, 16 and 64 MB
 * gave 0.43, 0.32, 0.55 and 0.72 s), whose data the workers then find
 * cached (or, for an archive larger than memory, read again: still
 * cheaper than a disk round trip per member). */
static void tar_read_ahead(struct tar_scan *t)
{
	uint64_t len;

	if (t->pos + TAR_READ_AHEAD / 2 < t->ahead || t->ahead >= t->end)
		return;
	if (t->ahead < t->pos)
		t->ahead = t->pos;
	len = t->end - t->ahead < TAR_READ_AHEAD ? t->end - t->ahead :
	    TAR_READ_AHEAD;
	(void)posix_fadvise(t->fd, (off_t)t->ahead, (off_t)len,
	    POSIX_FADV_WILLNEED);
	t->ahead += len;
}

int bale_tar_scan(int fd, uint64_t start, uint64_t end,
    bale_tar_member_fn fn, void *ctx, struct bale_errbuf *err)
{
	unsigned char h[BALE_TAR_BLOCK];
	struct tar_scan t;
	size_t got;
	int rc = BALE_OK;

	memset(&t, 0, sizeof(t));
	t.fd = fd;
	t.pos = start;
	t.end = end;
	t.err = err;
	while (rc == BALE_OK && t.pos < t.end) {
		tar_read_ahead(&t);
		rc = tar_pread(&t, h, sizeof(h), t.pos, &got);
		if (rc != BALE_OK)
			break;
		if (got == 0)
			break;	/* the file is shorter than @end said */
		if (got < sizeof(h) || t.end - t.pos < sizeof(h)) {
			rc = tar_damaged(&t, "archive ends inside a header");
			break;
		}
		if (tar_is_zero(h))
			break;
		rc = tar_header(&t, h, fn, ctx);
	}
	free(t.name);
	free(t.member_name);
	return rc;
}

int bale_tar_is_tar_name(const char *name)
{
	size_t n = strlen(name);

	return n >= 4 && strcasecmp(name + n - 4, ".tar") == 0;
}
