/* zip_scan.c - read a zip's central directory and locate every member. */
#include "zip_scan.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "bale_store.h"
#include "le.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ZIP_EOCD_SIG 0x06054b50u
#define ZIP_EOCD_LEN 22
#define ZIP_EOCD64_SIG 0x06064b50u
#define ZIP_EOCD64_LEN 56
#define ZIP_LOCATOR_SIG 0x07064b50u
#define ZIP_LOCATOR_LEN 20
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_CENTRAL_LEN 46
#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_MAX_COMMENT 65535
#define ZIP_UNIX_HOST 3

/* Where the central directory lies. */
struct zip_dir {
	uint64_t offset;
	uint64_t size;
	uint64_t entries;
};

static int zip_damaged(struct bale_errbuf *err, const char *what)
{
	return bale_errbuf_set(err, BALE_EINPUT, "damaged zip: %s", what);
}

/* Read exactly @n bytes at @off; BALE_EINPUT when the file is shorter. */
static int zip_pread(int fd, void *buf, size_t n, uint64_t off,
    struct bale_errbuf *err)
{
	struct bale_errbuf why;
	size_t got;

	if (bale_store_fd_scan(fd, buf, n, off, &got, &why) != BALE_OK)
		return bale_errbuf_set(err, why.rc,
		    "cannot read the archive: %s", why.msg);
	if (got < n)
		return zip_damaged(err, "the archive is cut short");
	return BALE_OK;
}

/* The offset of the end-of-central-directory record, or -1. */
static int64_t zip_find_eocd(int fd, uint64_t size)
{
	unsigned char *tail;
	size_t n = size < ZIP_EOCD_LEN + ZIP_MAX_COMMENT ? (size_t)size :
	    ZIP_EOCD_LEN + ZIP_MAX_COMMENT;
	struct bale_errbuf ignored;
	int64_t at = -1;
	size_t i;

	if (n < ZIP_EOCD_LEN || !(tail = malloc(n)))
		return -1;
	if (zip_pread(fd, tail, n, size - n, &ignored) == BALE_OK)
		for (i = n - ZIP_EOCD_LEN + 1; i-- > 0;)
			if (bale_le32(tail + i) == ZIP_EOCD_SIG &&
			    (size_t)ZIP_EOCD_LEN + bale_le16(tail + i + 20) <=
			    n - i) {
				at = (int64_t)(size - n + i);
				break;
			}
	free(tail);
	return at;
}

int bale_zip_probe(int fd, uint64_t size)
{
	return zip_find_eocd(fd, size) >= 0;
}

/* The zip64 end record, found through its locator before @eocd. */
static int zip_dir64(int fd, uint64_t eocd, struct zip_dir *d,
    struct bale_errbuf *err)
{
	unsigned char loc[ZIP_LOCATOR_LEN];
	unsigned char rec[ZIP_EOCD64_LEN];
	int rc;

	if (eocd < ZIP_LOCATOR_LEN)
		return zip_damaged(err, "zip64 locator missing");
	rc = zip_pread(fd, loc, sizeof(loc), eocd - ZIP_LOCATOR_LEN, err);
	if (rc != BALE_OK)
		return rc;
	if (bale_le32(loc) != ZIP_LOCATOR_SIG)
		return zip_damaged(err, "zip64 locator missing");
	rc = zip_pread(fd, rec, sizeof(rec), bale_le64(loc + 8), err);
	if (rc != BALE_OK)
		return rc;
	if (bale_le32(rec) != ZIP_EOCD64_SIG)
		return zip_damaged(err, "zip64 end record missing");
	if (bale_le32(rec + 16) != 0 || bale_le32(rec + 20) != 0)
		return bale_errbuf_set(err, BALE_EINPUT,
		    "multi-part zip archives are not supported");
	d->entries = bale_le64(rec + 32);
	d->size = bale_le64(rec + 40);
	d->offset = bale_le64(rec + 48);
	return BALE_OK;
}

static int zip_find_dir(int fd, uint64_t size, struct zip_dir *d,
    struct bale_errbuf *err)
{
	unsigned char e[ZIP_EOCD_LEN];
	int64_t at = zip_find_eocd(fd, size);
	int rc;

	if (at < 0)
		return zip_damaged(err, "no end of central directory "
		    "(not a zip, or cut short)");
	rc = zip_pread(fd, e, sizeof(e), (uint64_t)at, err);
	if (rc != BALE_OK)
		return rc;
	d->entries = bale_le16(e + 10);
	d->size = bale_le32(e + 12);
	d->offset = bale_le32(e + 16);
	if (d->entries == 0xffff || d->size == 0xffffffffu ||
	    d->offset == 0xffffffffu)
		return zip_dir64(fd, (uint64_t)at, d, err);
	if (bale_le16(e + 4) != 0 || bale_le16(e + 6) != 0)
		return bale_errbuf_set(err, BALE_EINPUT,
		    "multi-part zip archives are not supported");
	return BALE_OK;
}

/* Sizes and offset the zip64 extra field holds for fields set to ~0. */
static void zip_extra64(const unsigned char *x, size_t n,
    struct bale_zip_member *m, uint64_t *lho)
{
	uint64_t *want[3] = { NULL, NULL, NULL };
	size_t k = 0;
	size_t i;
	uint16_t len;

	if (m->size == 0xffffffffu)
		want[k++] = &m->size;
	if (m->csize == 0xffffffffu)
		want[k++] = &m->csize;
	if (*lho == 0xffffffffu)
		want[k++] = lho;
	while (n >= 4) {
		len = bale_le16(x + 2);
		if ((size_t)len + 4 > n)
			return;
		if (bale_le16(x) == 0x0001)
			for (i = 0; i < k && (i + 1) * 8 <= len; i++)
				*want[i] = bale_le64(x + 4 + i * 8);
		x += 4 + len;
		n -= 4 + (size_t)len;
	}
}

static enum bale_zip_kind zip_kind(const unsigned char *c, const char *name,
    size_t n)
{
	unsigned mode = bale_le32(c + 38) >> 16;

	/* Unix attributes say the type when their type bits are set (some
	 * writers leave them zero: then the name decides) */
	if (c[5] == ZIP_UNIX_HOST && (mode & S_IFMT)) {
		if (S_ISLNK(mode))
			return BALE_ZIP_SYMLINK;
		if (S_ISDIR(mode))
			return BALE_ZIP_DIR;
		if (!S_ISREG(mode))
			return BALE_ZIP_SPECIAL;
	}
	return n && name[n - 1] == '/' ? BALE_ZIP_DIR : BALE_ZIP_FILE;
}

const char *bale_zip_local_data(const unsigned char *h, uint64_t lho,
    uint64_t csize, uint64_t size, uint64_t *data)
{
	if (bale_le32(h) != ZIP_LOCAL_SIG)
		return "no local header where the directory says";
	*data = lho + BALE_ZIP_LOCAL_LEN + bale_le16(h + 26) +
	    bale_le16(h + 28);
	if (*data > size || csize > size - *data)
		return "member runs past the end of the archive (truncated?)";
	return NULL;
}

/* Where member @m's data starts, from its local header at @lho; NULL, or
 * why it cannot be read. An object's is left to its reader. */
static const char *zip_locate(int fd, uint64_t size, uint64_t lho,
    struct bale_zip_member *m, int *rc, struct bale_errbuf *err)
{
	unsigned char h[BALE_ZIP_LOCAL_LEN];

	*rc = BALE_OK;
	if (lho > size || size - lho < BALE_ZIP_LOCAL_LEN)
		return "local header past the end of the archive";
	if (bale_store_fd_remote(fd)) {
		m->offset = lho;
		m->at_header = 1;
		return NULL;
	}
	*rc = zip_pread(fd, h, sizeof(h), lho, err);
	if (*rc == BALE_EINPUT) {
		*rc = BALE_OK;
		return "local header cut short";
	}
	if (*rc != BALE_OK)
		return "read error";
	return bale_zip_local_data(h, lho, m->csize, size, &m->offset);
}

/* One central directory entry at @c (@left bytes); *len its length. */
static int zip_entry(int fd, uint64_t size, const unsigned char *c,
    size_t left, size_t *len, bale_zip_member_fn fn, void *ctx,
    struct bale_errbuf *err)
{
	struct bale_zip_member m;
	size_t n, x;
	uint64_t lho;
	const char *why = NULL;
	char *name;
	int rc = BALE_OK;

	if (left < ZIP_CENTRAL_LEN || bale_le32(c) != ZIP_CENTRAL_SIG)
		return zip_damaged(err, "bad central directory entry");
	n = bale_le16(c + 28);
	x = bale_le16(c + 30);
	*len = ZIP_CENTRAL_LEN + n + x + bale_le16(c + 32);
	if (*len > left)
		return zip_damaged(err, "central directory entry cut short");
	name = strndup((const char *)c + ZIP_CENTRAL_LEN, n);
	if (!name)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	memset(&m, 0, sizeof(m));
	m.name = name;
	m.kind = zip_kind(c, name, strlen(name));
	m.method = bale_le16(c + 10);
	m.encrypted = bale_le16(c + 8) & 1;
	m.crc = bale_le32(c + 16);
	m.csize = bale_le32(c + 20);
	m.size = bale_le32(c + 24);
	lho = bale_le32(c + 42);
	zip_extra64(c + ZIP_CENTRAL_LEN + n, x, &m, &lho);
	if (strlen(name) != n)
		why = "member name holds a NUL byte";
	else
		why = zip_locate(fd, size, lho, &m, &rc, err);
	rc = rc != BALE_OK ? rc : fn(ctx, &m, why);
	free(name);
	return rc;
}

/* The central directory read a window at a time: a zip of ten million
 * members has a directory of most of a GiB. The window holds the
 * largest entry (46 bytes and three fields of up to 64 KiB). */
#define ZIP_WINDOW ((size_t)1 << 20)

struct zip_window {
	int fd;
	uint64_t next;		/* the directory's next byte to read */
	uint64_t end;
	unsigned char *buf;
	size_t at;		/* the next entry in @buf */
	size_t len;
};

/* Have @need bytes from @at in the window, or all the directory has
 * left. */
static int zip_window_fill(struct zip_window *w, size_t need,
    struct bale_errbuf *err)
{
	size_t left = w->len - w->at;
	size_t take = ZIP_WINDOW - left;
	int rc;

	if (left >= need || w->next == w->end)
		return BALE_OK;
	memmove(w->buf, w->buf + w->at, left);
	w->at = 0;
	w->len = left;
	if (take > w->end - w->next)
		take = (size_t)(w->end - w->next);
	rc = zip_pread(w->fd, w->buf + left, take, w->next, err);
	w->next += take;
	w->len += take;
	return rc;
}

/* Bring the whole entry at the window's @at in: its fixed part says how
 * long it is. */
static int zip_window_entry(struct zip_window *w, struct bale_errbuf *err)
{
	const unsigned char *c;
	int rc = zip_window_fill(w, ZIP_CENTRAL_LEN, err);

	if (rc != BALE_OK || w->len - w->at < ZIP_CENTRAL_LEN)
		return rc;
	c = w->buf + w->at;
	return zip_window_fill(w, ZIP_CENTRAL_LEN + (size_t)bale_le16(c + 28) +
	    bale_le16(c + 30) + bale_le16(c + 32), err);
}

int bale_zip_scan(int fd, uint64_t size, bale_zip_member_fn fn, void *ctx,
    struct bale_errbuf *err)
{
	struct zip_dir d = { 0, 0, 0 };
	struct zip_window w;
	size_t len = 0;
	uint64_t i;
	int rc;

	rc = zip_find_dir(fd, size, &d, err);
	if (rc != BALE_OK)
		return rc;
	if (d.offset > size || d.size > size - d.offset)
		return zip_damaged(err, "central directory past the end");
	memset(&w, 0, sizeof(w));
	w.fd = fd;
	w.next = d.offset;
	w.end = d.offset + d.size;
	w.buf = malloc(ZIP_WINDOW);
	if (!w.buf)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	for (i = 0; rc == BALE_OK && i < d.entries; i++) {
		rc = zip_window_entry(&w, err);
		if (rc == BALE_OK)
			rc = zip_entry(fd, size, w.buf + w.at, w.len - w.at,
			    &len, fn, ctx, err);
		w.at += len;
	}
	free(w.buf);
	return rc;
}
