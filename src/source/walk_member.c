/* walk_member.c - ImageFolder rules applied to the member paths of an
 * archive, so that packing it gives what extracting it and packing the
 * folder would: first path component = class, torchvision's extensions
 * and order, the last copy of a duplicated name (extraction overwrites).
 */
#include "walk_int.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A deflated or streamed member may not claim more than this once
 * inflated: a real image never comes near it, a bomb does (a streamed
 * member's claimed size alone decides what is allocated for it). */
#define WALK_MAX_INFLATED ((uint64_t)1 << 30)
/* Deflate gives at most about 1032 bytes per byte stored. */
#define WALK_MAX_DEFLATE_RATIO 1100

uint64_t bale_walk_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int walk_classes_rehash(struct walk_classes *c)
{
	size_t nslots = c->nslots ? c->nslots * 2 : 256;
	size_t *slots = calloc(nslots, sizeof(*slots));
	size_t i, k;

	if (!slots)
		return -1;
	for (i = 0; i < c->n; i++) {
		k = bale_walk_hash(c->names[i], strlen(c->names[i])) &
		    (nslots - 1);
		while (slots[k])
			k = (k + 1) & (nslots - 1);
		slots[k] = i + 1;
	}
	free(c->slots);
	c->slots = slots;
	c->nslots = nslots;
	return 0;
}

int64_t bale_walk_class_id(struct walk_classes *c, const char *name,
    size_t n)
{
	size_t k;
	char *copy;

	if (c->n * 2 >= c->nslots && walk_classes_rehash(c) != 0)
		return -1;
	k = bale_walk_hash(name, n) & (c->nslots - 1);
	for (; c->slots[k]; k = (k + 1) & (c->nslots - 1)) {
		copy = c->names[c->slots[k] - 1];
		if (strncmp(copy, name, n) == 0 && copy[n] == '\0')
			return (int64_t)c->slots[k] - 1;
	}
	if (bale_grow_array((void **)&c->names, &c->cap, c->n + 1,
	    sizeof(*c->names)) != 0 || !(copy = strndup(name, n)))
		return -1;
	c->names[c->n] = copy;
	c->slots[k] = ++c->n;
	return (int64_t)c->n - 1;
}

void bale_walk_classes_release(struct walk_classes *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

int bale_walk_clean_path(struct bale_buf *out, const char *prefix,
    const char *name)
{
	const char *p = name;
	const char *e;
	size_t n;

	bale_buf_reset(out);
	if (*name == '/')
		return -1;
	if (prefix)
		bale_buf_puts(out, prefix);
	for (; *p; p = *e ? e + 1 : e) {
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (n == 0 || (n == 1 && p[0] == '.'))
			continue;
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (out->len)
			bale_buf_add(out, "/", 1);
		bale_buf_add(out, p, n);
	}
	bale_buf_add(out, "", 1);	/* NUL, not counted */
	out->len--;
	return 0;
}

const char *bale_walk_storage_refusal(const struct bale_walk_member *l,
    char *buf, size_t len)
{
	int streamed = bale_source_streams(l->kind);

	if (streamed && l->size > WALK_MAX_INFLATED) {
		snprintf(buf, len, "claims %llu bytes in a compressed archive "
		    "(over 1 GiB: a bomb?)", (unsigned long long)l->size);
		return buf;
	}
	if (streamed)
		return NULL;
	if (l->method != BALE_WALK_STORED && l->method != BALE_WALK_DEFLATED) {
		snprintf(buf, len, "compression method %u is not supported",
		    (unsigned)l->method);
		return buf;
	}
	if (l->method == BALE_WALK_STORED && l->size != l->csize)
		return "stored member whose two sizes disagree";
	if (l->method == BALE_WALK_DEFLATED && (l->size > WALK_MAX_INFLATED ||
	    l->size / WALK_MAX_DEFLATE_RATIO > l->csize)) {
		snprintf(buf, len, "claims %llu bytes once inflated from %llu "
		    "(over 1 GiB, or more than deflate can give: a zip bomb?)",
		    (unsigned long long)l->size, (unsigned long long)l->csize);
		return buf;
	}
	return NULL;
}

/* Why a member cannot be a sample, or NULL. Links and special members
 * are refused whatever their names: a link may stand for a folder. */
static const char *walk_member_refusal(const struct walk_member *m,
    char *buf, size_t len)
{
	switch (m->kind) {
	case WALK_FILE:
	case WALK_DIR:
		break;
	case WALK_SYMLINK:
		return "symbolic link member (links inside an archive are "
		    "not followed)";
	case WALK_HARDLINK:
		return "hard link member (links inside an archive are not "
		    "followed)";
	case WALK_SPECIAL:
		return "device node or FIFO member";
	case WALK_OTHER:
		snprintf(buf, len, "tar member of type '%c' (sparse, "
		    "multi-volume or unknown) is not read", m->type);
		return buf;
	}
	if (m->why)
		return m->why;
	if (m->encrypted)
		return "encrypted member";
	return bale_walk_storage_refusal(&m->loc, buf, len);
}

/* A member at a clean @path: a class and a sample, or a note. */
static int walk_place_member(struct bale_walk *w, const struct walk_member *m,
    const struct bale_buf *path)
{
	const char *slash = strchr(path->data, '/');
	const char *why;
	char buf[160];
	int64_t label;
	int rc;

	if (!slash)
		return m->kind == WALK_DIR ? BALE_OK :
		    bale_walk_note_outside(w, path->data,
		    m->kind == WALK_FILE && bale_walk_is_image(path->data));
	label = bale_walk_class_id(&w->found, path->data,
	    (size_t)(slash - path->data));
	if (label < 0)
		return bale_walk_nomem(w);
	if (m->kind == WALK_DIR)
		return BALE_OK;
	if (m->kind != WALK_FILE) {
		why = walk_member_refusal(m, buf, sizeof(buf));
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path->data,
		    why);
	}
	if (m->nested && bale_walk_is_archive_name(path->data))
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path->data,
		    "archive nested more than one level deep (not read)");
	if (!bale_walk_is_image(path->data))
		return bale_walk_add_note(w, BALE_NOTE_IGNORED, path->data,
		    "not an image extension");
	why = walk_member_refusal(m, buf, sizeof(buf));
	if (why)
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path->data,
		    why);
	if (strchr(slash + 1, '/'))
		w->sort.deep = 1;
	rc = bale_walk_add_located(w, path->data, label, &m->loc);
	return rc == BALE_OK ? bale_walk_sort_chunk(w) : rc;
}

/* Listed walk: every file member is kept by its path for the list to
 * pick; why one cannot be read is said only if the list names it. */
static int walk_keep_member(struct bale_walk *w, const struct walk_member *m,
    const struct bale_buf *path)
{
	const char *why;
	char buf[160];

	if (m->kind == WALK_DIR)
		return BALE_OK;
	why = walk_member_refusal(m, buf, sizeof(buf));
	if (!why && m->nested && bale_walk_is_archive_name(path->data))
		why = "archive nested more than one level deep (not read)";
	return bale_walk_keep_candidate(w, path->data, why ? NULL : &m->loc,
	    why);
}

/* With a folder named as the classes' root, a clean @path below it
 * loses "root/"; 0 when it lies outside the root. */
static int walk_cut_root(const struct bale_walk *w, struct bale_buf *path)
{
	size_t n = strlen(w->root);

	if (n == 0)
		return 1;
	if (strncmp(path->data, w->root, n) != 0 ||
	    (path->data[n] != '/' && path->data[n] != '\0'))
		return 0;
	if (path->data[n] == '\0')
		n--;	/* the root itself: nothing left */
	memmove(path->data, path->data + n + 1, path->len - n);
	path->len -= n + 1;
	return 1;
}

static int walk_note_outside_root(struct bale_walk *w,
    const struct walk_member *m, const char *path)
{
	if (m->kind == WALK_DIR)
		return BALE_OK;
	return bale_walk_add_note(w, BALE_NOTE_IGNORED, path, "outside the "
	    "folder named as the one holding the classes");
}

int bale_walk_take_member(struct bale_walk *w, const struct walk_member *m)
{
	struct bale_buf path = BALE_BUF_INIT;
	int unsafe = bale_walk_clean_path(&path, m->prefix, m->name) != 0;
	int rc;

	if (unsafe && w->listed)
		rc = BALE_OK;	/* no list line can name it */
	else if (unsafe)
		rc = bale_walk_add_note(w, BALE_NOTE_SKIPPED, m->name,
		    "unsafe member path (absolute or with '..')");
	else if (path.failed)
		rc = bale_walk_nomem(w);
	else if (!w->listed && w->root && !walk_cut_root(w, &path))
		rc = walk_note_outside_root(w, m, path.data);
	else if (path.len == 0)
		rc = BALE_OK;	/* the archive's own top folder */
	else if (w->listed)
		rc = walk_keep_member(w, m, &path);
	else
		rc = walk_place_member(w, m, &path);
	bale_buf_release(&path);
	return rc;
}

static int walk_cmp_names(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

int bale_walk_label_classes(struct bale_walk *w, int64_t **map)
{
	struct walk_classes *c = &w->found;
	char ***byname = malloc((c->n ? c->n : 1) * sizeof(*byname));
	int64_t *label = malloc((c->n ? c->n : 1) * sizeof(*label));
	size_t i;

	w->classes = calloc(c->n ? c->n : 1, sizeof(char *));
	if (!byname || !label || !w->classes) {
		free(byname);
		free(label);
		return bale_walk_nomem(w);
	}
	for (i = 0; i < c->n; i++)
		byname[i] = &c->names[i];
	qsort(byname, c->n, sizeof(*byname), walk_cmp_names);
	for (i = 0; i < c->n; i++) {
		label[byname[i] - c->names] = (int64_t)i;
		w->classes[i] = *byname[i];
		*byname[i] = NULL;	/* now owned by w->classes */
	}
	w->nclasses = c->n;
	for (i = 0; i < w->nitems; i++)
		w->items[i].label = label[w->items[i].label];
	free(byname);
	if (map)
		*map = label;
	else
		free(label);
	return BALE_OK;
}

int bale_walk_note_duplicate(struct bale_walk *w, const char *path)
{
	char *copy = strdup(path);
	int rc;

	if (!copy)
		return bale_walk_nomem(w);
	rc = bale_walk_add_note(w, BALE_NOTE_SKIPPED, copy, "duplicate member "
	    "name: a later copy in the archive is used, as extraction "
	    "would");
	free(copy);
	return rc;
}

/* Sorted items with equal paths: keep the last in archive order. */
static int walk_drop_duplicates(struct bale_walk *w)
{
	size_t i, kept = 0;
	int rc;

	for (i = 0; i < w->nitems; i++) {
		if (i + 1 < w->nitems && strcmp(w->arena.data +
		    w->items[i].path, w->arena.data +
		    w->items[i + 1].path) == 0) {
			rc = bale_walk_note_duplicate(w, w->arena.data +
			    w->items[i].path);
			if (rc != BALE_OK)
				return rc;
			continue;
		}
		w->items[kept++] = w->items[i];
	}
	w->nitems = kept;
	return BALE_OK;
}

int bale_walk_warn_empty_classes(struct bale_walk *w, const size_t *count)
{
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < w->nclasses; i++)
		if (count[i] == 0)
			rc = bale_walk_add_note(w, BALE_NOTE_WARNING,
			    w->classes[i], "class folder holds no image; its "
			    "label is kept");
	return rc;
}

static int walk_warn_empty_items(struct bale_walk *w)
{
	size_t *count = calloc(w->nclasses ? w->nclasses : 1, sizeof(*count));
	size_t i;
	int rc;

	if (!count)
		return bale_walk_nomem(w);
	for (i = 0; i < w->nitems; i++)
		count[w->items[i].label]++;
	rc = bale_walk_warn_empty_classes(w, count);
	free(count);
	return rc;
}

/* The rule for an archive's root: every image below one top folder,
 * and some in its sub-folders (what `tar -cf top.tar top` makes, top
 * holding the class folders): the top folder is the root and its
 * sub-folders are the classes, as packing the extracted folder would
 * have them; an image directly in it lies outside any class, as a file
 * in a root folder does. Otherwise the archive's top level is the
 * root. A root the user named overrides the rule. */
int bale_walk_top_is_root(const struct bale_walk *w)
{
	return !w->root && w->found.n == 1 && w->sort.deep;
}

int bale_walk_note_top_folder(struct bale_walk *w)
{
	char note[400];
	const char *top = w->found.names[0];
	int rc;

	snprintf(note, sizeof(note), "every image is below the one folder "
	    "'%s', some in its sub-folders: they are taken as the classes, "
	    "as packing the extracted folder would, and an image directly "
	    "in '%s' is left out (another folder can be named as the one "
	    "holding the classes)", top, top);
	rc = bale_walk_add_note(w, BALE_NOTE_WARNING, top, note);
	bale_walk_classes_release(&w->found);
	return rc;
}

/* Take the sub-folders of the one top folder as the classes: each
 * sample's path loses "top/", its class is the next folder, and an
 * image right in the top folder is left out, noted. */
static int walk_strip_top_folder(struct bale_walk *w)
{
	size_t cut = strlen(w->found.names[0]) + 1;
	const char *p, *slash;
	size_t i, kept = 0;
	int64_t label;

	if (bale_walk_note_top_folder(w) != BALE_OK)
		return w->err.rc;
	for (i = 0; i < w->nitems; i++) {
		p = w->arena.data + w->items[i].path;
		slash = strchr(p + cut, '/');
		if (!slash) {
			if (bale_walk_note_outside(w, p, 1) != BALE_OK)
				return w->err.rc;
			continue;
		}
		label = bale_walk_class_id(&w->found, p + cut,
		    (size_t)(slash - p - cut));
		if (label < 0)
			return bale_walk_nomem(w);
		w->items[kept] = w->items[i];
		w->items[kept].path += cut;
		w->items[kept].dirlen -= cut;
		w->items[kept++].label = label;
	}
	w->nitems = kept;
	return BALE_OK;
}

static int walk_no_class(struct bale_walk *w, const char *src)
{
	if (w->root && *w->root)
		return bale_errbuf_set(&w->err, BALE_ENOENT, "walk: no class "
		    "folder below '%s' in '%s' (expected members "
		    "%s/CLASS/IMAGE)", w->root, src, w->root);
	return bale_errbuf_set(&w->err, BALE_ENOENT, "walk: no class folder "
	    "in '%s' (expected members CLASS/IMAGE, or a tar of per-class "
	    "tars)", src);
}

int bale_walk_members_finish(struct bale_walk *w, const char *src)
{
	int rc;

	w->root_used = 1;
	if (w->sort.nruns)	/* the members outgrew memory */
		return bale_walk_sort_finish(w);
	if (bale_walk_top_is_root(w)) {
		rc = walk_strip_top_folder(w);
		if (rc != BALE_OK)
			return rc;
	}
	if (w->found.n == 0)
		return walk_no_class(w, src);
	rc = bale_walk_label_classes(w, NULL);
	bale_walk_classes_release(&w->found);
	if (rc != BALE_OK)
		return rc;
	bale_walk_sort_items(w);
	rc = walk_drop_duplicates(w);
	return rc == BALE_OK ? walk_warn_empty_items(w) : rc;
}
