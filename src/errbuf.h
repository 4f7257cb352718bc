/* errbuf.h - the message buffer every handle carries. */
#ifndef BALE_ERRBUF_H
#define BALE_ERRBUF_H

#include <stdarg.h>

/* Every internal call that can fail the way a user should hear about
 * returns a BALE_* code and, on failure, leaves a sentence here: in the
 * handle it works on, or in one its caller passes. */
struct bale_errbuf {
	int rc;
	int remedy;		/* enum bale_remedy: what the user can do */
	char msg[512];
};

/** Record @rc and a message, replacing any earlier one; returns @rc. */
int bale_errbuf_set(struct bale_errbuf *e, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int bale_errbuf_setv(struct bale_errbuf *e, int rc, const char *fmt,
    va_list ap);
void bale_errbuf_clear(struct bale_errbuf *e);

/** Copy @from's failure (code, remedy, sentence) into @to; returns its
 *  code. */
int bale_errbuf_copy(struct bale_errbuf *to, const struct bale_errbuf *from);

#endif
