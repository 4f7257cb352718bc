/* wds_list.c - the shard list, written and read (wds_list.h). */
#include "wds_list.h"

#include "bale_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void bale_wds_list_add(struct bale_buf *entries, const char *url,
    uint64_t nsamples, uint64_t filesize)
{
	bale_buf_puts(entries, entries->len ? ",\n{" : "\n{");
	bale_json_kv_str(entries, "url", url, 1);
	bale_json_kv_u64(entries, "nsamples", nsamples, 0);
	bale_json_kv_u64(entries, "filesize", filesize, 0);
	bale_buf_puts(entries, "}");
}

void bale_wds_list_render(struct bale_buf *b, const char *name,
    const struct bale_buf *entries, uint64_t samples, const char *classes,
    size_t classes_len)
{
	bale_buf_puts(b, "{\"__kind__\":\"wids-shard-index-v1\","
	    "\"wids_version\":1,");
	bale_json_kv_str(b, "name", name, 1);
	bale_buf_puts(b, ",\"shardlist\":[");
	bale_buf_add(b, entries->data ? entries->data : "", entries->len);
	bale_buf_puts(b, "],\"bale\":{");
	bale_json_kv_str(b, "version", bale_version(), 1);
	bale_json_kv_u64(b, "samples", samples, 0);
	bale_json_key(b, "classes", 0);
	if (classes && classes_len)
		bale_buf_add(b, classes, classes_len);
	else
		bale_buf_puts(b, "[]");
	bale_buf_puts(b, "}}\n");
}

int bale_wds_list_push(struct wds_list *l, const char *url, uint64_t nsamples,
    uint64_t filesize)
{
	struct wds_shard *grown;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		grown = realloc(l->v, l->cap * sizeof(*l->v));
		if (!grown)
			return -1;
		l->v = grown;
	}
	if (!(l->v[l->n].url = strdup(url)))
		return -1;
	l->v[l->n].nsamples = nsamples;
	l->v[l->n++].filesize = filesize;
	return 0;
}

/* One "shardlist" element (its filesize may be left out, as wids
 * allows). @return 0, or -1 when it is not one */
static int wds_list_entry_read(struct wds_list *l, const char *e,
    const char *eend)
{
	char *url = bale_jsonr_key_string(e, eend, "url");
	uint64_t nsamples, filesize = 0;
	const char *v, *vend;
	int rc = url && bale_jsonr_key_u64(e, eend, "nsamples",
	    &nsamples) == 0 ? 0 : -1;

	v = rc == 0 ? bale_jsonr_find(e, eend, "filesize", &vend) : NULL;
	if (v)
		rc = bale_jsonr_u64(v, vend, &filesize);
	if (rc == 0)
		rc = bale_wds_list_push(l, url, nsamples, filesize);
	free(url);
	return rc;
}

/* A copy of @v (to @vend) into *@out (*@n bytes), NUL-ended. */
static void wds_list_keep(const char *v, const char *vend, char **out,
    size_t *n)
{
	*out = malloc((size_t)(vend - v) + 1);
	if (!*out)
		return;
	memcpy(*out, v, (size_t)(vend - v));
	(*out)[vend - v] = '\0';
	*n = (size_t)(vend - v);
}

static int wds_list_parse(struct wds_list *l, const char *text,
    const char *end)
{
	const char *list, *lend, *cur, *e, *eend, *v, *vend;

	v = bale_jsonr_find(text, end, "bale", &vend);
	if (v)
		wds_list_keep(v, vend, &l->bale, &l->bale_len);
	if (v && (v = bale_jsonr_find(v, vend, "classes", &vend)))
		wds_list_keep(v, vend, &l->classes, &l->classes_len);
	list = bale_jsonr_find(text, end, "shardlist", &lend);
	if (!list || *list != '[')
		return -1;
	for (cur = list; (e = bale_jsonr_next(&cur, lend, &eend));)
		if (wds_list_entry_read(l, e, eend) != 0)
			return -1;
	return 0;
}

int bale_wds_list_read(const char *path, struct wds_list *l,
    struct bale_errbuf *err)
{
	size_t len = 0;
	char *text;
	int bad;
	int rc = bale_store_read_all(path, &text, &len, err);

	memset(l, 0, sizeof(*l));
	if (rc != BALE_OK)
		return rc;
	bad = wds_list_parse(l, text, text + len);
	free(text);
	if (bad)	/* nothing of a list that is not one is kept */
		bale_wds_list_release(l);
	return bad ? bale_errbuf_set(err, BALE_EINVAL, "'%s' is not a "
	    "shard list bale wrote", path) : BALE_OK;
}

void bale_wds_list_release(struct wds_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].url);
	free(l->v);
	free(l->classes);
	free(l->bale);
	memset(l, 0, sizeof(*l));
}

/* Six or seven digits after the name's '-' (and a replacing run's
 * "gSTAMP-"), then a shard file's extension. */
size_t bale_wds_shard_file(const char *entry, const char *name)
{
	static const char *const exts[] = { ".tar", ".idx", ".bidx" };
	size_t n = strlen(name), len = strlen(entry), e, digits = 0;
	size_t i;

	if (strncmp(entry, name, n) != 0 || entry[n] != '-')
		return 0;
	for (i = 0; i < 3; i++) {
		e = strlen(exts[i]);
		if (len > e && strcmp(entry + len - e, exts[i]) == 0)
			break;
	}
	if (i == 3)
		return 0;
	len -= e;
	while (digits < len && entry[len - 1 - digits] >= '0' &&
	    entry[len - 1 - digits] <= '9')
		digits++;
	return (digits == 6 || digits == 7) && len - digits >= n &&
	    entry[len - digits - 1] == '-' ? len : 0;
}
