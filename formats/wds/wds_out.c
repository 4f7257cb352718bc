/* wds_out.c - a shard's tar bytes: small writes gathered, large payloads
 * written from the caller's memory (see wds_out.h). */
#include "wds_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define WDS_OUT_CAP ((size_t)512 << 10)
#define WDS_OUT_DIRECT ((size_t)64 << 10)	/* written, never copied */

/* Write @iov[0..n) whole, resuming after short writes. @return 0 or -1
 * with errno set. */
static int wds_out_writev(int fd, struct iovec *iov, int n)
{
	ssize_t put;

	while (n > 0) {
		put = writev(fd, iov, n);
		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0) {
			errno = put < 0 ? errno : EIO;
			return -1;
		}
		while (n > 0 && (size_t)put >= iov->iov_len) {
			put -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + put;
			iov->iov_len -= (size_t)put;
		}
	}
	return 0;
}

/* The buffer, then @p[0..n) if not NULL, to the file. */
static int wds_out_flush(struct wds_out *o, const void *p, size_t n)
{
	struct iovec iov[2] = { { o->buf, o->len }, { (void *)p, n } };
	int rc = wds_out_writev(o->fd, iov, p ? 2 : 1);

	o->len = 0;
	return rc;
}

static la_ssize_t wds_out_write(struct archive *ar, void *arg,
    const void *p, size_t n)
{
	struct wds_out *o = arg;
	int rc = 0;

	if (n >= WDS_OUT_DIRECT)
		rc = wds_out_flush(o, p, n);
	else {
		if (o->len + n > o->cap)
			rc = wds_out_flush(o, NULL, 0);
		memcpy(o->buf + o->len, p, n);
		o->len += n;
	}
	if (rc != 0) {
		archive_set_error(ar, errno, "write failed");
		return -1;
	}
	return (la_ssize_t)n;
}

static int wds_out_close(struct archive *ar, void *arg)
{
	struct wds_out *o = arg;

	if (o->len > 0 && wds_out_flush(o, NULL, 0) != 0) {
		archive_set_error(ar, errno, "write failed");
		return ARCHIVE_FATAL;
	}
	return ARCHIVE_OK;
}

int bale_wds_out_open(struct archive *ar, struct wds_out *o)
{
	if (!o->buf) {
		o->buf = malloc(WDS_OUT_CAP);
		if (!o->buf) {
			archive_set_error(ar, ENOMEM, "no memory");
			return ARCHIVE_FATAL;
		}
		o->cap = WDS_OUT_CAP;
	}
	o->len = 0;
	return archive_write_open2(ar, o, NULL, wds_out_write, wds_out_close,
	    NULL);
}

void bale_wds_out_release(struct wds_out *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = 0;
	o->cap = 0;
}
