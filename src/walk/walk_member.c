/* walk_member.c - ImageFolder rules applied to the member paths of an
 * archive, so that packing it gives what extracting it and packing the
 * folder would: first path component = class, torchvision's extensions
 * and order, the last copy of a duplicated name (extraction overwrites).
 */
#include "walk_int.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "kind.h"
#include "tar_scan.h"

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

const char *bale_walk_storage_refusal(const struct bale_walk_member *l,
    char *buf, size_t len)
{
	int streamed = bale_source_streams(l->kind);
	int method = l->method & ~BALE_WALK_AT_HEADER;

	if (streamed && l->size > WALK_MAX_INFLATED) {
		snprintf(buf, len, "claims %llu bytes in a compressed archive "
		    "(over 1 GiB: a bomb?)", (unsigned long long)l->size);
		return buf;
	}
	if (streamed)
		return NULL;
	if (method != BALE_WALK_STORED && method != BALE_WALK_DEFLATED) {
		snprintf(buf, len, "compression method %u is not supported",
		    (unsigned)method);
		return buf;
	}
	if (method == BALE_WALK_STORED && l->size != l->csize)
		return "stored member whose two sizes disagree";
	if (method == BALE_WALK_DEFLATED && (l->size > WALK_MAX_INFLATED ||
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
	if (m->nested && bale_tar_is_tar_name(path->data))
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
	if (!why && m->nested && bale_tar_is_tar_name(path->data))
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
