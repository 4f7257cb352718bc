/* walk_listed.c - archives read through a list file. The list names the
 * samples by their paths as extraction would place them (so a list made
 * for the extracted folder serves the archive unchanged), in its order,
 * with its labels; members it does not name are left out, as a folder's
 * unlisted files are.
 *
 * Archive and list may each name ten million paths, so neither side is
 * kept in memory to be looked up: the members go to a sort past memory
 * by path as the archive is listed (xsort.h), the list's lines likewise
 * once it is read; one pass over both, in path order, finds each line's
 * member; and what each line gives, a sample or a note, is sorted back
 * into the list's order to be sealed. Memory is a few chunks, whatever
 * the count.
 *
 * A member's record: its path, NUL, then 'm' and the varints of its
 * origin, offset, size, csize, method and crc + 1 (0: none); or 'r' and
 * why it cannot be read.
 * A line's record: its path as a member's would be, NUL, the varints of
 * its ordinal and label, then the path as the line wrote it, when that
 * differs.
 * What a line gives: its ordinal (eight bytes, big-endian), a kind
 * (enum listed_out), then for a sample the varint label, the member's
 * varints and the path as listed; for a note its path and reason. */
#include "walk_int.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "kind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum listed_out {
	OUT_SAMPLE = 's',
	OUT_DUPLICATE = 'd',	/* path: a later copy is the one used */
	OUT_SKIPPED = 'k',	/* path, NUL, why */
};

enum { MEMBER_READABLE = 'm', MEMBER_REFUSED = 'r' };

/* The members that share one path, as the join meets them. */
struct listed_group {
	struct bale_buf path;
	size_t readable;	/* copies that can be read */
	struct bale_buf loc;	/* the last one's varints: extraction
				 * keeps the last copy */
	struct bale_buf why;	/* the last refusal, when none can be */
	int taken;		/* a line took it */
	int have;		/* a group is loaded */
	const char *next;	/* the member record read ahead */
	size_t next_len;
};

struct listed {
	struct bale_walk *w;
	struct bale_xsort lines;
	struct bale_xsort out;
	struct listed_group g;
	struct bale_buf rec;
	struct bale_buf clean;
	uint64_t nlines;
};

static int listed_sort_failed(struct bale_walk *w, int err)
{
	if (err == ENOMEM)
		return bale_walk_nomem(w);
	return bale_errbuf_set(&w->err, BALE_EIO, "walk: cannot sort the "
	    "list and the archive's members in '%s': %s", bale_walk_tmpdir(),
	    strerror(err));
}

int bale_walk_listed_start(struct bale_walk *w)
{
	if (bale_xsort_init(&w->candidates, bale_walk_tmpdir(),
	    bale_xsort_by_string, 0) != 0)
		return bale_walk_nomem(w);
	return BALE_OK;
}

int bale_walk_keep_candidate(struct bale_walk *w, const char *path,
    const struct bale_walk_member *m, const char *why)
{
	struct bale_buf rec = BALE_BUF_INIT;
	int64_t origin = m ? bale_walk_locs_origin(&w->store.locs, m) : 0;
	int rc = BALE_OK;

	if (bale_walk_stopped(w))
		return BALE_EINTR;
	bale_buf_add(&rec, path, strlen(path) + 1);
	if (why) {
		bale_buf_add(&rec, (char[]){ MEMBER_REFUSED }, 1);
		bale_buf_puts(&rec, why);
	} else {
		bale_buf_add(&rec, (char[]){ MEMBER_READABLE }, 1);
		bale_walk_put_member(&rec, (uint64_t)origin, m);
		w->nadded++;
	}
	if (rec.failed || origin < 0)
		rc = bale_walk_nomem(w);
	else if (bale_xsort_add(&w->candidates, rec.data, rec.len) != 0)
		rc = listed_sort_failed(w, w->candidates.err);
	bale_buf_release(&rec);
	return rc;
}

/* Start what line @ordinal gives, of kind @kind, in l->rec. */
static void listed_out_begin(struct listed *l, uint64_t ordinal, int kind)
{
	unsigned char head[9];

	bale_xsort_put_u64be(head, ordinal);
	head[8] = (unsigned char)kind;
	bale_buf_reset(&l->rec);
	bale_buf_add(&l->rec, head, sizeof(head));
}

static int listed_out_end(struct listed *l)
{
	if (l->rec.failed)
		return bale_walk_nomem(l->w);
	if (bale_xsort_add(&l->out, l->rec.data, l->rec.len) != 0)
		return listed_sort_failed(l->w, l->out.err);
	return BALE_OK;
}

static int listed_out_note(struct listed *l, uint64_t ordinal, int kind,
    const char *path, const char *why)
{
	listed_out_begin(l, ordinal, kind);
	bale_buf_puts(&l->rec, path);
	if (why) {
		bale_buf_add(&l->rec, "", 1);
		bale_buf_puts(&l->rec, why);
	}
	return listed_out_end(l);
}

/* walk_list_reader callback: the line to the sort by path. */
static int listed_take_line(struct bale_walk *w, const char *path,
    int64_t label, void *ctx)
{
	struct listed *l = ctx;
	uint64_t ordinal = l->nlines++;

	if (bale_walk_stopped(w))
		return BALE_EINTR;
	if (bale_walk_clean_path(&l->clean, NULL, path) != 0 ||
	    l->clean.len == 0)
		return listed_out_note(l, ordinal, OUT_SKIPPED, path, "listed "
		    "path is not one a member can have (empty, absolute or "
		    "with '..')");
	bale_buf_reset(&l->rec);
	bale_buf_add(&l->rec, l->clean.data, l->clean.len + 1);
	bale_varint_put(&l->rec, ordinal);
	bale_varint_put(&l->rec, (uint64_t)label);
	if (strcmp(path, l->clean.data) != 0)
		bale_buf_puts(&l->rec, path);
	if (l->rec.failed || l->clean.failed)
		return bale_walk_nomem(w);
	if (bale_xsort_add(&l->lines, l->rec.data, l->rec.len) != 0)
		return listed_sort_failed(w, l->lines.err);
	return BALE_OK;
}

/* Read the next member record ahead into g->next (NULL at the end). */
static int listed_read_member(struct listed *l)
{
	const void *p;
	size_t n;
	int r = bale_xsort_next(&l->w->candidates, &p, &n);

	if (r < 0)
		return listed_sort_failed(l->w, l->w->candidates.err);
	l->g.next = r ? p : NULL;
	l->g.next_len = r ? n : 0;
	return BALE_OK;
}

/* Load the next path's members into the group: g->have 0 when there
 * are no more. */
static int listed_next_group(struct listed *l)
{
	struct listed_group *g = &l->g;
	size_t len;
	int rc = BALE_OK;

	g->have = g->next != NULL;
	if (!g->have)
		return BALE_OK;
	bale_buf_reset(&g->path);
	bale_buf_puts(&g->path, g->next);
	bale_buf_add(&g->path, "", 1);
	g->readable = 0;
	g->taken = 0;
	while (rc == BALE_OK && g->next && strcmp(g->next, g->path.data) == 0) {
		len = strlen(g->next) + 1;	/* then the member's kind */
		if (g->next[len] == MEMBER_READABLE) {
			g->readable++;
			bale_buf_reset(&g->loc);
			bale_buf_add(&g->loc, g->next + len + 1,
			    g->next_len - len - 1);
		} else {
			bale_buf_reset(&g->why);
			bale_buf_add(&g->why, g->next + len + 1,
			    g->next_len - len - 1);
			bale_buf_add(&g->why, "", 1);
		}
		rc = listed_read_member(l);
	}
	if (g->path.failed || g->loc.failed || g->why.failed)
		return bale_walk_nomem(l->w);
	return rc;
}

/* A line naming again what a stream gave once (@kind's: a compressed
 * tar's member, a Parquet file's row) is skipped, saying so. */
static int listed_out_note_streamed(struct listed *l, uint64_t ordinal,
    const char *path, const struct bale_source_kind *kind)
{
	char why[160];

	snprintf(why, sizeof(why), "listed again: what %s give%s is read "
	    "once, for the first line naming it", kind->what,
	    strncmp(kind->what, "a ", 2) == 0 ? "s" : "");
	return listed_out_note(l, ordinal, OUT_SKIPPED, path, why);
}

/* What a line whose path the group holds gives: the member, the first
 * time noting that a later copy of it was used; a note when none can
 * be read, or when a member read from a stream is listed again. */
static int listed_match(struct listed *l, uint64_t ordinal, int64_t label,
    const char *path)
{
	struct listed_group *g = &l->g;
	struct bale_walk_member m;
	const unsigned char *p = (const unsigned char *)g->loc.data;
	int rc = BALE_OK;

	if (!g->readable)
		return listed_out_note(l, ordinal, OUT_SKIPPED, g->path.data,
		    g->why.data);
	bale_walk_get_member(&l->w->store.locs, &p, &m);
	if (g->taken && bale_source_member_fed(&m))
		return listed_out_note_streamed(l, ordinal, path, m.kind);
	if (!g->taken && g->readable > 1)
		rc = listed_out_note(l, ordinal, OUT_DUPLICATE, g->path.data,
		    NULL);
	g->taken = 1;
	if (rc != BALE_OK)
		return rc;
	listed_out_begin(l, ordinal, OUT_SAMPLE);
	bale_varint_put(&l->rec, (uint64_t)label);
	bale_buf_add(&l->rec, g->loc.data, g->loc.len);
	bale_buf_puts(&l->rec, path);
	return listed_out_end(l);
}

/* One line, in path order, against the members. */
static int listed_join_line(struct listed *l, const char *rec, size_t n)
{
	const unsigned char *p = (const unsigned char *)rec + strlen(rec) + 1;
	uint64_t ordinal = bale_varint_get(&p);
	int64_t label = (int64_t)bale_varint_get(&p);
	size_t rest = n - (size_t)((const char *)p - rec);
	const char *shown = rec;	/* the path as the line wrote it */
	int rc = BALE_OK;

	if (rest) {
		bale_buf_reset(&l->clean);
		bale_buf_add(&l->clean, p, rest);
		bale_buf_add(&l->clean, "", 1);
		if (l->clean.failed)
			return bale_walk_nomem(l->w);
		shown = l->clean.data;
	}
	while (rc == BALE_OK && l->g.have && strcmp(l->g.path.data, rec) < 0)
		rc = listed_next_group(l);
	if (rc != BALE_OK)
		return rc;
	if (l->g.have && strcmp(l->g.path.data, rec) == 0)
		return listed_match(l, ordinal, label, shown);
	return listed_out_note(l, ordinal, OUT_SKIPPED, shown,
	    l->w->unlisted ? l->w->unlisted : "listed, but no member of the "
	    "archive has this path");
}

/* Every line against the members, both in path order. */
static int listed_join(struct listed *l)
{
	const void *p;
	size_t n;
	uint64_t done = 0;
	int r;
	int rc;

	if (bale_xsort_sort(&l->w->candidates) != 0)
		return listed_sort_failed(l->w, l->w->candidates.err);
	if (bale_xsort_sort(&l->lines) != 0)
		return listed_sort_failed(l->w, l->lines.err);
	rc = listed_read_member(l);
	if (rc == BALE_OK)
		rc = listed_next_group(l);
	while (rc == BALE_OK && (r = bale_xsort_next(&l->lines, &p, &n)) > 0) {
		if ((++done & 0xffff) == 0 && bale_walk_stopped(l->w))
			return BALE_EINTR;
		rc = listed_join_line(l, p, n);
	}
	if (rc == BALE_OK && r < 0)
		rc = listed_sort_failed(l->w, l->lines.err);
	return rc;
}

/* Seal what line @rec gives, in the list's order. */
static int listed_seal_one(struct bale_walk *w, const char *rec, size_t n)
{
	const unsigned char *p = (const unsigned char *)rec + 9;
	const char *end = rec + n;
	const char *path = (const char *)p;
	struct bale_walk_member m;
	int64_t label;

	if (rec[8] == OUT_SAMPLE) {
		label = (int64_t)bale_varint_get(&p);
		bale_walk_get_member(&w->store.locs, &p, &m);
		path = (const char *)p;
		return bale_walk_seal_one(w, path, (size_t)(end - path), label,
		    &m);
	}
	if (rec[8] == OUT_DUPLICATE)	/* the path ends the record */
		return bale_walk_note_duplicate(w, path);
	return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path,
	    path + strlen(path) + 1);
}

static int listed_seal(struct listed *l)
{
	struct bale_buf rec = BALE_BUF_INIT;
	const void *p;
	size_t n;
	uint64_t done = 0;
	int r = 0;
	int rc = BALE_OK;

	bale_xsort_release(&l->w->candidates);	/* the join is done */
	bale_xsort_release(&l->lines);
	if (bale_xsort_sort(&l->out) != 0)
		return listed_sort_failed(l->w, l->out.err);
	while (rc == BALE_OK && (r = bale_xsort_next(&l->out, &p, &n)) > 0) {
		if ((++done & 0xffff) == 0 && bale_walk_stopped(l->w))
			rc = BALE_EINTR;
		/* a copy ends with a NUL: a path ends a record */
		bale_buf_reset(&rec);
		bale_buf_add(&rec, p, n);
		bale_buf_add(&rec, "", 1);
		if (rc == BALE_OK)
			rc = rec.failed ? bale_walk_nomem(l->w) :
			    listed_seal_one(l->w, rec.data, n);
	}
	bale_buf_release(&rec);
	if (rc == BALE_OK && r < 0)
		rc = listed_sort_failed(l->w, l->out.err);
	return rc;
}

int bale_walk_list_members(struct bale_walk *w, const char *list)
{
	struct walk_list_reader r = { listed_take_line, NULL, -1 };
	struct listed l;
	int rc = BALE_OK;

	memset(&l, 0, sizeof(l));
	l.w = w;
	r.ctx = &l;
	if (bale_xsort_init(&l.lines, bale_walk_tmpdir(),
	    bale_xsort_by_string, 0) != 0 ||
	    bale_xsort_init(&l.out, bale_walk_tmpdir(),
	    bale_xsort_by_u64be, 0) != 0)
		rc = bale_walk_nomem(w);
	if (rc == BALE_OK)
		rc = bale_walk_read_list(w, list, &r);
	if (rc == BALE_OK)
		rc = listed_join(&l);
	if (rc == BALE_OK)
		rc = listed_seal(&l);
	bale_xsort_release(&w->candidates);
	bale_xsort_release(&l.lines);
	bale_xsort_release(&l.out);
	bale_buf_release(&l.g.path);
	bale_buf_release(&l.g.loc);
	bale_buf_release(&l.g.why);
	bale_buf_release(&l.rec);
	bale_buf_release(&l.clean);
	return rc;
}

/* "path<TAB>label" with the label a non-negative decimal integer. */
static int walk_list_line(struct bale_walk *w, char *line, size_t lineno,
    struct walk_list_reader *r)
{
	char *tab = strrchr(line, '\t');
	char *end;
	long long label;

	if (!tab || tab == line)
		return bale_errbuf_set(&w->err, BALE_EINVAL,
		    "list: line %zu: expected PATH<TAB>LABEL", lineno);
	*tab = '\0';
	errno = 0;
	label = strtoll(tab + 1, &end, 10);
	if (errno != 0 || end == tab + 1 || *end != '\0' || label < 0 ||
	    label > WALK_MAX_LABEL)	/* labels size the class table */
		return bale_errbuf_set(&w->err, BALE_EINVAL,
		    "list: line %zu: label '%s' is not an integer in 0..%lld",
		    lineno, tab + 1, (long long)WALK_MAX_LABEL);
	if (label > r->maxlabel)
		r->maxlabel = label;
	return r->take(w, line, label, r->ctx);
}

static int walk_read_lines(struct bale_walk *w, FILE *f,
    struct walk_list_reader *r)
{
	char *line = NULL;
	size_t cap = 0;
	size_t lineno = 0;
	ssize_t n;
	int rc = BALE_OK;

	while (rc == BALE_OK && (n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n > 0)
			rc = walk_list_line(w, line, lineno, r);
	}
	if (rc == BALE_OK && ferror(f))
		rc = bale_errbuf_set(&w->err, BALE_EIO, "list: read error: %s",
		    strerror(errno));
	free(line);
	return rc;
}

int bale_walk_read_list(struct bale_walk *w, const char *list,
    struct walk_list_reader *r)
{
	FILE *f = fopen(list, "r");
	int rc;

	r->maxlabel = -1;
	if (!f)
		return bale_errbuf_set(&w->err,
		    errno == ENOENT ? BALE_ENOENT : BALE_EIO,
		    "list: cannot open '%s': %s", list, strerror(errno));
	rc = walk_read_lines(w, f, r);
	fclose(f);
	if (rc != BALE_OK)
		return rc;
	/* the labels index a class list with no names */
	w->nclasses = (size_t)(r->maxlabel + 1);
	w->classes = calloc(w->nclasses ? w->nclasses : 1, sizeof(char *));
	return w->classes ? BALE_OK : bale_walk_nomem(w);
}
