/* wds_out.c - ustar members written by hand (see wds_out.h). */
#include "wds_out.h"

#include "bale_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define WDS_OUT_CAP ((size_t)512 << 10)
#define WDS_OUT_DIRECT ((size_t)64 << 10)	/* written, never copied */
#define WDS_OUT_GATHERED ((size_t)1 << 20)	/* held: a write's bytes */
#define WDS_OUT_BLOCK 512
#define WDS_OUT_NAME_MAX 100
#define WDS_OUT_SIZE_AT 124	/* 11 octal digits and a space */
#define WDS_OUT_SUM_AT 148	/* 6 octal digits, NUL, space */

/* A member's header with every field but the name, the size and the
 * checksum, as libarchive's ustar writer fills them. */
static const unsigned char wds_out_template[WDS_OUT_BLOCK] = {
	[100] = '0', '0', '0', '6', '4', '4', ' ', 0,	/* mode */
	[108] = '0', '0', '0', '0', '0', '0', ' ', 0,	/* uid */
	[116] = '0', '0', '0', '0', '0', '0', ' ', 0,	/* gid */
	[136] = '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', ' ',
	[148] = ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',	/* summed so */
	[156] = '0',					/* a file */
	[257] = 'u', 's', 't', 'a', 'r', 0, '0', '0',
	[329] = '0', '0', '0', '0', '0', '0', ' ', 0,	/* devmajor */
	[337] = '0', '0', '0', '0', '0', '0', ' ', 0,	/* devminor */
};

static const unsigned char wds_out_zeros[WDS_OUT_BLOCK];

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

/* The buffer, then @p[0..n) if not NULL, to the upload. */
static int wds_out_upload(struct wds_out *o, const void *p, size_t n)
{
	if (bale_swrite_write(o->sw, o->buf, o->len, &o->err) != BALE_OK ||
	    (p && bale_swrite_write(o->sw, p, n, &o->err) != BALE_OK)) {
		errno = EIO;
		return -1;
	}
	o->written += o->len + (p ? n : 0);
	o->len = 0;
	return 0;
}

/* What is gathered, with the buffer's bytes after it, to the file. */
/* The buffer's bytes not gathered yet, gathered. */
static void wds_out_gather_buffer(struct wds_out *o)
{
	if (o->len == o->gathered_to)
		return;
	o->gathered[o->ngathered++] = (struct iovec){ o->buf +
	    o->gathered_to, o->len - o->gathered_to };
	o->gathered_bytes += o->len - o->gathered_to;
	o->gathered_to = o->len;
}

static int wds_out_write_gathered(struct wds_out *o)
{
	int rc;

	wds_out_gather_buffer(o);
	rc = wds_out_writev(o->fd, o->gathered, o->ngathered);
	o->written += rc == 0 ? o->gathered_bytes : 0;
	o->ngathered = 0;
	o->gathered_bytes = 0;
	o->gathered_to = 0;
	o->len = 0;
	return rc;
}

/* Payload @p[0..n) gathered after the buffer's bytes before it; written
 * with what is gathered once that is a megabyte or its pieces run out. */
static int wds_out_gather(struct wds_out *o, const void *p, size_t n)
{
	if (o->ngathered + 3 > BALE_WDS_OUT_GATHER &&
	    wds_out_write_gathered(o) != 0)
		return -1;
	wds_out_gather_buffer(o);
	o->gathered[o->ngathered++] = (struct iovec){ (void *)p, n };
	o->gathered_bytes += n;
	return o->gathered_bytes >= WDS_OUT_GATHERED ?
	    wds_out_write_gathered(o) : 0;
}

/* The buffer, then @p[0..n) if not NULL, to the file. Direct, only a
 * full buffer goes (whole blocks): it is handed to the dio thread, and
 * the next one is filled. */
static int wds_out_flush(struct wds_out *o, const void *p, size_t n)
{
	struct iovec iov[2] = { { o->buf, o->len }, { (void *)p, n } };
	int rc;

	if (o->ngathered && wds_out_write_gathered(o) != 0)
		return -1;	/* (the buffer with it) */
	if (!p && !o->len)
		return 0;
	iov[0].iov_len = o->len;
	if (o->sw)
		return wds_out_upload(o, p, n);
	if (o->direct) {
		rc = bale_wds_dio_hand(&o->dio);
		o->buf = bale_wds_dio_buf(&o->dio);
	} else {
		rc = wds_out_writev(o->fd, iov, p ? 2 : 1);
		o->written += rc == 0 ? o->len + (p ? n : 0) : 0;
	}
	o->len = 0;
	return rc;
}

/* @n bytes into the buffer, or straight to the file when large (through
 * the cache; direct, every byte is copied, a buffer at a time). */
static int wds_out_put(struct wds_out *o, const void *p, size_t n)
{
	const unsigned char *from = p;
	size_t k;

	if (!o->direct && n >= WDS_OUT_DIRECT)
		return o->hold ? wds_out_gather(o, p, n) :
		    wds_out_flush(o, p, n);
	while (n > 0) {
		if (o->len == o->cap && wds_out_flush(o, NULL, 0) != 0)
			return -1;
		k = n < o->cap - o->len ? n : o->cap - o->len;
		memcpy(o->buf + o->len, from, k);
		o->len += k;
		from += k;
		n -= k;
	}
	return 0;
}

int bale_wds_out_begin(struct wds_out *o, int fd, int direct)
{
	if (!o->own) {
		o->own = malloc(WDS_OUT_CAP);
		if (!o->own)
			return -1;
	}
	o->fd = fd;
	o->sw = NULL;
	o->len = 0;
	o->written = 0;
	/* a file system without O_DIRECT is written through the cache */
	o->direct = direct && bale_wds_dio_start(&o->dio, fd) == 0;
	o->buf = o->direct ? bale_wds_dio_buf(&o->dio) : o->own;
	o->cap = o->direct ? BALE_WDS_DIO_BUF : WDS_OUT_CAP;
	return 0;
}

int bale_wds_out_begin_upload(struct wds_out *o, struct bale_swrite *sw)
{
	if (bale_wds_out_begin(o, -1, 0) != 0)
		return -1;
	o->sw = sw;
	return 0;
}

const char *bale_wds_out_why(const struct wds_out *o)
{
	return o->sw ? o->err.msg : strerror(errno);
}

/* @v in @width octal digits at @f. */
static void wds_out_octal(unsigned char *f, int width, uint64_t v)
{
	while (width-- > 0) {
		f[width] = (unsigned char)('0' + (v & 7));
		v >>= 3;
	}
}

/* The header of member @name of @n bytes into @h. */
static int wds_out_header(unsigned char *h, const char *name, uint64_t n)
{
	size_t len = strlen(name), i;
	unsigned sum = 0;

	if (len >= WDS_OUT_NAME_MAX || n > BALE_WDS_OUT_SIZE_MAX) {
		errno = EINVAL;	/* the caller checks both first */
		return -1;
	}
	memcpy(h, wds_out_template, WDS_OUT_BLOCK);
	memcpy(h, name, len);
	wds_out_octal(h + WDS_OUT_SIZE_AT, 11, n);
	h[WDS_OUT_SIZE_AT + 11] = ' ';
	for (i = 0; i < WDS_OUT_BLOCK; i++)
		sum += h[i];
	wds_out_octal(h + WDS_OUT_SUM_AT, 6, sum);
	h[WDS_OUT_SUM_AT + 6] = 0;
	h[WDS_OUT_SUM_AT + 7] = ' ';
	return 0;
}

int bale_wds_out_member(struct wds_out *o, const char *name,
    const void *data, uint64_t n)
{
	unsigned char *h;
	size_t pad = (size_t)((WDS_OUT_BLOCK - n % WDS_OUT_BLOCK) %
	    WDS_OUT_BLOCK);

	/* every write is whole blocks: direct, the buffer is full here */
	if (o->cap - o->len < WDS_OUT_BLOCK && wds_out_flush(o, NULL, 0) != 0)
		return -1;
	h = o->buf + o->len;
	if (wds_out_header(h, name, n) != 0)
		return -1;
	o->len += WDS_OUT_BLOCK;
	if (n && wds_out_put(o, data, (size_t)n) != 0)
		return -1;
	return pad ? wds_out_put(o, wds_out_zeros, pad) : 0;
}

int bale_wds_out_push(struct wds_out *o)
{
	return !o->direct && (o->len || o->ngathered) ? wds_out_flush(o, NULL,
	    0) : 0;
}

void bale_wds_out_hold(struct wds_out *o, int hold)
{
	o->hold = hold && !o->direct && !o->sw;
}

int bale_wds_out_settle(struct wds_out *o)
{
	return o->ngathered ? wds_out_write_gathered(o) : 0;
}

uint64_t bale_wds_out_on_disk(struct wds_out *o)
{
	return o->direct ? bale_wds_dio_done(&o->dio) : o->written;
}

int bale_wds_out_end(struct wds_out *o)
{
	size_t tail;

	if (wds_out_put(o, wds_out_zeros, WDS_OUT_BLOCK) != 0 ||
	    wds_out_put(o, wds_out_zeros, WDS_OUT_BLOCK) != 0)
		return -1;
	if (!o->direct)
		return o->len || o->ngathered ? wds_out_flush(o, NULL, 0) : 0;
	tail = o->len;
	o->direct = 0;
	o->len = 0;
	return bale_wds_dio_end(&o->dio, tail);
}

void bale_wds_out_release(struct wds_out *o)
{
	bale_wds_dio_release(&o->dio);
	free(o->own);
	o->own = NULL;
	o->buf = NULL;
	o->direct = 0;
	o->len = 0;
	o->cap = 0;
	o->ngathered = 0;	/* what it referred to is the caller's */
	o->gathered_bytes = 0;
	o->gathered_to = 0;
}
