/* update_diff.c - the manifest against the walk (update_diff.h). */
#include "update_diff.h"

#include "input.h"
#include "path_index.h"
#include "varint.h"
#include "xsort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DIFF_OUT_OF_ORDER (-1)	/* the walk or the manifest: sorted */
#define DIFF_CACHE 4096		/* packs read back at a time */

/* What a diff works with. */
struct diff_run {
	struct bale_update_diff *d;
	const struct bale_walk *w;
	int rootfd;
	struct bale_input_dir dir;	/* the last file's folder */
	const struct bale_manifest *head;	/* NULL: the first run */
	struct bale_path_index skips;
	struct bale_walk_cursor cur;	/* the walk's paths and labels */
	struct bale_errbuf *err;
};

struct diff_stat {
	uint64_t size;
	int64_t mtime_ns;
	int64_t ctime_ns;	/* any change to the file moves it */
};

static int diff_nomem(struct diff_run *r)
{
	return bale_errbuf_set(r->err, BALE_ENOMEM, "no memory");
}

/* Walk item @i's size and times, as reading it would find it: a
 * file's by stat (links followed; one that cannot be stat'ed gets 0s
 * and is packed, where reading it says why it fails), an object's as
 * its store listed it, its ETag's stamp for both times. */
static void diff_stat_of(struct diff_run *r, uint64_t i, const char *path,
    struct diff_stat *st)
{
	struct bale_walk_member m;
	const char *name;
	struct stat sb;
	int dirfd;

	memset(st, 0, sizeof(*st));
	if (r->rootfd < 0) {
		if (bale_walk_member(r->w, (size_t)i, &m)) {
			st->size = m.size;
			st->mtime_ns = st->ctime_ns =
			    (int64_t)bale_walk_member_stamp(&m);
		}
		return;
	}
	dirfd = bale_input_dir_at(&r->dir, r->rootfd, path, &name);
	if (fstatat(dirfd, name, &sb, 0) != 0 && (dirfd == r->rootfd ||
	    fstatat(r->rootfd, path, &sb, 0) != 0))
		return;
	st->size = (uint64_t)sb.st_size;
	st->mtime_ns = bale_manifest_ns(&sb.st_mtim);
	st->ctime_ns = bale_manifest_ns(&sb.st_ctim);
}

/* A stat in a sort record, as varints, and back (*@p moves on). */
static void diff_stat_put(struct bale_buf *b, const struct diff_stat *st)
{
	bale_varint_put(b, st->size);
	bale_varint_put(b, bale_zigzag(st->mtime_ns));
	bale_varint_put(b, bale_zigzag(st->ctime_ns));
}

static void diff_stat_get(const unsigned char **p, struct diff_stat *st)
{
	st->size = bale_varint_get(p);
	st->mtime_ns = bale_unzigzag(bale_varint_get(p));
	st->ctime_ns = bale_unzigzag(bale_varint_get(p));
}

/* Walk item @i is packed; an update (not a first run) lists it too. */
static int diff_pack(struct diff_run *r, uint64_t i,
    const struct diff_stat *st, int replaces)
{
	struct bale_update_diff *d = r->d;
	struct bale_diff_pack p = { i, st->size, st->mtime_ns };

	bale_spill_add(&d->packs, &p, sizeof(p));
	if (r->head && bale_grow_array((void **)&d->pack, &d->cappack,
	    d->npack + 1, sizeof(*d->pack)) != 0)
		return diff_nomem(r);
	if (r->head) {
		d->pack[d->npack].item = i;
		d->pack[d->npack].replaces = replaces;
	}
	d->npack++;
	return d->packs.failed ? bale_errbuf_set(r->err, BALE_EIO, "cannot "
	    "keep the list of files to pack: %s", strerror(d->packs.err)) :
	    BALE_OK;
}

static int diff_remove(struct diff_run *r, uint64_t key)
{
	struct bale_update_diff *d = r->d;

	if (bale_grow_array((void **)&d->removed, &d->capremoved,
	    d->nremoved + 1, sizeof(*d->removed)) != 0)
		return diff_nomem(r);
	d->removed[d->nremoved++] = key;
	return BALE_OK;
}

/* A manifest sample whose file is gone. */
static int diff_gone(struct diff_run *r, const char *path, uint64_t key)
{
	bale_buf_add(&r->d->gone, path, strlen(path) + 1);
	if (r->d->gone.failed)
		return diff_nomem(r);
	r->d->ngone++;
	return diff_remove(r, key);
}

/* A file skipped before and unchanged since (same size, same status
 * change time) is not tried again: the same reason would skip it.
 * @return 1 when it stays skipped, 0, or -1 without memory */
static int diff_still_skipped(struct diff_run *r, const char *path,
    uint64_t i, const struct diff_stat *st)
{
	struct bale_update_diff *d = r->d;
	long k = bale_path_index_find(&r->skips, path);

	if (k == -2)
		return -1;
	if (k < 0 || r->head->skip[k].size != st->size ||
	    r->head->skip[k].ctime_ns != st->ctime_ns)
		return 0;
	if (bale_grow_array((void **)&d->still, &d->capstill, d->nstill + 1,
	    sizeof(*d->still)) != 0)
		return -1;
	d->still[d->nstill].item = (size_t)i;
	d->still[d->nstill++].skip = (size_t)k;
	return 1;
}

/* Manifest sample @e, the line-th, is a row of a file the walk left
 * unread, unchanged (bale_walk_file_kept): it stays as it is, and no
 * walked sample meets it. @return 1 kept, 0 not, or an error */
static int diff_kept_file_row(struct diff_run *r,
    const struct bale_manifest_entry *e, uint64_t line)
{
	if (!r->head || !bale_walk_file_kept(r->w, (uint64_t)e->mtime_ns))
		return 0;
	r->d->nkept++;
	return bale_bits_set(&r->d->kept, line) ? diff_nomem(r) : 1;
}

/* Whether a walked file labelled @label (the walk's), as @st found it,
 * is manifest sample @e, the line-th, as it was: then it stays
 * (*@kept). */
static int diff_keep(struct diff_run *r, const struct diff_stat *st,
    int64_t label, const struct bale_manifest_entry *e, uint64_t line,
    int *kept)
{
	struct bale_update_diff *d = r->d;

	*kept = e->size == st->size && e->mtime_ns == st->mtime_ns &&
	    e->label == (label < 0 ? label : d->label_map[label]);
	if (!*kept)
		return BALE_OK;
	d->nkept++;
	return bale_bits_set(&d->kept, line) ? diff_nomem(r) : BALE_OK;
}

/* Walked file @i at @path, as @st found it, against its manifest
 * sample @e (NULL: none), the manifest's line-th. */
static int diff_item(struct diff_run *r, uint64_t i, const char *path,
    const struct diff_stat *st, const struct bale_manifest_entry *e,
    uint64_t line)
{
	struct bale_update_diff *d = r->d;
	int still;
	int kept;
	int rc;

	if (!e) {
		still = r->head ? diff_still_skipped(r, path, i, st) : 0;
		if (still < 0)
			return diff_nomem(r);
		if (still)
			return BALE_OK;
		d->added++;
		return diff_pack(r, i, st, 0);
	}
	rc = diff_keep(r, st, bale_walk_cursor_label(&r->cur, (size_t)i), e,
	    line, &kept);
	if (rc != BALE_OK || kept)
		return rc;
	d->replaced++;
	if (diff_remove(r, e->key) != BALE_OK)
		return r->err->rc;
	return diff_pack(r, i, st, 1);
}

/* The same, the file stat'ed now. */
static int diff_item_now(struct diff_run *r, uint64_t i, const char *path,
    const struct bale_manifest_entry *e, uint64_t line)
{
	struct diff_stat st;

	diff_stat_of(r, i, path, &st);
	return diff_item(r, i, path, &st, e, line);
}

/* Walk item @i's path. NULL without memory. */
static const char *diff_walk_path(struct diff_run *r, uint64_t i)
{
	return bale_walk_cursor_path(&r->cur, (size_t)i);
}

/* A key of the manifest's: each once. */
static int diff_key(struct diff_run *r, const char *manifest, uint64_t key)
{
	int rc = bale_keyset_add(&r->d->keys_before, key);

	if (rc < 0)
		return diff_nomem(r);
	return rc ? bale_errbuf_set(r->err, BALE_EINVAL, "'%s' is not a "
	    "manifest bale wrote: key %llu comes twice", manifest,
	    (unsigned long long)key) : BALE_OK;
}

/* The manifest as it is read beside the walk. */
struct diff_side {
	struct bale_manifest_in in;
	struct bale_manifest head;	/* read again; its skips unused */
	struct bale_manifest_entry e;
	const char *path;
	struct bale_buf prev;
	uint64_t line;		/* e's: samples before it */
	int have;
};

/* The manifest's next sample, in path order or DIFF_OUT_OF_ORDER. */
static int diff_side_read(struct diff_run *r, struct diff_side *s,
    const char *manifest)
{
	int rc;

	if (s->have) {
		s->line++;
		bale_buf_reset(&s->prev);
		bale_buf_add(&s->prev, s->path, strlen(s->path) + 1);
		if (s->prev.failed)
			return diff_nomem(r);
	}
	rc = bale_manifest_next(&s->in, &s->head, &s->e, &s->path, r->err);
	s->have = rc == 1;
	if (rc != 1)
		return rc;
	if (s->line && bale_walk_path_cmp(s->prev.data, s->path) >= 0)
		return DIFF_OUT_OF_ORDER;
	return diff_key(r, manifest, s->e.key);
}

/* The same, past the rows of files left unread, which stay. */
static int diff_side_next(struct diff_run *r, struct diff_side *s,
    const char *manifest)
{
	int rc;

	do
		rc = diff_side_read(r, s, manifest);
	while (rc == BALE_OK && s->have &&
	    (rc = diff_kept_file_row(r, &s->e, s->line)) == 1);
	return rc;
}

/* Manifest samples before @path (all with @path NULL) are gone. */
static int diff_side_gone(struct diff_run *r, struct diff_side *s,
    const char *manifest, const char *path)
{
	int rc = BALE_OK;

	while (rc == BALE_OK && s->have && (!path ||
	    bale_walk_path_cmp(s->path, path) < 0)) {
		rc = diff_gone(r, s->path, s->e.key);
		if (rc == BALE_OK)
			rc = diff_side_next(r, s, manifest);
	}
	return rc;
}

/* The walk and the manifest side by side. */
static int diff_stream(struct diff_run *r, const char *manifest)
{
	struct diff_side s;
	size_t i, n = bale_walk_count(r->w);
	const char *path;
	int match, rc;

	memset(&s, 0, sizeof(s));
	rc = bale_manifest_open(&s.in, &s.head, manifest, r->err);
	if (rc == BALE_OK)
		rc = diff_side_next(r, &s, manifest);
	for (i = 0; rc == BALE_OK && i < n; i++) {
		path = diff_walk_path(r, i);
		rc = path ? diff_side_gone(r, &s, manifest, path) :
		    diff_nomem(r);
		if (rc != BALE_OK)
			break;
		match = s.have && strcmp(s.path, path) == 0;
		rc = diff_item_now(r, i, path, match ? &s.e : NULL, s.line);
		if (rc == BALE_OK && match)
			rc = diff_side_next(r, &s, manifest);
	}
	if (rc == BALE_OK)
		rc = diff_side_gone(r, &s, manifest, NULL);
	bale_manifest_close(&s.in);
	bale_manifest_release(&s.head);
	bale_buf_release(&s.prev);
	return rc;
}

/* The manifest's skipped files' paths, for their index (they are few:
 * kept in memory). */
static const char *diff_skip_path(const void *m, size_t i,
    struct bale_buf *scratch)
{
	(void)scratch;
	return bale_manifest_skip_path(m, i);
}

/* Each walked file is new: there is no manifest. */
static int diff_all_new(struct diff_run *r)
{
	size_t i, n = bale_walk_count(r->w);
	const char *path;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < n; i++) {
		path = diff_walk_path(r, i);
		rc = path ? diff_item_now(r, i, path, NULL, 0) :
		    diff_nomem(r);
	}
	return rc;
}

/* Out of path order, the walk and the manifest are each sorted by path
 * past memory (xsort.h) and joined in one pass, where each file is
 * stat'ed (in path order, so a folder's files one after another, as a
 * folder's walk stats them); what each met is sorted back into walk
 * order, where it is kept or packed. Records: a walked file's path,
 * NUL, its index; a manifest sample's path, NUL, its line, key, label,
 * size and modification time; a walked file's match, its index (eight
 * bytes, big-endian), its stat's size, modification and change times,
 * then the manifest sample's varints, if it has one. */
struct diff_sorted {
	struct bale_xsort walk;
	struct bale_xsort man;
	struct bale_xsort met;
	struct bale_buf rec;
	struct bale_buf path;	/* the manifest sample met last */
	const unsigned char *at;	/* its varints, in the sort's record */
	size_t at_len;
	int have;
};

static int diff_sort_failed(struct diff_run *r, int err)
{
	if (err == ENOMEM)
		return diff_nomem(r);
	return bale_errbuf_set(r->err, BALE_EIO, "cannot sort the manifest "
	    "and the files by path in '%s': %s", r->d->packs.dir,
	    strerror(err));
}

static int diff_sorted_add(struct diff_run *r, struct bale_xsort *x,
    struct bale_buf *rec)
{
	if (rec->failed)
		return diff_nomem(r);
	return bale_xsort_add(x, rec->data, rec->len) ? diff_sort_failed(r,
	    x->err) : BALE_OK;
}

/* The walked files to the sort by path. */
static int diff_sort_walk(struct diff_run *r, struct diff_sorted *s)
{
	size_t i, n = bale_walk_count(r->w);
	const char *path;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < n; i++) {
		if (!(path = diff_walk_path(r, i)))
			return diff_nomem(r);
		bale_buf_reset(&s->rec);
		bale_buf_add(&s->rec, path, strlen(path) + 1);
		bale_varint_put(&s->rec, i);
		bale_varint_put(&s->rec,
		    bale_zigzag(bale_walk_cursor_label(&r->cur, i)));
		rc = diff_sorted_add(r, &s->walk, &s->rec);
	}
	return rc;
}

/* What the manifest's samples go to as it is read. */
struct diff_sort_ctx {
	struct diff_run *r;
	struct diff_sorted *s;
	const char *manifest;
};

/* bale_manifest_each callback: a sample to the sort by path. */
static int diff_sort_sample(void *ctx, uint64_t line,
    const struct bale_manifest_entry *e, const char *path)
{
	struct diff_sort_ctx *c = ctx;
	struct bale_buf *rec = &c->s->rec;
	int rc = diff_key(c->r, c->manifest, e->key);

	bale_buf_reset(rec);
	bale_buf_add(rec, path, strlen(path) + 1);
	bale_varint_put(rec, line);
	bale_manifest_entry_put(rec, e);
	return rc == BALE_OK ? diff_sorted_add(c->r, &c->s->man, rec) : rc;
}

/* The manifest's samples, a line at a time, to the sort by path. */
static int diff_sort_manifest(struct diff_run *r, struct diff_sorted *s,
    const char *manifest)
{
	struct diff_sort_ctx c = { r, s, manifest };

	return bale_manifest_each(manifest, diff_sort_sample, &c, r->err);
}

/* The manifest's next sample in path order into s->path and s->at. */
static int diff_read_sample(struct diff_run *r, struct diff_sorted *s)
{
	const void *p;
	size_t n;
	int got = bale_xsort_next(&s->man, &p, &n);

	if (got < 0)
		return diff_sort_failed(r, s->man.err);
	s->have = got;
	if (!got)
		return BALE_OK;
	bale_buf_reset(&s->path);
	bale_buf_puts(&s->path, p);
	bale_buf_add(&s->path, "", 1);
	s->at = (const unsigned char *)p + strlen(p) + 1;
	s->at_len = n - (strlen(p) + 1);
	return s->path.failed ? diff_nomem(r) : BALE_OK;
}

/* The manifest's sample s->at holds. */
static uint64_t diff_get_sample(const unsigned char *p,
    struct bale_manifest_entry *e)
{
	uint64_t line = bale_varint_get(&p);

	bale_manifest_entry_get(&p, e);
	return line;
}

/* The same, past the rows of files left unread, which stay. */
static int diff_next_sample(struct diff_run *r, struct diff_sorted *s)
{
	struct bale_manifest_entry e;
	uint64_t line;
	int rc;

	do {
		rc = diff_read_sample(r, s);
		if (rc != BALE_OK || !s->have)
			break;
		line = diff_get_sample(s->at, &e);
	} while ((rc = diff_kept_file_row(r, &e, line)) == 1);
	return rc;
}

/* Manifest samples before @path (all with @path NULL) are gone. */
static int diff_sorted_gone(struct diff_run *r, struct diff_sorted *s,
    const char *path)
{
	struct bale_manifest_entry e;
	int rc = BALE_OK;

	while (rc == BALE_OK && s->have && (!path ||
	    strcmp(s->path.data, path) < 0)) {
		diff_get_sample(s->at, &e);
		rc = diff_gone(r, s->path.data, e.key);
		if (rc == BALE_OK)
			rc = diff_next_sample(r, s);
	}
	return rc;
}

/* Walked file @rec (in path order) against the manifest's sample. A
 * sample meets one file: a path listed twice (and packed twice) meets
 * its two samples in turn, each sort keeping its order. A file that
 * stays is done with; the others go to the sort by index, to be packed
 * in walk order. */
static int diff_join_one(struct diff_run *r, struct diff_sorted *s,
    const char *rec)
{
	const unsigned char *p = (const unsigned char *)rec + strlen(rec) + 1;
	struct bale_manifest_entry e;
	unsigned char item[8];
	struct diff_stat st;
	uint64_t line, at;
	int64_t label;
	int met, kept = 0;
	int rc = diff_sorted_gone(r, s, rec);

	if (rc != BALE_OK)
		return rc;
	at = bale_varint_get(&p);
	bale_xsort_put_u64be(item, at);
	label = bale_unzigzag(bale_varint_get(&p));
	diff_stat_of(r, at, rec, &st);
	met = s->have && strcmp(s->path.data, rec) == 0;
	if (met) {
		line = diff_get_sample(s->at, &e);
		rc = diff_keep(r, &st, label, &e, line, &kept);
	}
	if (rc == BALE_OK && !kept) {
		bale_buf_reset(&s->rec);
		bale_buf_add(&s->rec, item, sizeof(item));
		diff_stat_put(&s->rec, &st);
		if (met)
			bale_buf_add(&s->rec, s->at, s->at_len);
		rc = diff_sorted_add(r, &s->met, &s->rec);
	}
	return rc == BALE_OK && met ? diff_next_sample(r, s) : rc;
}

/* Both sorted, joined: each walked file's match to the sort by index,
 * the samples no file met gone. */
static int diff_join(struct diff_run *r, struct diff_sorted *s)
{
	const void *p;
	size_t n;
	int got = 0;
	int rc = BALE_OK;

	if (bale_xsort_sort(&s->walk) || bale_xsort_sort(&s->man))
		return diff_sort_failed(r, s->walk.err ? s->walk.err :
		    s->man.err);
	rc = diff_next_sample(r, s);
	while (rc == BALE_OK && (got = bale_xsort_next(&s->walk, &p, &n)) > 0)
		rc = diff_join_one(r, s, p);
	if (rc == BALE_OK && got < 0)
		rc = diff_sort_failed(r, s->walk.err);
	if (rc == BALE_OK)
		rc = diff_sorted_gone(r, s, NULL);
	return rc;
}

/* What each walked file that does not stay met, in walk order: it is
 * packed. */
static int diff_apply(struct diff_run *r, struct diff_sorted *s)
{
	struct bale_manifest_entry e;
	struct diff_stat st;
	const unsigned char *p;
	const void *rec;
	const char *path;
	uint64_t i, line;
	size_t n;
	int met;
	int got = 0;
	int rc = BALE_OK;

	bale_xsort_release(&s->walk);
	bale_xsort_release(&s->man);
	if (bale_xsort_sort(&s->met))
		return diff_sort_failed(r, s->met.err);
	while (rc == BALE_OK && (got = bale_xsort_next(&s->met, &rec, &n)) >
	    0) {
		i = bale_xsort_get_u64be(rec);
		p = (const unsigned char *)rec + 8;
		diff_stat_get(&p, &st);
		if (!(path = diff_walk_path(r, i)))
			return diff_nomem(r);
		met = p < (const unsigned char *)rec + n;	/* a sample */
		line = met ? diff_get_sample(p, &e) : 0;
		rc = diff_item(r, i, path, &st, met ? &e : NULL, line);
	}
	if (rc == BALE_OK && got < 0)
		rc = diff_sort_failed(r, s->met.err);
	return rc;
}

/* The walk or the manifest out of path order: both sorted. */
static int diff_sorted(struct diff_run *r, const char *manifest)
{
	const char *dir = r->d->packs.dir;
	struct diff_sorted s;
	int rc = BALE_OK;

	memset(&s, 0, sizeof(s));
	if (bale_xsort_init(&s.walk, dir, bale_xsort_by_string, 0) ||
	    bale_xsort_init(&s.man, dir, bale_xsort_by_string, 0) ||
	    bale_xsort_init(&s.met, dir, bale_xsort_by_u64be, 0))
		rc = diff_nomem(r);
	if (rc == BALE_OK)
		rc = diff_sort_walk(r, &s);
	if (rc == BALE_OK)
		rc = diff_sort_manifest(r, &s, manifest);
	if (rc == BALE_OK)
		rc = diff_join(r, &s);
	if (rc == BALE_OK)
		rc = diff_apply(r, &s);
	bale_xsort_release(&s.walk);
	bale_xsort_release(&s.man);
	bale_xsort_release(&s.met);
	bale_buf_release(&s.rec);
	bale_buf_release(&s.path);
	return rc;
}

static long diff_class(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return (long)i;
	return -1;
}

/* The manifest's classes, then the walk's it lacks; each walk label's
 * place among them. A list file's labels (no class names) stay. */
static int diff_classes(struct bale_update_diff *d, const struct bale_walk *w,
    const struct bale_manifest *m)
{
	const char *const *wc = bale_walk_classes(w);
	size_t nw = bale_walk_nclasses(w), nm = m ? m->nclasses : 0;
	size_t i;
	long at;

	d->classes = calloc(nm + nw + 1, sizeof(*d->classes));
	d->label_map = calloc(nw + 1, sizeof(*d->label_map));
	if (!d->classes || !d->label_map)
		return -1;
	for (i = 0; i < nm; i++)
		d->classes[i] = m->classes[i];
	d->nclasses = nm;
	for (i = 0; i < nw; i++) {
		at = wc[i] ? diff_class(d->classes, d->nclasses, wc[i]) :
		    (long)i;
		if (at < 0) {
			at = (long)d->nclasses;
			d->new_classes++;
		}
		if ((size_t)at >= d->nclasses) {
			d->classes[at] = wc[i] ? wc[i] : "";
			d->nclasses = (size_t)at + 1;
		}
		d->label_map[i] = at;
	}
	return 0;
}

/* What a diff found, forgotten (to start over another way); the
 * classes stay. */
static void diff_forget(struct bale_update_diff *d)
{
	char *dir = d->packs.dir ? strdup(d->packs.dir) : NULL;

	bale_spill_release(&d->packs);
	bale_spill_init(&d->packs, dir ? dir : ".");
	free(dir);
	bale_bits_release(&d->kept);
	bale_keyset_release(&d->keys_before);
	bale_buf_release(&d->gone);
	free(d->removed);
	free(d->pack);
	free(d->still);
	d->removed = NULL;
	d->pack = NULL;
	d->still = NULL;
	d->capremoved = d->cappack = d->capstill = 0;
	d->npack = d->nkept = d->added = d->replaced = 0;
	d->nremoved = d->ngone = d->nstill = 0;
}

/* The diff, streamed where it can be. */
static int diff_run(struct diff_run *r, const char *manifest)
{
	int rc;

	if (!manifest) {
		rc = diff_all_new(r);
		r->d->sorted = bale_walk_in_path_order(r->w);
		return rc;
	}
	if (bale_path_index_build(&r->skips, r->head->nskip,
	    diff_skip_path, r->head) != 0)
		return diff_nomem(r);
	/* a walk out of order is known before the stream would note, for
	 * its first path, every sample before it as gone */
	rc = r->head->path_order && bale_walk_in_path_order(r->w) ?
	    diff_stream(r, manifest) : DIFF_OUT_OF_ORDER;
	r->d->sorted = rc == BALE_OK;
	if (rc == DIFF_OUT_OF_ORDER) {
		diff_forget(r->d);
		rc = diff_sorted(r, manifest);
	}
	return rc;
}

int bale_update_diff(struct bale_update_diff *d, const struct bale_walk *walk,
    int rootfd, const char *manifest, const struct bale_manifest *head,
    const char *spill_dir, struct bale_errbuf *err)
{
	struct diff_run r;
	int rc;

	memset(d, 0, sizeof(*d));
	memset(&r, 0, sizeof(r));
	r.d = d;
	r.w = walk;
	r.rootfd = rootfd;
	r.head = manifest ? head : NULL;
	r.err = err;
	bale_walk_cursor_init(&r.cur, walk);
	r.skips = (struct bale_path_index)BALE_PATH_INDEX_INIT;
	r.dir = (struct bale_input_dir)BALE_INPUT_DIR_INIT;
	if (bale_spill_init(&d->packs, spill_dir) != 0 ||
	    diff_classes(d, walk, r.head) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	rc = diff_run(&r, manifest);
	if (rc == BALE_OK && bale_keyset_seal(&d->keys_before) != 0)
		rc = diff_nomem(&r);
	if (rc == BALE_OK && d->nremoved > 1)
		qsort(d->removed, d->nremoved, sizeof(*d->removed),
		    bale_u64_cmp);
	bale_path_index_release(&r.skips);
	bale_input_dir_release(&r.dir);
	bale_walk_cursor_release(&r.cur);
	return rc;
}

int bale_update_diff_pack(struct bale_update_diff *d, uint64_t k,
    struct bale_diff_pack *p)
{
	uint64_t n;

	if (k < d->cache_first || k >= d->cache_first + d->cache_n) {
		if (!d->cache && !(d->cache = malloc(DIFF_CACHE *
		    sizeof(*d->cache))))
			return -1;
		n = d->npack - k < DIFF_CACHE ? d->npack - k : DIFF_CACHE;
		d->cache_n = 0;
		if (bale_spill_pread(&d->packs, d->cache, (size_t)n *
		    sizeof(*p), k * sizeof(*p)) != 0)
			return -1;
		d->cache_first = k;
		d->cache_n = n;
	}
	*p = d->cache[k - d->cache_first];
	return 0;
}

void bale_update_diff_release(struct bale_update_diff *d)
{
	free(d->label_map);
	free(d->classes);
	bale_spill_release(&d->packs);
	free(d->cache);
	free(d->pack);
	bale_bits_release(&d->kept);
	free(d->removed);
	bale_buf_release(&d->gone);
	free(d->still);
	bale_keyset_release(&d->keys_before);
	memset(d, 0, sizeof(*d));
}
