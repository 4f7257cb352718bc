/* walk_store.c - the walk's samples once listed and ordered, kept small
 * enough for tens of millions: paths coded (below), labels as coded
 * runs of equal labels (a folder's classes are one run each, a shuffled
 * list's samples a few bytes), and archive members' locations coded
 * (walk_locs.c) only when there are any.
 *
 * A path is its folder (up to its last '/', kept) and its file name.
 * The name stores only the middle that differs from the name before
 * it, whose start and end it shares ("img_0123.JPEG" after
 * "img_0122.JPEG" stores "3"); the folder is the one before, or its
 * number among the folders met (a class folder's, in a list in random
 * order, where its text would share little with the one before), or
 * past STORE_DIRS folders its text. A record: varint head << 2 | how
 * the folder comes (DIR_SAME, DIR_NUMBER + varint, DIR_TEXT + varint
 * length and bytes), the tail and the middle's length (store_put_ends),
 * the middle.
 * A block of STORE_BLOCK starts afresh (no name nor folder before), so
 * one path decodes in at most STORE_BLOCK steps. */
#include "walk_int.h"

#include "bale.h"

#include <stdlib.h>
#include <string.h>

#define STORE_BLOCK 16
#define STORE_DIRS 65536	/* folders numbered: ImageNet-21k has 21 841
				 * classes; a tree of more keeps its text */
#define LABEL_BLOCK 64	/* runs: one label decodes in as many steps */
#define MID_BITS 3	/* a name's new middle shorter than MID_MORE */
#define MID_MORE 7	/* bytes shares a varint with its tail */

enum { DIR_SAME, DIR_NUMBER, DIR_TEXT };

/* How much @name shares with the name before: its start (*@head) and,
 * from what is left of both, its end (*@tail). */
static void store_shared(const struct bale_buf *prev, const char *name,
    size_t len, size_t *head, size_t *tail)
{
	size_t n = prev->len < len ? prev->len : len;
	size_t h = 0;
	size_t t = 0;

	while (h < n && prev->data[h] == name[h])
		h++;
	while (h + t < n && prev->data[prev->len - 1 - t] ==
	    name[len - 1 - t])
		t++;
	*head = h;
	*tail = t;
}

/* How folder @dir (@n bytes) comes after the one before: *@number set
 * for DIR_NUMBER. -1 without memory. */
static int store_dir_mode(struct walk_store *s, const char *dir, size_t n,
    int64_t *number)
{
	if (s->prev_dir.len == n && (n == 0 ||	/* no folder: data NULL */
	    memcmp(s->prev_dir.data, dir, n) == 0))
		return DIR_SAME;
	if (s->dirs.n >= STORE_DIRS)	/* even one met before: rare */
		return DIR_TEXT;
	*number = bale_walk_class_id(&s->dirs, dir, n);
	return *number < 0 ? -1 : DIR_NUMBER;
}

/* A name's shared end (@tail bytes) and new middle's length (@nmid),
 * as one varint when the middle is short (as in "img_000456.JPEG" after
 * "img_000455.JPEG": a byte), else that and the rest of the length. */
static void store_put_ends(struct bale_buf *b, size_t tail, size_t nmid)
{
	size_t low = nmid < MID_MORE ? nmid : MID_MORE;

	bale_varint_put(b, (uint64_t)tail << MID_BITS | low);
	if (low == MID_MORE)
		bale_varint_put(b, nmid - MID_MORE);
}

static void store_get_ends(const unsigned char **p, size_t *tail,
    size_t *nmid)
{
	uint64_t v = bale_varint_get(p);

	*tail = (size_t)(v >> MID_BITS);
	*nmid = (size_t)(v & MID_MORE);
	if (*nmid == MID_MORE)
		*nmid += (size_t)bale_varint_get(p);
}

static int store_add_path(struct walk_store *s, const char *path, size_t len)
{
	const char *slash = memrchr(path, '/', len);
	size_t ndir = slash ? (size_t)(slash - path) + 1 : 0;
	const char *name = path + ndir;
	size_t nname = len - ndir;
	size_t head = 0;
	size_t tail = 0;
	int64_t number = 0;
	int mode;

	if (s->n % STORE_BLOCK == 0) {
		if (bale_grow_array((void **)&s->block_at, &s->capblocks,
		    s->n / STORE_BLOCK + 1, sizeof(*s->block_at)) != 0)
			return -1;
		s->block_at[s->n / STORE_BLOCK] = s->text.len;
		bale_buf_reset(&s->prev);
		bale_buf_reset(&s->prev_dir);
	} else {
		store_shared(&s->prev, name, nname, &head, &tail);
	}
	if ((mode = store_dir_mode(s, path, ndir, &number)) < 0)
		return -1;
	bale_varint_put(&s->text, (uint64_t)head << 2 | (uint64_t)mode);
	if (mode == DIR_NUMBER)
		bale_varint_put(&s->text, (uint64_t)number);
	if (mode == DIR_TEXT) {
		bale_varint_put(&s->text, ndir);
		bale_buf_add(&s->text, path, ndir);
	}
	store_put_ends(&s->text, tail, nname - head - tail);
	bale_buf_add(&s->text, name + head, nname - head - tail);
	bale_buf_reset(&s->prev);
	bale_buf_add(&s->prev, name, nname);
	bale_buf_reset(&s->prev_dir);
	bale_buf_add(&s->prev_dir, path, ndir);
	return s->text.failed || s->prev.failed || s->prev_dir.failed ?
	    -1 : 0;
}

/* A run of @len samples labelled @label, coded: a run of one (every
 * sample, in a list in random order) as one varint, its label's zigzag
 * shifted past a 1 bit; a longer one as its length shifted past a 0
 * bit, then the label's zigzag. */
static void store_put_run(struct bale_buf *b, uint64_t len, int64_t label)
{
	uint64_t z = bale_zigzag(label);

	if (len == 1 && z >> 62 == 0) {
		bale_varint_put(b, z << 1 | 1);
		return;
	}
	bale_varint_put(b, len << 1);
	bale_varint_put(b, z);
}

/* The run at *@p (which moves past it). */
static void store_get_run(const unsigned char **p, uint64_t *len,
    int64_t *label)
{
	uint64_t v = bale_varint_get(p);

	if (v & 1) {
		*len = 1;
		*label = bale_unzigzag(v >> 1);
		return;
	}
	*len = v >> 1;
	*label = bale_unzigzag(bale_varint_get(p));
}

/* Sample @n is labelled @label: the open run grows, or closes (coded)
 * and a new one opens. */
static int store_add_label(struct walk_labels *l, uint64_t n, int64_t label)
{
	if (l->open && l->open_label == label)
		return 0;
	if (l->open) {
		if (l->nruns % LABEL_BLOCK == 0) {
			if (bale_grow_array((void **)&l->blocks,
			    &l->capblocks, l->nruns / LABEL_BLOCK + 1,
			    sizeof(*l->blocks)) != 0)
				return -1;
			l->blocks[l->nruns / LABEL_BLOCK].first =
			    l->open_first;
			l->blocks[l->nruns / LABEL_BLOCK].at = l->text.len;
		}
		store_put_run(&l->text, n - l->open_first, l->open_label);
		if (l->text.failed)
			return -1;
		l->nruns++;
	}
	l->open = 1;
	l->open_first = n;
	l->open_label = label;
	return 0;
}

/* Whether @path still keeps the samples in path order: an update
 * matches such a walk to its manifest as both are read. */
static int store_note_order(struct walk_store *s, const char *path,
    size_t len)
{
	struct bale_buf t;

	bale_buf_reset(&s->next);
	bale_buf_add(&s->next, path, len);
	bale_buf_add(&s->next, "", 1);
	if (s->next.failed)
		return -1;
	if (s->n && (!s->last.data ||	/* sealed whole before: unknown */
	    bale_walk_path_cmp(s->last.data, s->next.data) >= 0)) {
		s->disordered = 1;	/* nothing more to compare */
		bale_buf_release(&s->next);
		bale_buf_release(&s->last);
		return 0;
	}
	t = s->last;
	s->last = s->next;
	s->next = t;
	return 0;
}

int bale_walk_in_path_order(const struct bale_walk *w)
{
	return !w->store.disordered;
}

int bale_walk_seal_one(struct bale_walk *w, const char *path, size_t len,
    int64_t label, const struct bale_walk_member *m)
{
	struct walk_store *s = &w->store;

	if (!s->disordered && store_note_order(s, path, len) != 0)
		return bale_walk_nomem(w);
	if (store_add_path(s, path, len) != 0 ||
	    store_add_label(&s->labels, s->n, label) != 0 ||
	    bale_walk_locs_add(&s->locs, s->n, m) != 0)
		return bale_walk_nomem(w);
	s->n++;
	return BALE_OK;
}

int bale_walk_seal(struct bale_walk *w)
{
	const struct walk_item *it;
	const char *path;
	size_t i;
	int rc;

	for (i = 0; i < w->nitems; i++) {
		it = &w->items[i];
		path = w->arena.data + it->path;
		rc = bale_walk_seal_one(w, path, strlen(path), it->label,
		    it->member ? &w->members[it->member - 1] : NULL);
		if (rc != BALE_OK)
			return rc;
	}
	bale_walk_clear_listed(w);
	return BALE_OK;
}

void bale_walk_clear_listed(struct bale_walk *w)
{
	w->nitems = 0;
	w->nmembers = 0;	/* only the items referred to them */
	bale_buf_reset(&w->arena);
}

int bale_walk_seal_all(struct bale_walk *w)
{
	int rc = bale_walk_seal(w);

	free(w->items);
	w->items = NULL;
	w->capitems = 0;
	free(w->members);
	w->members = NULL;
	w->capmembers = 0;
	bale_buf_release(&w->arena);
	bale_buf_release(&w->store.prev);
	bale_buf_release(&w->store.prev_dir);
	bale_buf_release(&w->store.last);
	bale_buf_release(&w->store.next);
	return rc;
}

size_t bale_walk_count(const struct bale_walk *w)
{
	return w->store.n;
}

/* The path after the one in @b: its start, @mid, then its end. */
static void store_splice(struct bale_buf *b, size_t head, size_t tail,
    const unsigned char *mid, size_t nmid)
{
	size_t was = b->len;

	bale_buf_zeros(b, nmid);	/* room: the new path may be longer */
	if (b->failed || !b->data)	/* !data: nothing yet, none to add */
		return;
	memmove(b->data + head + nmid, b->data + was - tail, tail);
	memcpy(b->data + head, mid, nmid);
	b->len = head + nmid + tail;
}

/* The folder a record's first varint says, from *@p on (which moves
 * past it): *@dir and *@ndir stay as they were for DIR_SAME. */
static void store_get_dir(const struct walk_store *s, uint64_t v,
    const unsigned char **p, const char **dir, size_t *ndir)
{
	uint64_t number;

	if ((v & 3) == DIR_NUMBER) {
		number = bale_varint_get(p);
		*dir = s->dirs.names[number];
		*ndir = strlen(*dir);
	} else if ((v & 3) == DIR_TEXT) {
		*ndir = (size_t)bale_varint_get(p);
		*dir = (const char *)*p;
		*p += *ndir;
	}
}

/* @b, which holds a name, with @dir (@n bytes) put before it. */
static void store_prepend(struct bale_buf *b, const char *dir, size_t n)
{
	size_t was = b->len;

	bale_buf_zeros(b, n);
	if (b->failed || !n)
		return;
	memmove(b->data + n, b->data, was);
	memcpy(b->data, dir, n);
}

/* The record at *@p (which moves past it) after the one whose folder
 * and file name *@dir, *@ndir and @name hold, into them. */
static void store_step(const struct walk_store *s, const unsigned char **p,
    const char **dir, size_t *ndir, struct bale_buf *name)
{
	uint64_t v = bale_varint_get(p);
	size_t tail;
	size_t nmid;

	store_get_dir(s, v, p, dir, ndir);
	store_get_ends(p, &tail, &nmid);
	store_splice(name, (size_t)(v >> 2), tail, *p, nmid);
	*p += nmid;
}

/* @b, a path made whole, NUL-terminated. NULL without memory. */
static const char *store_path_done(struct bale_buf *b)
{
	if (!b->data) {	/* an empty path: not one a walk keeps */
		bale_buf_zeros(b, 1);
		b->len = 0;
	}
	if (b->failed)
		return NULL;
	b->data[b->len] = '\0';	/* a shorter path than the one before
					 * ends here */
	return b->data;
}

const char *bale_walk_path(const struct bale_walk *w, size_t i,
    struct bale_buf *scratch)
{
	const struct walk_store *s = &w->store;
	const unsigned char *p = (const unsigned char *)s->text.data +
	    s->block_at[i / STORE_BLOCK];
	const char *dir = "";
	size_t ndir = 0;
	size_t k;

	bale_buf_reset(scratch);
	for (k = 0; k <= i % STORE_BLOCK; k++)
		store_step(s, &p, &dir, &ndir, scratch);
	store_prepend(scratch, dir, ndir);
	return store_path_done(scratch);
}

/* The label block holding sample @i (< l->open_first). */
static size_t store_label_block(const struct walk_labels *l, size_t i)
{
	size_t lo = 0;
	size_t hi = (l->nruns + LABEL_BLOCK - 1) / LABEL_BLOCK;
	size_t mid;

	while (hi - lo > 1) {	/* the last block starting at or before i */
		mid = lo + (hi - lo) / 2;
		if (l->blocks[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void bale_walk_cursor_init(struct bale_walk_cursor *c,
    const struct bale_walk *w)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->name = (struct bale_buf)BALE_BUF_INIT;
	c->path = (struct bale_buf)BALE_BUF_INIT;
}

const char *bale_walk_cursor_path(struct bale_walk_cursor *c, size_t i)
{
	const struct walk_store *s = &c->w->store;

	if (c->p && i + 1 == c->next)	/* asked again */
		return c->path.failed ? NULL : c->path.data;
	if (!c->p || i < c->next || i - i % STORE_BLOCK > c->next)
		c->next = i - i % STORE_BLOCK;	/* from its block's start */
	for (; c->next <= i; c->next++) {
		if (c->next % STORE_BLOCK == 0) {	/* starts afresh */
			c->p = (const unsigned char *)s->text.data +
			    s->block_at[c->next / STORE_BLOCK];
			c->dir = "";
			c->ndir = 0;
			bale_buf_reset(&c->name);
		}
		store_step(s, &c->p, &c->dir, &c->ndir, &c->name);
	}
	bale_buf_reset(&c->path);
	bale_buf_add(&c->path, c->dir, c->ndir);
	bale_buf_add(&c->path, c->name.data, c->name.len);
	return store_path_done(&c->path);
}

/* Whether sample @i lies past the cursor's label block. */
static int cursor_past_block(const struct bale_walk_cursor *c,
    const struct walk_labels *l, size_t i)
{
	size_t b = c->run / LABEL_BLOCK + 1;

	return b * LABEL_BLOCK < l->nruns && l->blocks[b].first <= i;
}

int64_t bale_walk_cursor_label(struct bale_walk_cursor *c, size_t i)
{
	const struct walk_labels *l = &c->w->store.labels;
	uint64_t len;
	size_t b;

	if (!l->nruns || i >= l->open_first)
		return l->open_label;
	if (!c->lp || i < c->run_first || (i >= c->run_end &&
	    cursor_past_block(c, l, i))) {
		b = store_label_block(l, i);
		c->lp = (const unsigned char *)l->text.data + l->blocks[b].at;
		c->run = b * LABEL_BLOCK;
		c->run_first = c->run_end = l->blocks[b].first;
	}
	while (i >= c->run_end) {	/* i lies in a closed run ahead */
		if (c->run_end > c->run_first)
			c->run++;
		c->run_first = c->run_end;
		store_get_run(&c->lp, &len, &c->run_label);
		c->run_end += len;
	}
	return c->run_label;
}

void bale_walk_cursor_release(struct bale_walk_cursor *c)
{
	bale_buf_release(&c->name);
	bale_buf_release(&c->path);
	memset(c, 0, sizeof(*c));
}

int64_t bale_walk_label(const struct bale_walk *w, size_t i)
{
	struct bale_walk_cursor c;	/* one lookup: seeks, nothing kept */

	bale_walk_cursor_init(&c, w);
	return bale_walk_cursor_label(&c, i);
}

int bale_walk_member(const struct bale_walk *w, size_t i,
    struct bale_walk_member *m)
{
	return bale_walk_locs_get(&w->store.locs, i, m);
}

void bale_walk_drop_samples(struct bale_walk *w)
{
	size_t n = w->store.n;

	bale_walk_store_release(&w->store);
	w->store.n = n;
	/* no sample is read any more where it said: its pages and view go
	 * before the writers finish */
	bale_walk_release_held(w);
}

void bale_walk_store_release(struct walk_store *s)
{
	bale_buf_release(&s->text);
	bale_buf_release(&s->prev);
	bale_buf_release(&s->prev_dir);
	bale_buf_release(&s->last);
	bale_buf_release(&s->next);
	bale_walk_classes_release(&s->dirs);
	free(s->block_at);
	bale_buf_release(&s->labels.text);
	free(s->labels.blocks);
	bale_walk_locs_release(&s->locs);
	memset(s, 0, sizeof(*s));
}
