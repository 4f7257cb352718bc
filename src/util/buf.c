/* buf.c - growable byte buffer, and arrays. */
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int buf_reserve(struct bale_buf *b, size_t extra)
{
	size_t want = b->len + extra + 1;
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (b->failed)
		return -1;
	if (want <= b->cap)
		return 0;
	while (cap < want)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = 1;
		return -1;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

void bale_buf_add(struct bale_buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;		/* p may be NULL then */
	if (buf_reserve(b, n) != 0)
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void bale_buf_zeros(struct bale_buf *b, size_t n)
{
	if (n == 0 || buf_reserve(b, n) != 0)
		return;
	memset(b->data + b->len, 0, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void bale_buf_puts(struct bale_buf *b, const char *s)
{
	bale_buf_add(b, s, strlen(s));
}

void bale_buf_printf(struct bale_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, (size_t)n) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

size_t bale_fmt_u64(char *out, uint64_t v, int width)
{
	char digits[BALE_FMT_MAX];
	size_t n = 0;

	if (width > BALE_FMT_MAX - 2)
		width = BALE_FMT_MAX - 2;
	do {
		digits[sizeof(digits) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v || n < (size_t)width);
	memcpy(out, digits + sizeof(digits) - n, n);
	out[n] = '\0';
	return n;
}

size_t bale_fmt_i64(char *out, int64_t v)
{
	if (v >= 0)
		return bale_fmt_u64(out, (uint64_t)v, 0);
	*out = '-';
	return 1 + bale_fmt_u64(out + 1, -(uint64_t)v, 0);
}

void bale_buf_u64(struct bale_buf *b, uint64_t v, int width)
{
	char digits[BALE_FMT_MAX];

	bale_buf_add(b, digits, bale_fmt_u64(digits, v, width));
}

void bale_buf_i64(struct bale_buf *b, int64_t v)
{
	char digits[BALE_FMT_MAX];

	bale_buf_add(b, digits, bale_fmt_i64(digits, v));
}

void bale_buf_reset(struct bale_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void bale_buf_release(struct bale_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->failed = 0;
}

int bale_grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = n;
	return 0;
}

int bale_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int bale_grow(unsigned char **buf, size_t *cap, size_t need)
{
	unsigned char *p;

	if (need <= *cap)
		return 0;
	p = malloc(need);
	if (!p)
		return -1;
	free(*buf);
	*buf = p;
	*cap = need;
	return 0;
}

char *bale_strfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}
