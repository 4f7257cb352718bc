/* error.c - status names and per-handle messages. */
#include "bale.h"
#include "bale_config.h"
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
	case BALE_EAUTH: return "credentials refused";
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

void bale_errbuf_prefix(struct bale_errbuf *e, const char *name)
{
	size_t n = strlen(name), len = strlen(e->msg);

	if (!e->msg[0] || (strncmp(e->msg, name, n) == 0 &&
	    e->msg[n] == ':' && e->msg[n + 1] == ' '))
		return;
	if (len + n + 2 >= sizeof(e->msg))	/* the end gives way */
		len = sizeof(e->msg) - n - 3;
	memmove(e->msg + n + 2, e->msg, len);
	memcpy(e->msg, name, n);
	memcpy(e->msg + n, ": ", 2);
	e->msg[len + n + 2] = '\0';
}

int bale_errbuf_setv_named(struct bale_errbuf *e, const char *name, int rc,
    const char *fmt, va_list ap)
{
	bale_errbuf_setv(e, rc, fmt, ap);
	if (name)
		bale_errbuf_prefix(e, name);
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

int bale_errbuf_exists(struct bale_errbuf *e, const char *format,
    const char *path)
{
	bale_errbuf_set(e, BALE_EEXIST, "%s: '%s' exists", format, path);
	e->remedy = BALE_REMEDY_REPLACE;
	return BALE_EEXIST;
}

int bale_errbuf_cut_short(struct bale_errbuf *e, const char *format,
    const char *path, uint64_t held, uint64_t listed)
{
	bale_errbuf_set(e, BALE_EINVAL, "%s: '%s' holds %" PRIu64 " samples, "
	    "not the %" PRIu64 " its manifest lists: an earlier update was "
	    "cut short", format, path, held, listed);
	e->remedy = BALE_REMEDY_RELABEL;
	return BALE_EINVAL;
}
