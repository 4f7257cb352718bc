/* store_https.c - a file at a plain https:// (or http://) URL, public,
 * read by ranged GETs without credentials: an output's file named in
 * full (a URL cannot be listed, so not its folder). */
#include "remote.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

static int https_claims(const char *name)
{
	return strncmp(name, "https://", 8) == 0 ||
	    strncmp(name, "http://", 7) == 0;
}

static int https_open(const char *name, void **h, uint64_t *size,
    struct bale_errbuf *err)
{
	char *url = strdup(name);

	if (!url)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	return bale_remote_open(name, url, NULL, h, size, err);
}

static int https_open_known(const char *name, void **h,
    struct bale_errbuf *err)
{
	char *url = strdup(name);

	if (!url)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	return bale_remote_open_known(name, url, NULL, h, err);
}

static int https_stat(const char *name, struct bale_store_stat *st,
    struct bale_errbuf *err)
{
	uint64_t size;
	void *h;
	int rc = https_open(name, &h, &size, err);

	if (rc != BALE_OK)
		return rc;
	snprintf(st->tag, sizeof(st->tag), "%s",
	    ((struct remote_file *)h)->etag);
	bale_remote_close(h);
	st->size = size;
	return BALE_OK;
}

static int https_list(const char *dir, bale_store_entry_fn fn, void *arg,
    struct bale_errbuf *err)
{
	(void)fn;
	(void)arg;
	return bale_errbuf_set(err, BALE_ENOTSUP, "'%s': a URL cannot be "
	    "listed: name an output's file (NAME-shards.json, NAME.h5)", dir);
}

static int https_read_all(const char *name, char **data, size_t *len,
    struct bale_errbuf *err)
{
	return bale_remote_get_all(name, name, NULL, data, len, err);
}

const struct bale_store bale_store_https = {
	.name = "https",
	.claims = https_claims,
	.open = https_open,
	.open_known = https_open_known,
	.read = bale_remote_read,
	.close = bale_remote_close,
	.request = bale_remote_request,
	.stat = https_stat,
	.list = https_list,
	.read_all = https_read_all,
};
