/* walk_sort.c - an ImageFolder archive's members put in torchvision
 * order past memory. A tar lists its members in any order (tar -c
 * follows readdir), and every one must be known before the first is
 * sealed; kept in memory, ten million of them would take over a GiB.
 * So every SORT_CHUNK members listed are sorted and written to an
 * unlinked file as a run, and at the end the runs are merged, a member
 * at a time, into the store: memory is one chunk and a small window per
 * run, whatever the archive holds. The result is the one the in-memory
 * path gives (walk_member.c): same order, the last copy of a duplicated
 * name kept, the same notes.
 *
 * A run's record: varint path length, the path, then varints of its
 * class id, origin, offset, size, csize, method, and crc + 1 (0: none).
 */
#include "walk_int.h"

#include "bale.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SORT_CHUNK 131072
#define SORT_WINDOW ((size_t)64 << 10)
#define SORT_RECORD_TAIL 70	/* seven varints at most */

/* One run read front to back. */
struct sort_reader {
	uint64_t pos;		/* next byte to read from the spill */
	uint64_t end;
	struct bale_buf win;	/* bytes read, from @at not yet decoded */
	size_t at;
	size_t index;		/* of the run: earlier runs hold earlier
				 * members, so it orders equal paths */
	const char *path;	/* the record decoded last, in @win */
	size_t len;
	int64_t cls;
	struct bale_walk_member m;
};

/* The one top folder every member so far is below, as the length to
 * cut from each path ("top/"); 0 when there is none. */
static size_t sort_cut(const struct bale_walk *w)
{
	if (!bale_walk_top_is_root(w))
		return 0;
	return strlen(w->found.names[0]) + 1;
}

struct sort_ctx {
	const char *arena;
	size_t cut;
	char *const *names;	/* the classes met, by id */
};

/* Without a top folder to cut, the items' class ids name their classes
 * and their folder lengths are known: no path is searched for its
 * slashes. */
static int sort_cmp_items(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	const struct walk_item *a = pa;
	const struct walk_item *b = pb;
	int r;

	if (!c->cut)
		return bale_walk_cmp_by_class_name(a, b, c->arena, c->names);
	r = bale_walk_path_cmp(c->arena + a->path + c->cut,
	    c->arena + b->path + c->cut);
	return r ? r : (a->member > b->member) - (a->member < b->member);
}

static void sort_put_record(struct walk_sorter *s, struct bale_buf *rec,
    const char *path, int64_t cls, uint64_t origin,
    const struct bale_walk_member *m)
{
	size_t len = strlen(path);

	bale_buf_reset(rec);
	bale_varint_put(rec, len);
	bale_buf_add(rec, path, len);
	bale_varint_put(rec, (uint64_t)cls);
	bale_walk_put_member(rec, origin, m);
	if (!rec->failed)
		bale_spill_add(&s->spill, rec->data, rec->len);
}

static int sort_spill_failed(struct bale_walk *w)
{
	if (w->sort.spill.err == ENOMEM)
		return bale_walk_nomem(w);
	return bale_errbuf_set(&w->err, BALE_EIO, "walk: cannot keep the "
	    "sorted members in '%s': %s", w->sort.spill.dir,
	    strerror(w->sort.spill.err));
}

static int sort_open_spill(struct bale_walk *w)
{
	if (w->sort.spill.dir)
		return BALE_OK;
	return bale_spill_init(&w->sort.spill, bale_walk_tmpdir()) ?
	    bale_walk_nomem(w) : BALE_OK;
}

/* Sort the listed items (without "top/" when @cut) and write them as a
 * run; the walk's lists are then empty for more. */
static int sort_write_run(struct bale_walk *w, size_t cut)
{
	struct walk_sorter *s = &w->sort;
	struct sort_ctx ctx = { w->arena.data, cut, w->found.names };
	struct bale_buf rec = BALE_BUF_INIT;
	const struct bale_walk_member *m;
	int64_t origin = 0;
	size_t i;
	int rc = sort_open_spill(w);

	if (rc != BALE_OK)
		return rc;
	if (bale_grow_array((void **)&s->runs, &s->capruns, s->nruns + 1,
	    sizeof(*s->runs)) != 0)
		return bale_walk_nomem(w);
	if (w->nitems > 1)
		qsort_r(w->items, w->nitems, sizeof(*w->items),
		    sort_cmp_items, &ctx);
	s->runs[s->nruns].start = bale_spill_size(&s->spill);
	for (i = 0; i < w->nitems && !s->spill.failed; i++) {
		m = &w->members[w->items[i].member - 1];
		if ((origin = bale_walk_locs_origin(&w->store.locs, m)) < 0)
			break;
		sort_put_record(s, &rec, w->arena.data + w->items[i].path,
		    w->items[i].label, (uint64_t)origin, m);
	}
	rc = rec.failed || origin < 0 ? bale_walk_nomem(w) : BALE_OK;
	bale_buf_release(&rec);
	if (rc != BALE_OK)
		return rc;
	if (s->spill.failed)
		return sort_spill_failed(w);
	s->runs[s->nruns].end = bale_spill_size(&s->spill);
	s->runs[s->nruns++].stripped = cut != 0;
	bale_walk_clear_listed(w);
	return BALE_OK;
}

int bale_walk_sort_chunk(struct bale_walk *w)
{
	if (w->nitems < (w->sort.chunk ? w->sort.chunk : SORT_CHUNK))
		return BALE_OK;
	return sort_write_run(w, sort_cut(w));
}

/* Have at least @need bytes of the run from @at on, or all it has
 * left. */
static int sort_want(struct bale_walk *w, struct sort_reader *r,
    size_t need)
{
	size_t have = r->win.len - r->at;
	size_t take;

	if (have >= need || r->pos == r->end)
		return BALE_OK;
	if (have)	/* the first fill has no window yet */
		memmove(r->win.data, r->win.data + r->at, have);
	r->win.len = have;
	r->at = 0;
	take = (need > SORT_WINDOW ? need : SORT_WINDOW) - have;
	if (take > r->end - r->pos)
		take = (size_t)(r->end - r->pos);
	bale_buf_zeros(&r->win, take);
	if (r->win.failed)
		return bale_walk_nomem(w);
	if (bale_spill_pread(&w->sort.spill, r->win.data + have, take,
	    r->pos) != 0) {
		w->sort.spill.err = errno;
		return sort_spill_failed(w);
	}
	r->pos += take;
	return BALE_OK;
}

/* Decode the run's next record into @r; *@more 0 at its end. */
static int sort_next(struct bale_walk *w, struct sort_reader *r, int *more)
{
	const unsigned char *p;
	size_t head;
	int rc;

	*more = r->at < r->win.len || r->pos < r->end;
	if (!*more)
		return BALE_OK;
	if ((rc = sort_want(w, r, 10)) != BALE_OK)
		return rc;
	p = (const unsigned char *)r->win.data + r->at;
	r->len = (size_t)bale_varint_get(&p);
	head = (size_t)(p - (const unsigned char *)r->win.data) - r->at;
	if ((rc = sort_want(w, r, head + r->len + SORT_RECORD_TAIL)) !=
	    BALE_OK)
		return rc;
	r->path = r->win.data + r->at + head;
	p = (const unsigned char *)r->path + r->len;
	r->cls = (int64_t)bale_varint_get(&p);
	bale_walk_get_member(&w->store.locs, &p, &r->m);
	r->at = (size_t)(p - (const unsigned char *)r->win.data);
	return BALE_OK;
}

static void sort_reader_start(struct sort_reader *r,
    const struct walk_sort_run *run, size_t index)
{
	memset(r, 0, sizeof(*r));
	r->win = (struct bale_buf)BALE_BUF_INIT;
	r->pos = run->start;
	r->end = run->end;
	r->index = index;
}

/* Read run @k back into the walk's lists and write it again sorted
 * with @cut: it was sorted while every member was below one top folder,
 * and a later one was not. One chunk at most is in memory. */
static int sort_resort_run(struct bale_walk *w, size_t k, size_t cut)
{
	struct sort_reader r;
	int more = 1;
	int rc = BALE_OK;

	sort_reader_start(&r, &w->sort.runs[k], k);
	while (rc == BALE_OK && (rc = sort_next(w, &r, &more)) == BALE_OK &&
	    more) {
		((char *)r.path)[r.len] = '\0';	/* was the class varint */
		rc = bale_walk_add_located(w, r.path, r.cls, &r.m);
	}
	bale_buf_release(&r.win);
	if (rc != BALE_OK)
		return rc;
	rc = sort_write_run(w, cut);
	if (rc == BALE_OK)	/* the new run stands in for the old */
		w->sort.runs[k] = w->sort.runs[--w->sort.nruns];
	return rc;
}

/* The classes, once the top folder is cut: the folders below it (an
 * image right in the top folder is in none). */
static int sort_classes_below_top(struct bale_walk *w, size_t cut)
{
	struct sort_reader r;
	const char *p, *slash;
	size_t k;
	int more = 1;
	int rc = bale_walk_note_top_folder(w);

	for (k = 0; rc == BALE_OK && k < w->sort.nruns; k++) {
		sort_reader_start(&r, &w->sort.runs[k], k);
		while ((rc = sort_next(w, &r, &more)) == BALE_OK && more) {
			p = r.path + cut;
			slash = memchr(p, '/', r.len - cut);
			if (slash && bale_walk_class_id(&w->found, p,
			    (size_t)(slash - p)) < 0) {
				rc = bale_walk_nomem(w);
				break;
			}
		}
		bale_buf_release(&r.win);
	}
	return rc;
}

/* Merge order: the path without "top/", then the earlier run. */
static int sort_before(const struct sort_reader *a,
    const struct sort_reader *b, size_t cut)
{
	int c = bale_walk_path_cmp(a->path + cut, b->path + cut);

	return c ? c < 0 : a->index < b->index;
}

/* Restore the heap below slot @i (the run whose record comes first
 * heads it). */
static void sort_sift(struct sort_reader **heap, size_t n, size_t i,
    size_t cut)
{
	struct sort_reader *t;
	size_t c;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && sort_before(heap[c + 1], heap[c], cut))
			c++;
		if (!sort_before(heap[c], heap[i], cut))
			return;
		t = heap[i];
		heap[i] = heap[c];
		heap[c] = t;
	}
}

/* What the merge is sealing: the member it holds back until the next
 * shows it is not a duplicate name, and each label's count. */
struct sort_merge {
	struct bale_buf held;	/* its path, cut */
	struct bale_buf stray;	/* the path of one outside any class */
	int64_t label;
	struct bale_walk_member m;
	int holding;
	const int64_t *label_of;	/* class id to label */
	size_t *count;
	size_t cut;
};

static int sort_seal_held(struct bale_walk *w, struct sort_merge *g)
{
	if (!g->holding)
		return BALE_OK;
	g->count[g->label]++;
	return bale_walk_seal_one(w, g->held.data, g->held.len, g->label,
	    &g->m);
}

/* The label of the class named by the @n bytes at @name: its place
 * among the sorted class names (with the top folder cut, the classes
 * were found again by name, not kept by id in the runs). */
static int64_t sort_label_by_name(const struct bale_walk *w, const char *name,
    size_t n)
{
	size_t lo = 0;
	size_t hi = w->nclasses;
	size_t mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strncmp(w->classes[mid], name, n);
		if (c == 0 && w->classes[mid][n] != '\0')
			c = 1;
		if (c == 0)
			return (int64_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;	/* every class was found from these paths */
}

/* Take the record @r heads with: a later copy of the held name replaces
 * it (noted), any other name seals it. */
static int sort_take(struct bale_walk *w, struct sort_merge *g,
    const struct sort_reader *r)
{
	const char *path = r->path + g->cut;
	size_t len = r->len - g->cut;
	int rc = BALE_OK;

	if (g->cut && !memchr(path, '/', len)) {
		bale_buf_reset(&g->stray);	/* right in the top folder */
		bale_buf_add(&g->stray, r->path, r->len);
		bale_buf_add(&g->stray, "", 1);
		return g->stray.failed ? bale_walk_nomem(w) :
		    bale_walk_note_outside(w, g->stray.data, 1);
	}
	if (g->holding && g->held.len == len &&
	    memcmp(g->held.data, path, len) == 0)
		rc = bale_walk_note_duplicate(w, g->held.data);
	else
		rc = sort_seal_held(w, g);
	if (rc != BALE_OK)
		return rc;
	bale_buf_reset(&g->held);
	bale_buf_add(&g->held, path, len);
	bale_buf_add(&g->held, "", 1);	/* NUL, not counted */
	g->held.len--;
	if (g->held.failed)
		return bale_walk_nomem(w);
	g->label = g->cut ? sort_label_by_name(w, path,
	    (size_t)((const char *)memchr(path, '/', len) - path)) :
	    g->label_of[r->cls];
	g->m = r->m;
	g->holding = 1;
	return BALE_OK;
}

static int sort_merge_runs(struct bale_walk *w, struct sort_merge *g,
    struct sort_reader *rd, struct sort_reader **heap)
{
	size_t n = 0;
	size_t k;
	uint64_t taken = 0;
	int more;
	int rc = BALE_OK;

	for (k = 0; rc == BALE_OK && k < w->sort.nruns; k++) {
		sort_reader_start(&rd[k], &w->sort.runs[k], k);
		rc = sort_next(w, &rd[k], &more);
		if (more)
			heap[n++] = &rd[k];
	}
	for (k = n; k-- > 0;)
		sort_sift(heap, n, k, g->cut);
	while (rc == BALE_OK && n > 0) {
		if ((++taken & 0xffff) == 0 && bale_walk_stopped(w))
			return BALE_EINTR;	/* ten million take seconds */
		rc = sort_take(w, g, heap[0]);
		if (rc == BALE_OK)
			rc = sort_next(w, heap[0], &more);
		if (rc == BALE_OK && !more)
			heap[0] = heap[--n];
		sort_sift(heap, n, 0, g->cut);
	}
	return rc == BALE_OK ? sort_seal_held(w, g) : rc;
}

/* Merge the runs into the store, labelled by @label_of. */
static int sort_merge(struct bale_walk *w, const int64_t *label_of,
    size_t cut)
{
	struct sort_merge g;
	struct sort_reader *rd = calloc(w->sort.nruns, sizeof(*rd));
	struct sort_reader **heap = calloc(w->sort.nruns, sizeof(*heap));
	size_t k;
	int rc;

	memset(&g, 0, sizeof(g));
	g.held = (struct bale_buf)BALE_BUF_INIT;
	g.stray = (struct bale_buf)BALE_BUF_INIT;
	g.label_of = label_of;
	g.cut = cut;
	g.count = calloc(w->nclasses ? w->nclasses : 1, sizeof(*g.count));
	rc = rd && heap && g.count ? sort_merge_runs(w, &g, rd, heap) :
	    bale_walk_nomem(w);
	if (rc == BALE_OK)
		rc = bale_walk_warn_empty_classes(w, g.count);
	for (k = 0; rd && k < w->sort.nruns; k++)
		bale_buf_release(&rd[k].win);
	bale_buf_release(&g.held);
	bale_buf_release(&g.stray);
	free(g.count);
	free(heap);
	free(rd);
	return rc;
}

int bale_walk_sort_finish(struct bale_walk *w)
{
	size_t cut = sort_cut(w);
	int64_t *label_of = NULL;
	size_t k;
	int rc = w->nitems ? sort_write_run(w, cut) : BALE_OK;

	for (k = 0; rc == BALE_OK && k < w->sort.nruns; k++)
		if (w->sort.runs[k].stripped != (cut != 0))
			rc = sort_resort_run(w, k, cut);
	if (rc == BALE_OK && cut)
		rc = sort_classes_below_top(w, cut);
	/* every run's member was placed in a class: there is one at least */
	if (rc == BALE_OK)
		rc = bale_walk_label_classes(w, &label_of);
	bale_walk_classes_release(&w->found);
	if (rc == BALE_OK)
		rc = sort_merge(w, label_of, cut);
	free(label_of);
	bale_walk_sort_release(&w->sort);
	return rc;
}

void bale_walk_sort_release(struct walk_sorter *s)
{
	bale_spill_release(&s->spill);
	free(s->runs);
	memset(s, 0, sizeof(*s));
}
