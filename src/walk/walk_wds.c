/* walk_wds.c - WebDataset shards as the source, by any writer: members
 * grouped into samples as the webdataset library groups them (a key is
 * the member path up to the first dot of its base name; consecutive
 * members with one key are one sample), in shard order then member
 * order. A sample is its image member, read in place (or streamed, from
 * a compressed shard), with the label its KEY.cls holds (else the
 * "label" of its KEY.json), the path its KEY.json records (else the
 * image member's name) and the class name the JSON gives, as bale's own
 * shards have them. */
#include "walk_arc.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "bale_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define WDS_MAX_CLS 64			/* bytes of a .cls member */
#define WDS_MAX_JSON ((uint64_t)1 << 20)	/* of a .json member */

/* One sample's members, as a group of listed entries. */
struct wds_group {
	const struct arc_scan *s;
	size_t first;
	size_t end;
	size_t keylen;		/* of the key, in each member's name */
	long image;		/* entry index, or -1 */
	long cls;
	long json;
};

/* The extension of @name (after the first dot of its base name), or
 * NULL when it has none: then the member belongs to no sample. */
static const char *wds_ext(const char *name)
{
	const char *base = strrchr(name, '/');
	const char *dot;

	base = base ? base + 1 : name;
	dot = strchr(base, '.');
	return dot && dot != base ? dot + 1 : NULL;
}

static const char *wds_name(const struct arc_scan *s, size_t i)
{
	return s->names.data + s->ents[i].name;
}

/* The end of the run of entries from @i sharing @i's key. */
static size_t wds_group_end(const struct arc_scan *s, size_t i,
    size_t keylen)
{
	const char *key = wds_name(s, i);
	const char *name;
	const char *ext;

	for (i++; i < s->nents; i++) {
		name = wds_name(s, i);
		ext = wds_ext(name);
		if (s->ents[i].kind != WALK_FILE || !ext ||
		    (size_t)(ext - 1 - name) != keylen ||
		    memcmp(name, key, keylen) != 0)
			break;
	}
	return i;
}

/* A member neither image, label nor metadata (a caption, a mask ...):
 * bale's formats have no place for it. Counted, and said once. */
static void wds_count_dropped(struct bale_walk *w, const char *ext)
{
	if (w->dropped++ == 0)
		snprintf(w->dropped_ext, sizeof(w->dropped_ext), "%s", ext);
}

int bale_walk_wds_note_dropped(struct bale_walk *w)
{
	char why[160];

	if (w->dropped == 0)
		return BALE_OK;
	snprintf(why, sizeof(why), "%llu members beside the image, .cls and "
	    ".json of their samples (such as KEY.%s) are not carried over",
	    (unsigned long long)w->dropped, w->dropped_ext);
	return bale_walk_add_note(w, BALE_NOTE_WARNING, "WebDataset source",
	    why);
}

/* Which member is the image, the label, the metadata. A second image
 * is noted (not a sample of its own); a repeated extension makes the
 * sample unreadable, as it is to webdataset. */
static int wds_sort_members(struct bale_walk *w, struct wds_group *g,
    const char **why)
{
	const struct arc_scan *s = g->s;
	const char *ext;
	size_t i, k;
	int rc = BALE_OK;

	*why = NULL;
	g->image = g->cls = g->json = -1;
	for (i = g->first; rc == BALE_OK && i < g->end; i++) {
		ext = wds_name(s, i) + g->keylen + 1;
		for (k = g->first; k < i; k++)
			if (strcasecmp(ext,
			    wds_name(s, k) + g->keylen + 1) == 0)
				*why = "two members with one extension in one "
				    "sample";
		if (strcasecmp(ext, "cls") == 0)
			g->cls = (long)i;
		else if (strcasecmp(ext, "json") == 0)
			g->json = (long)i;
		else if (!bale_walk_is_image(wds_name(s, i)))
			wds_count_dropped(w, ext);
		else if (g->image < 0)
			g->image = (long)i;
		else
			rc = bale_walk_add_note(w, BALE_NOTE_IGNORED,
			    wds_name(s, i), "a second image in its sample "
			    "(the first is packed)");
	}
	return rc;
}

/* A compressed shard's .json is kept whole from the listing pass up to
 * this size (bale's own are well under 1 KB), so that a hostile stream
 * of many large ones cannot hold much memory. */
#define WDS_MAX_STREAM_JSON ((uint64_t)16 << 10)

int bale_walk_wds_keeps_text(const char *name, uint64_t size)
{
	const char *ext = wds_ext(name);

	if (!ext)
		return 0;
	return (strcasecmp(ext, "cls") == 0 && size <= WDS_MAX_CLS) ||
	    (strcasecmp(ext, "json") == 0 && size <= WDS_MAX_STREAM_JSON);
}

/* The bytes of small member @i, NUL-terminated (the caller frees);
 * NULL when it is larger than @max or cannot be read (from a compressed
 * shard: was not kept when listed). */
static char *wds_read_small(const struct arc_scan *s, size_t i, uint64_t max)
{
	const struct arc_entry *e = &s->ents[i];
	struct bale_errbuf why;
	size_t got = 0;
	char *buf;

	if (bale_source_streams(s->kind))
		return e->data && e->size <= max ?
		    strdup(s->names.data + e->data - 1) : NULL;
	if (e->size > max || !(buf = malloc((size_t)e->size + 1)))
		return NULL;
	if (bale_store_fd_scan(s->fd, buf, (size_t)e->size, e->offset,
	    &got, &why) != BALE_OK || got != e->size) {
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	return buf;
}

/* What the sample's JSON says: "label", "path" and "class". */
struct wds_meta {
	int64_t label;
	int has_label;
	char *path;
	char *class;
};

static char *wds_json_string(const char *json, const char *key)
{
	const char *end = json + strlen(json);
	const char *vend;
	const char *v = bale_jsonr_find(json, end, key, &vend);

	return v && *v == '"' ? bale_jsonr_string(v, vend) : NULL;
}

static void wds_read_json(const struct wds_group *g, struct wds_meta *m)
{
	char *json = wds_read_small(g->s, (size_t)g->json, WDS_MAX_JSON);
	const char *vend;
	const char *v;
	uint64_t n;

	if (!json)
		return;
	v = bale_jsonr_find(json, json + strlen(json), "label", &vend);
	if (v && bale_jsonr_u64(v, vend, &n) == 0 &&
	    n <= (uint64_t)WALK_MAX_LABEL) {
		m->label = (int64_t)n;
		m->has_label = 1;
	}
	m->path = wds_json_string(json, "path");
	m->class = wds_json_string(json, "class");
	free(json);
}

/* The label: KEY.cls, else the JSON's. NULL, or why there is none. */
static const char *wds_label(const struct wds_group *g, struct wds_meta *m)
{
	char *text;
	int ok;

	if (g->cls < 0)
		return m->has_label ? NULL : "no label (no KEY.cls, and no "
		    "\"label\" in KEY.json)";
	text = wds_read_small(g->s, (size_t)g->cls, WDS_MAX_CLS);
	ok = text && bale_meta_label(text, strlen(text), &m->label) == 0 &&
	    m->label >= BALE_LABEL_NONE && m->label <= WALK_MAX_LABEL;
	free(text);
	return ok ? NULL : "its .cls is not a label in -1..16777216";
}

/* Name class @label when the sample says its name and none is known. */
static int wds_name_class(struct bale_walk *w, int64_t label, char **name)
{
	int rc = bale_walk_cover_label(w, label);

	if (rc == BALE_OK && label != BALE_LABEL_NONE && *name &&
	    !w->classes[label]) {
		w->classes[label] = *name;
		*name = NULL;
	}
	return rc;
}

/* Where the image member lies: at its offset, or its ordinal in a
 * compressed shard. */
static void wds_image_loc(const struct wds_group *g,
    struct bale_walk_member *loc)
{
	const struct arc_entry *e = &g->s->ents[g->image];

	memset(loc, 0, sizeof(*loc));
	loc->kind = g->s->kind;
	loc->fd = g->s->fd;
	loc->method = BALE_WALK_STORED;
	loc->offset = e->offset;
	loc->size = loc->csize = e->size;
}

static int wds_add_sample(struct bale_walk *w, const struct wds_group *g,
    struct wds_meta *m, const struct bale_walk_member *loc)
{
	const char *path = m->path && *m->path ? m->path :
	    wds_name(g->s, (size_t)g->image);
	int rc = wds_name_class(w, m->label, &m->class);

	return rc == BALE_OK ? bale_walk_add_located(w, path, m->label, loc)
	    : rc;
}

static int wds_take_group(struct bale_walk *w, struct wds_group *g)
{
	struct wds_meta m = { 0, 0, NULL, NULL };
	struct bale_walk_member loc;
	char key[512];
	char buf[160];
	const char *why;
	int rc = wds_sort_members(w, g, &why);

	snprintf(key, sizeof(key), "%.*s (sample)", (int)g->keylen,
	    wds_name(g->s, g->first));
	if (rc != BALE_OK || why)
		return rc != BALE_OK ? rc :
		    bale_walk_add_note(w, BALE_NOTE_SKIPPED, key, why);
	if (g->image < 0)
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, key, "no image "
		    "member (.jpg, .jpeg, .png, .ppm, .bmp, .pgm, .tif, .tiff "
		    "or .webp)");
	if (g->json >= 0)
		wds_read_json(g, &m);
	wds_image_loc(g, &loc);
	why = bale_walk_storage_refusal(&loc, buf, sizeof(buf));
	if (!why)
		why = loc.size == 0 ? "empty file (0 bytes)" :
		    wds_label(g, &m);
	rc = why ? bale_walk_add_note(w, BALE_NOTE_SKIPPED, key, why) :
	    wds_add_sample(w, g, &m, &loc);
	free(m.path);
	free(m.class);
	return rc;
}

/* A member outside any sample: a folder (webdataset passes over them
 * too), or something noted. */
static int wds_take_loose(struct bale_walk *w, const struct arc_scan *s,
    size_t i)
{
	const struct arc_entry *e = &s->ents[i];

	if (e->kind == WALK_DIR)
		return BALE_OK;
	if (e->kind != WALK_FILE)
		return bale_walk_add_note(w, BALE_NOTE_IGNORED, wds_name(s, i),
		    "not a regular file (webdataset passes over it too)");
	return bale_walk_add_note(w, BALE_NOTE_IGNORED, wds_name(s, i),
	    "no extension, so in no sample");
}

int bale_walk_wds_take_entries(struct arc_scan *s)
{
	struct wds_group g;
	const char *ext;
	size_t i = 0;
	int rc = BALE_OK;

	while (rc == BALE_OK && i < s->nents) {
		ext = wds_ext(wds_name(s, i));
		if (s->ents[i].kind != WALK_FILE || !ext) {
			rc = wds_take_loose(s->w, s, i++);
			continue;
		}
		memset(&g, 0, sizeof(g));
		g.s = s;
		g.first = i;
		g.keylen = (size_t)(ext - 1 - wds_name(s, i));
		g.end = wds_group_end(s, i, g.keylen);
		rc = wds_take_group(s->w, &g);
		i = g.end;
	}
	return rc;
}

int bale_walk_wds_is_label(const char *name)
{
	const char *ext = wds_ext(name);

	return ext && strcasecmp(ext, "cls") == 0;
}

int bale_walk_wds_is_shard(const struct arc_scan *s)
{
	size_t i;

	for (i = 0; i < s->nents; i++)
		if (s->ents[i].kind == WALK_FILE &&
		    bale_walk_wds_is_label(wds_name(s, i)))
			return 1;
	return 0;
}
