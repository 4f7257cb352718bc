/* buf.h - a growable byte buffer, and printf into fresh strings. */
#ifndef BALE_BUF_H
#define BALE_BUF_H

#include <stddef.h>

/** Caller-owned; zero-initialise or use BALE_BUF_INIT. */
struct bale_buf {
	char *data;		/* always NUL-terminated when len > 0 */
	size_t len;
	size_t cap;
	int failed;		/* sticky: an allocation failed */
};

#define BALE_BUF_INIT { NULL, 0, 0, 0 }

/** Append @n bytes; on failure the buffer is marked failed. */
void bale_buf_add(struct bale_buf *b, const void *p, size_t n);
void bale_buf_puts(struct bale_buf *b, const char *s);
/** Append @n zero bytes. */
void bale_buf_zeros(struct bale_buf *b, size_t n);
void bale_buf_printf(struct bale_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void bale_buf_reset(struct bale_buf *b);
void bale_buf_release(struct bale_buf *b);

/** Make *@buf hold at least @need bytes (contents not kept when it
 *  grows: a scratch buffer). @return 0, or -1 without memory */
int bale_grow(unsigned char **buf, size_t *cap, size_t need);

/** A newly allocated formatted string, or NULL without memory. */
char *bale_strfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
