/* walk_items.c - what every walk shares while it lists: the samples
 * found (items) and the notes on what was not one, the image extensions,
 * and the order of paths (torchvision's). */
#include "walk_int.h"

#include "bale.h"
#include "bale_backend_util.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

/* torchvision.datasets.folder.IMG_EXTENSIONS */
static const char *const walk_exts[] = {
	".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff",
	".webp", NULL,
};

int bale_walk_is_image(const char *name)
{
	size_t n = strlen(name);
	size_t i;
	size_t e;

	for (i = 0; walk_exts[i]; i++) {
		e = strlen(walk_exts[i]);
		if (n >= e && strcasecmp(name + n - e, walk_exts[i]) == 0)
			return 1;
	}
	return 0;
}

int bale_walk_note_outside(struct bale_walk *w, const char *path,
    int image)
{
	if (!image)
		return bale_walk_add_note(w, BALE_NOTE_IGNORED, path,
		    "outside any class folder");
	return bale_walk_add_note(w, BALE_NOTE_WARNING, path, "image "
	    "outside any class folder: not packed (torchvision's "
	    "ImageFolder leaves it out too)");
}

int bale_walk_stopped(struct bale_walk *w)
{
	if (!w->stop || !atomic_load_explicit(w->stop, memory_order_relaxed))
		return 0;
	bale_errbuf_set(&w->err, BALE_EINTR, "stopped on request while "
	    "listing the source; no output was kept");
	return 1;
}

int bale_walk_nomem(struct bale_walk *w)
{
	return bale_errbuf_set(&w->err, BALE_ENOMEM, "walk: no memory");
}

int bale_walk_spill_failed(struct bale_walk *w, const struct bale_spill *sp,
    int reading, int e)
{
	if (e == ENOMEM)
		return bale_walk_nomem(w);
	return bale_errbuf_set(&w->err, BALE_EIO, "walk: cannot %s the member "
	    "list in '%s': %s", reading ? "read back" : "keep", sp->dir,
	    strerror(e));
}

/* Store a string in @b; returns its offset or (size_t)-1. */
static size_t walk_intern(struct bale_buf *b, const char *s, size_t n)
{
	size_t off = b->len;

	bale_buf_add(b, s, n);
	bale_buf_zeros(b, 1);
	return b->failed ? (size_t)-1 : off;
}

int bale_walk_add_note(struct bale_walk *w, enum bale_walk_note_kind kind,
    const char *path, const char *reason)
{
	struct walk_notes *arr = &w->notes;
	struct walk_note n;

	if (bale_walk_stopped(w))
		return BALE_EINTR;
	n.kind = kind;
	n.path = walk_intern(&w->note_text, path, strlen(path));
	n.reason = walk_intern(&w->note_text, reason, strlen(reason));
	if (n.path == (size_t)-1 || n.reason == (size_t)-1 ||
	    bale_grow_array((void **)&arr->v, &arr->cap, arr->n + 1,
	    sizeof(*arr->v)) != 0)
		return bale_walk_nomem(w);
	arr->v[arr->n++] = n;
	return BALE_OK;
}

int bale_walk_add_item(struct bale_walk *w, const char *path, size_t len,
    size_t dirlen, int64_t label)
{
	struct walk_item *it;

	if (bale_walk_stopped(w))
		return BALE_EINTR;
	if (bale_grow_array((void **)&w->items, &w->capitems, w->nitems + 1,
	    sizeof(*w->items)) != 0)
		return bale_walk_nomem(w);
	it = &w->items[w->nitems];
	it->path = walk_intern(&w->arena, path, len);
	if (it->path == (size_t)-1)
		return bale_walk_nomem(w);
	it->dirlen = dirlen;
	it->label = label;
	it->member = 0;
	w->nitems++;
	w->nadded++;
	return BALE_OK;
}

int bale_walk_add_located(struct bale_walk *w, const char *path, int64_t label,
    const struct bale_walk_member *loc)
{
	const char *slash = strrchr(path, '/');
	int rc = bale_walk_add_item(w, path, strlen(path),
	    slash ? (size_t)(slash - path) : 0, label);

	if (rc != BALE_OK)
		return rc;
	if (bale_grow_array((void **)&w->members, &w->capmembers,
	    w->nmembers + 1, sizeof(*w->members)) != 0)
		return bale_walk_nomem(w);
	w->members[w->nmembers++] = *loc;
	w->items[w->nitems - 1].member = w->nmembers;
	return BALE_OK;
}

int bale_walk_cover_label(struct bale_walk *w, int64_t label)
{
	while ((int64_t)w->nclasses <= label) {	/* none for -1 */
		if (bale_grow_array((void **)&w->classes, &w->capclasses,
		    w->nclasses + 1, sizeof(*w->classes)) != 0)
			return bale_walk_nomem(w);
		w->classes[w->nclasses++] = NULL;
	}
	return BALE_OK;
}

/* @la bytes at @a against @lb at @b, as strings: a start of the other
 * comes first. */
static int walk_cmp_bytes(const char *a, size_t la, const char *b,
    size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);

	if (c == 0 && la != lb)
		return la < lb ? -1 : 1;
	return c;
}

/* Two paths of one class: by their folder (all before the last '/',
 * @la and @lb bytes), then by file name (@fa, @fb). */
static int walk_cmp_in_class(const char *a, size_t la, const char *fa,
    const char *b, size_t lb, const char *fb)
{
	int c = walk_cmp_bytes(a, la, b, lb);

	return c ? c : strcmp(fa, fb);
}

/* Two items of one class: by folder, file name, then archive order. */
static int walk_cmp_same_class(const struct walk_item *a,
    const struct walk_item *b, const char *arena)
{
	const char *x = arena + a->path, *y = arena + b->path;
	int c = walk_cmp_in_class(x, a->dirlen, x + a->dirlen + 1, y,
	    b->dirlen, y + b->dirlen + 1);

	if (c != 0)
		return c;
	return a->member < b->member ? -1 : a->member > b->member;
}

/* torchvision order: class, then directory string, then file name. */
static int walk_cmp_items(const void *pa, const void *pb, void *arg)
{
	const struct walk_item *a = pa;
	const struct walk_item *b = pb;

	if (a->label != b->label)
		return a->label < b->label ? -1 : 1;
	return walk_cmp_same_class(a, b, arg);
}

int bale_walk_cmp_by_class_name(const struct walk_item *a,
    const struct walk_item *b, const char *arena, char *const *names)
{
	if (a->label != b->label)
		return strcmp(names[a->label], names[b->label]);
	return walk_cmp_same_class(a, b, arena);
}

/* The order above, from paths alone: class (the first component),
 * then the folder, then the file name. */
int bale_walk_path_cmp(const char *a, const char *b)
{
	const char *ca = strchr(a, '/'), *cb = strchr(b, '/');
	const char *da = strrchr(a, '/'), *db = strrchr(b, '/');
	size_t la = da ? (size_t)(da - a) : 0, lb = db ? (size_t)(db - b) : 0;
	int c = walk_cmp_bytes(a, ca ? (size_t)(ca - a) : 0, b,
	    cb ? (size_t)(cb - b) : 0);

	return c ? c : walk_cmp_in_class(a, la, a + la + (da != NULL), b, lb,
	    b + lb + (db != NULL));
}

void bale_walk_sort_items(struct bale_walk *w)
{
	if (w->nitems > 1)	/* items is NULL when there are none */
		qsort_r(w->items, w->nitems, sizeof(*w->items), walk_cmp_items,
	    w->arena.data);
}

const char *bale_walk_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
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
