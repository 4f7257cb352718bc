/* walk_listed.c - archives read through a list file. The list names the
 * samples by their paths as extraction would place them (so a list made
 * for the extracted folder serves the archive unchanged), in its order,
 * with its labels; members it does not name are left out, as a folder's
 * unlisted files are. */
#include "walk_int.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "source.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Paths to entries (walk items or notes) by an offset in each into
 * their strings (the items' arena or the notes' text). */
struct path_index {
	size_t *slots;		/* 1 + entry index, 0 empty */
	size_t mask;
	const struct bale_buf *arena;	/* read anew: notes may move it */
	const char *base;	/* entry i's offset lies at base + i * stride */
	size_t stride;
};

static const char *pidx_path(const struct path_index *x, size_t i)
{
	size_t off;

	memcpy(&off, x->base + i * x->stride, sizeof(off));
	return x->arena->data + off;
}

/* The slot holding @key, or the empty one it would take. */
static size_t *pidx_find(const struct path_index *x, const char *key)
{
	size_t k = bale_walk_hash(key, strlen(key)) & x->mask;

	while (x->slots[k] && strcmp(pidx_path(x, x->slots[k] - 1), key) != 0)
		k = (k + 1) & x->mask;
	return &x->slots[k];
}

/* Index @n entries of @stride bytes at @v, their offsets at @off. */
static int pidx_init(struct path_index *x, const struct bale_buf *arena,
    const void *v, size_t off, size_t n, size_t stride)
{
	size_t nslots = 16;

	while (nslots < 2 * n)
		nslots *= 2;
	x->slots = calloc(nslots, sizeof(*x->slots));
	x->mask = nslots - 1;
	x->arena = arena;
	x->base = v ? (const char *)v + off : NULL;	/* NULL: n is 0 */
	x->stride = stride;
	return x->slots ? 0 : -1;
}

enum { LISTED_DUP = 1, LISTED_TAKEN = 2 };

struct listed {
	struct walk_item *cand;	/* the readable members, archive order */
	unsigned char *flags;	/* LISTED_* per candidate */
	struct path_index cands;	/* path: the last candidate */
	struct path_index refused;	/* path: why it cannot be read */
	struct bale_buf clean;
};

/* Index the candidates; of equal paths the last wins, as extraction
 * overwrites, and is flagged for a note if listed. */
static int listed_index(struct bale_walk *w, struct listed *l, size_t n)
{
	size_t *slot;
	size_t i;

	if (pidx_init(&l->cands, &w->arena, l->cand,
	    offsetof(struct walk_item, path), n, sizeof(*l->cand)) != 0 ||
	    pidx_init(&l->refused, &w->note_text, w->refused.v,
	    offsetof(struct walk_note, path), w->refused.n,
	    sizeof(*w->refused.v)) != 0)
		return bale_walk_nomem(w);
	for (i = 0; i < n; i++) {
		slot = pidx_find(&l->cands, pidx_path(&l->cands, i));
		if (*slot)
			l->flags[i] |= LISTED_DUP;
		*slot = i + 1;
	}
	for (i = 0; i < w->refused.n; i++)
		*pidx_find(&l->refused, pidx_path(&l->refused, i)) = i + 1;
	return BALE_OK;
}

/* Candidate @c as the next sample: at @path as the list writes it (as
 * a folder's list would name it), labelled @label. */
static int listed_add(struct bale_walk *w, struct listed *l, size_t c,
    const char *path, int64_t label)
{
	const struct walk_item *it = &l->cand[c];
	const char *slash = strrchr(path, '/');
	int rc = BALE_OK;

	if ((l->flags[c] & LISTED_TAKEN) && bale_source_member_fed(
	    &w->members[it->member - 1]))
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path, "listed "
		    "again: a member of a compressed archive is read once, "
		    "for the first line naming it");
	if (l->flags[c] & LISTED_DUP)
		rc = bale_walk_note_duplicate(w, w->arena.data + it->path);
	l->flags[c] = LISTED_TAKEN;
	if (rc == BALE_OK)
		rc = bale_walk_add_item(w, path, strlen(path),
		    slash ? (size_t)(slash - path) : 0, label);
	if (rc == BALE_OK)
		w->items[w->nitems - 1].member = it->member;
	return rc;
}

/* walk_list_reader callback: the member a line names, or a note. */
static int listed_take(struct bale_walk *w, const char *path, int64_t label,
    void *ctx)
{
	struct listed *l = ctx;
	size_t *slot;

	if (bale_walk_clean_path(&l->clean, NULL, path) != 0 ||
	    l->clean.len == 0)
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path,
		    "listed path is not one a member can have (empty, "
		    "absolute or with '..')");
	if (l->clean.failed)
		return bale_walk_nomem(w);
	slot = pidx_find(&l->cands, l->clean.data);
	if (*slot)
		return listed_add(w, l, *slot - 1, path, label);
	slot = pidx_find(&l->refused, l->clean.data);
	if (*slot)
		return bale_walk_push_note(w, &w->notes,
		    &w->refused.v[*slot - 1]);
	return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path,
	    "listed, but no member of the archive has this path");
}

int bale_walk_list_members(struct bale_walk *w, const char *list)
{
	struct walk_list_reader r = { listed_take, NULL, -1 };
	struct listed l;
	size_t n = w->nitems;
	int rc;

	memset(&l, 0, sizeof(l));
	l.cand = w->items;	/* the samples are rebuilt from the list */
	w->items = NULL;
	w->nitems = 0;
	w->capitems = 0;
	l.flags = calloc(n ? n : 1, 1);
	rc = l.flags ? listed_index(w, &l, n) : bale_walk_nomem(w);
	r.ctx = &l;
	if (rc == BALE_OK)
		rc = bale_walk_read_list(w, list, &r);
	free(l.cand);
	free(l.flags);
	free(l.cands.slots);
	free(l.refused.slots);
	bale_buf_release(&l.clean);
	return rc;
}
