/* walk_bucket.c - an ImageFolder tree kept as small objects in an object
 * store (s3://bucket/train/: a prefix a class, an object an image) as a
 * source: the classes and order the same tree has on disk, so packing
 * either gives the same output.
 *
 * The classes are the prefixes one level below the root (every one, as
 * torchvision takes hidden folders too), sorted bytewise; an object
 * beside them is outside every class, as a file beside the class
 * folders is. Each class is listed whole (ListObjectsV2 pages of 1000
 * keys), ordered as torchvision orders a folder (by folder, then file
 * name: S3's key order differs once a class has sub-folders) and sealed
 * before the next, so listing holds one class at most. Each sample keeps
 * the size the listing gave (the pipeline reserves room for it before
 * its GET) and its ETag as a stamp (an update compares the two).
 *
 * With a list file, every object under the root (at any depth) is a
 * candidate its lines may name, joined with them as an archive's members
 * are (walk_listed.c): the list's order and labels.
 */
#include "walk_int.h"

#include "bale_store.h"
#include "hash.h"
#include "kind.h"
#include "relpath.h"

#include <stdlib.h>
#include <string.h>

struct bucket_walk {
	struct bale_walk *w;
	const struct bale_source_kind *kind;	/* reads the samples */
	struct bale_buf path;	/* "class/key" being added */
	const char *cls;
	int64_t label;
	size_t listed;		/* samples of the class being listed */
};

static int bucket_add_class(void *arg, const char *entry, int is_dir)
{
	struct bale_walk *w = arg;

	if (!is_dir)
		return bale_walk_note_outside(w, entry,
		    bale_walk_is_image(entry));
	if (bale_grow_array((void **)&w->classes, &w->capclasses,
	    w->nclasses + 1, sizeof(char *)) != 0 ||
	    !(w->classes[w->nclasses] = strdup(entry)))
		return bale_walk_nomem(w);
	w->nclasses++;
	return BALE_OK;
}

static int bucket_cmp_classes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Where object @o's bytes are, as its listing gave them: its size, its
 * ETag's stamp, the kind that reads it. */
static struct bale_walk_member bucket_member(const struct bucket_walk *b,
    const struct bale_store_object *o)
{
	struct bale_walk_member m;

	memset(&m, 0, sizeof(m));
	m.kind = b->kind;
	m.fd = -1;
	m.stamp = bale_walk_stamp(o->etag);
	m.size = m.csize = o->size;
	return m;
}

/* One object of the class being listed: a sample, or a note. */
static int bucket_add_object(void *arg, const struct bale_store_object *o)
{
	struct bucket_walk *b = arg;
	struct bale_walk_member m = bucket_member(b, o);

	bale_buf_reset(&b->path);
	bale_buf_printf(&b->path, "%s/%s", b->cls, o->name);
	if (b->path.failed)
		return bale_walk_nomem(b->w);
	if (!bale_walk_is_image(o->name))
		return bale_walk_add_note(b->w, BALE_NOTE_IGNORED,
		    b->path.data, "not an image extension");
	b->listed++;
	return bale_walk_add_located(b->w, b->path.data, b->label, &m);
}

uint64_t bale_walk_stamp(const char *etag)
{
	if (!etag || !*etag)
		return 0;
	return bale_fnv1a(BALE_FNV_INIT, etag, strlen(etag)) & INT64_MAX;
}

/* List, order and seal class @label. */
static int bucket_class(struct bale_walk *w, struct bucket_walk *b,
    const char *root, size_t label)
{
	char *dir = bale_strfmt("%s/%s", root, w->classes[label]);
	int rc;

	if (!dir)
		return bale_walk_nomem(w);
	b->cls = w->classes[label];
	b->label = (int64_t)label;
	b->listed = 0;
	rc = bale_store_walk(dir, bucket_add_object, b, &w->err);
	free(dir);
	if (rc == BALE_ENOMEM)
		return bale_walk_nomem(w);
	if (rc == BALE_OK && b->listed == 0)
		rc = bale_walk_add_note(w, BALE_NOTE_WARNING, b->cls,
		    "class folder holds no image; its label is kept");
	bale_walk_sort_items(w);
	return rc == BALE_OK ? bale_walk_seal(w) : rc;
}

/* An object under the root, a candidate for the list's lines. */
static int bucket_add_candidate(void *arg, const struct bale_store_object *o)
{
	struct bucket_walk *b = arg;
	struct bale_walk_member m = bucket_member(b, o);

	return bale_walk_keep_candidate(b->w, o->name, &m, NULL);
}

int bale_walk_bucket_listed(struct bale_walk *w, const char *root,
    const struct bale_source_kind *kind, const char *list)
{
	struct bucket_walk b = { w, kind, BALE_BUF_INIT, NULL, 0, 0 };
	char *top = bale_strfmt("%.*s", bale_path_trim_len(root), root);
	int rc;

	if (!top)
		return bale_walk_nomem(w);
	bale_errbuf_clear(&w->err);
	w->listed = 1;
	w->unlisted = "listed, but no object under the prefix has this name";
	rc = bale_walk_listed_start(w);
	if (rc == BALE_OK)
		rc = bale_store_walk(top, bucket_add_candidate, &b, &w->err);
	if (rc == BALE_ENOMEM)
		rc = bale_walk_nomem(w);
	free(top);
	if (rc == BALE_OK)
		rc = bale_walk_list_members(w, list);
	return rc == BALE_OK ? bale_walk_seal_all(w) : rc;
}

int bale_walk_bucket(struct bale_walk *w, const char *root,
    const struct bale_source_kind *kind)
{
	struct bucket_walk b = { w, kind, BALE_BUF_INIT, NULL, 0, 0 };
	char *top = bale_strfmt("%.*s", bale_path_trim_len(root), root);
	size_t i;
	int rc;

	if (!top)
		return bale_walk_nomem(w);
	rc = bale_store_list(top, bucket_add_class, w, &w->err);
	if (rc == BALE_ENOMEM)
		rc = bale_walk_nomem(w);
	if (rc == BALE_OK && w->nclasses == 0)
		rc = bale_errbuf_set(&w->err, BALE_ENOENT, "walk: no class "
		    "folder in '%s' (expected ROOT/CLASS/IMAGE)", root);
	if (rc == BALE_OK)
		qsort(w->classes, w->nclasses, sizeof(char *),
		    bucket_cmp_classes);
	for (i = 0; rc == BALE_OK && i < w->nclasses; i++)
		rc = bucket_class(w, &b, top, i);
	bale_buf_release(&b.path);
	free(top);
	return rc == BALE_OK ? bale_walk_seal_all(w) : rc;
}
