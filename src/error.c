/* error.c - status names and per-handle messages. */
#include "bale.h"
#include "bale_config.h"
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <stdio.h>

const char *bale_version(void)
{
	return BALE_VERSION;
}

const char *bale_strerror(int rc)
{
	switch (rc) {
	case BALE_OK: return "success";
	case BALE_ENOMEM: return "out of memory";
	case BALE_EINVAL: return "invalid argument";
	case BALE_ENOENT: return "not found";
	case BALE_EIO: return "input/output error";
	case BALE_EBACKEND: return "format library error";
	case BALE_ENOOPT: return "unknown option";
	case BALE_ESTATE: return "call out of order";
	case BALE_EEXIST: return "output exists";
	case BALE_EINPUT: return "bad input";
	case BALE_EINTR: return "interrupted";
	case BALE_ENOTSUP: return "not supported by this format";
	default: return "unknown error";
	}
}

int bale_errbuf_setv(struct bale_errbuf *e, int rc, const char *fmt,
    va_list ap)
{
	e->rc = rc;
	e->remedy = BALE_REMEDY_NONE;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return rc;
}

int bale_errbuf_set(struct bale_errbuf *e, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bale_errbuf_setv(e, rc, fmt, ap);
	va_end(ap);
	return rc;
}

void bale_errbuf_clear(struct bale_errbuf *e)
{
	e->rc = 0;
	e->remedy = BALE_REMEDY_NONE;
	e->msg[0] = '\0';
}

int bale_errbuf_copy(struct bale_errbuf *to, const struct bale_errbuf *from)
{
	if (to != from)
		*to = *from;
	return to->rc;
}
