/* s3_xml.c - S3's XML answers, read with expat. Only the elements bale
 * needs are kept, each at the place the answer's schema puts it; text
 * beyond a field's room makes the answer unusable, never truncated. */
#include "s3_xml.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XML_DEPTH_MAX 8

struct xml_walk {
	char path[XML_DEPTH_MAX][32];	/* the open elements' names */
	int depth;			/* may pass XML_DEPTH_MAX */
	char text[S3_KEY_MAX + 64];
	size_t len;
	int overflow;			/* a field longer than its room */
	/* listing */
	bale_s3_entry_fn fn;
	void *arg;
	struct bale_s3_listing *list;
	char key[S3_KEY_MAX + 1];
	uint64_t size;
	char etag[S3_ETAG_MAX + 1];
	int is_list;
	/* error */
	struct bale_s3_error *err;
	int is_error;
	/* one field of the root */
	const char *root, *field;
	char *out;
	size_t cap;
	int found;
	/* multipart uploads */
	bale_s3_upload_fn on_upload;
	char upload_id[S3_KEY_MAX + 1];
	int *truncated;
	char *next_key, *next_id;
	int stopped;
	int is_uploads;
};

/* Is the element just closed @name, inside @parent (NULL: any)? */
static int xml_at(const struct xml_walk *w, const char *parent,
    const char *name)
{
	if (w->depth < 1 || w->depth > XML_DEPTH_MAX ||
	    strcmp(w->path[w->depth - 1], name) != 0)
		return 0;
	return !parent || (w->depth >= 2 &&
	    strcmp(w->path[w->depth - 2], parent) == 0);
}

static void xml_start(void *arg, const char *name, const char **attrs)
{
	struct xml_walk *w = arg;

	(void)attrs;
	if (w->depth < XML_DEPTH_MAX)
		snprintf(w->path[w->depth], sizeof(w->path[0]), "%s", name);
	if (w->depth == 0) {
		w->is_list = strcmp(name, "ListBucketResult") == 0;
		w->is_error = strcmp(name, "Error") == 0;
		w->is_uploads = strcmp(name,
		    "ListMultipartUploadsResult") == 0;
	}
	w->depth++;
	w->len = 0;
	w->text[0] = '\0';
}

static void xml_text(void *arg, const char *s, int n)
{
	struct xml_walk *w = arg;

	if (w->len + (size_t)n >= sizeof(w->text)) {
		w->overflow = 1;
		return;
	}
	memcpy(w->text + w->len, s, (size_t)n);
	w->len += (size_t)n;
	w->text[w->len] = '\0';
}

static void xml_copy(struct xml_walk *w, char *to, size_t cap)
{
	if (w->len >= cap)
		w->overflow = 1;
	else
		memcpy(to, w->text, w->len + 1);
}

/* The entry just closed to the listing's callback. */
static void xml_hand(struct xml_walk *w, const char *key, int is_prefix)
{
	struct bale_s3_entry e = { key, is_prefix ? 0 : w->size,
	    is_prefix ? "" : w->etag, is_prefix };

	if (!w->list->stopped)
		w->list->stopped = w->fn(w->arg, &e);
}

static void xml_end_list(struct xml_walk *w)
{
	struct bale_s3_listing *l = w->list;

	if (xml_at(w, "Contents", "Key"))
		xml_copy(w, w->key, sizeof(w->key));
	else if (xml_at(w, "Contents", "Size"))
		w->size = strtoull(w->text, NULL, 10);
	else if (xml_at(w, "Contents", "ETag"))
		xml_copy(w, w->etag, sizeof(w->etag));
	else if (xml_at(w, "ListBucketResult", "Contents"))
		xml_hand(w, w->key, 0);
	else if (xml_at(w, "CommonPrefixes", "Prefix"))
		xml_hand(w, w->text, 1);
	else if (xml_at(w, "ListBucketResult", "IsTruncated"))
		l->truncated = strcmp(w->text, "true") == 0;
	else if (xml_at(w, "ListBucketResult", "NextContinuationToken"))
		xml_copy(w, l->next_token, sizeof(l->next_token));
	if (xml_at(w, "ListBucketResult", "Contents")) {
		w->key[0] = '\0';
		w->etag[0] = '\0';
		w->size = 0;
	}
}

static void xml_end_uploads(struct xml_walk *w)
{
	if (xml_at(w, "Upload", "Key"))
		xml_copy(w, w->key, sizeof(w->key));
	else if (xml_at(w, "Upload", "UploadId"))
		xml_copy(w, w->upload_id, sizeof(w->upload_id));
	else if (xml_at(w, "ListMultipartUploadsResult", "Upload") &&
	    !w->stopped)
		w->stopped = w->on_upload(w->arg, w->key, w->upload_id);
	else if (xml_at(w, "ListMultipartUploadsResult", "IsTruncated"))
		*w->truncated = strcmp(w->text, "true") == 0;
	else if (xml_at(w, "ListMultipartUploadsResult", "NextKeyMarker"))
		xml_copy(w, w->next_key, S3_KEY_MAX + 1);
	else if (xml_at(w, "ListMultipartUploadsResult",
	    "NextUploadIdMarker"))
		xml_copy(w, w->next_id, S3_KEY_MAX + 1);
	if (xml_at(w, "ListMultipartUploadsResult", "Upload"))
		w->key[0] = w->upload_id[0] = '\0';
}

static void xml_end(void *arg, const char *name)
{
	struct xml_walk *w = arg;

	(void)name;
	if (w->list && w->is_list)
		xml_end_list(w);
	if (w->on_upload && w->is_uploads)
		xml_end_uploads(w);
	if (w->field && w->depth == 2 && !w->found &&
	    strcmp(w->path[0], w->root) == 0 && xml_at(w, NULL, w->field)) {
		xml_copy(w, w->out, w->cap);
		w->found = !w->overflow;
	}
	if (w->err && w->is_error && xml_at(w, "Error", "Code"))
		xml_copy(w, w->err->code, sizeof(w->err->code));
	/* a long message may be cut: it is prose */
	if (w->err && w->is_error && xml_at(w, "Error", "Message"))
		snprintf(w->err->message, sizeof(w->err->message), "%.*s",
		    (int)sizeof(w->err->message) - 1, w->text);
	w->depth--;
	w->len = 0;
	w->text[0] = '\0';
}

/* Parse @body with @w's callbacks. @return 0, or -1: not XML, or a
 * field too long */
static int xml_run(struct xml_walk *w, const char *body, size_t n)
{
	XML_Parser p = XML_ParserCreate(NULL);
	int ok;

	if (!p)
		return -1;
	XML_SetUserData(p, w);
	XML_SetElementHandler(p, xml_start, xml_end);
	XML_SetCharacterDataHandler(p, xml_text);
	ok = n <= INT32_MAX &&
	    XML_Parse(p, body, (int)n, 1) == XML_STATUS_OK;
	XML_ParserFree(p);
	return ok && !w->overflow ? 0 : -1;
}

int bale_s3_xml_error(const char *body, size_t n, struct bale_s3_error *e)
{
	struct xml_walk *w = calloc(1, sizeof(*w));
	int ok;

	memset(e, 0, sizeof(*e));
	if (!w)
		return 0;
	w->err = e;
	ok = body && xml_run(w, body, n) == 0 && w->is_error &&
	    e->code[0];
	free(w);
	if (!ok)
		memset(e, 0, sizeof(*e));
	return ok;
}

int bale_s3_xml_list(const char *body, size_t n, bale_s3_entry_fn fn,
    void *arg, struct bale_s3_listing *out)
{
	struct xml_walk *w = calloc(1, sizeof(*w));
	int rc;

	memset(out, 0, sizeof(*out));
	if (!w)
		return -1;
	w->fn = fn;
	w->arg = arg;
	w->list = out;
	rc = xml_run(w, body, n) == 0 && w->is_list ? 0 : -1;
	free(w);
	return rc;
}

int bale_s3_xml_field(const char *body, size_t n, const char *root,
    const char *field, char *out, size_t cap)
{
	struct xml_walk *w = calloc(1, sizeof(*w));
	int found;

	if (!w)
		return 0;
	w->root = root;
	w->field = field;
	w->out = out;
	w->cap = cap;
	found = body && xml_run(w, body, n) == 0 && w->found;
	free(w);
	return found;
}

int bale_s3_xml_uploads(const char *body, size_t n, bale_s3_upload_fn fn,
    void *arg, int *truncated, char *next_key, char *next_id)
{
	struct xml_walk *w = calloc(1, sizeof(*w));
	int rc;

	*truncated = 0;
	next_key[0] = next_id[0] = '\0';
	if (!w)
		return -1;
	w->on_upload = fn;
	w->arg = arg;
	w->truncated = truncated;
	w->next_key = next_key;
	w->next_id = next_id;
	rc = xml_run(w, body, n) == 0 && w->is_uploads ? 0 : -1;
	free(w);
	return rc;
}
