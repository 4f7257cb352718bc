/* errbuf.h - the message buffer every handle carries. */
#ifndef BALE_ERRBUF_H
#define BALE_ERRBUF_H

#include <stdarg.h>

struct bale_errbuf {
	int rc;
	char msg[512];
};

/** Record @rc and a message, replacing any earlier one; returns @rc. */
int bale_errbuf_set(struct bale_errbuf *e, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int bale_errbuf_setv(struct bale_errbuf *e, int rc, const char *fmt,
    va_list ap);
void bale_errbuf_clear(struct bale_errbuf *e);

#endif
