/* pipe_update_manifest.c - the manifest an update leaves: the samples
 * that stayed, as the old manifest has them, and those the run wrote,
 * in path order, after the files skipped.
 *
 * When the walk came in path order and the old manifest was read a
 * line at a time, the two are merged as they are read: the run holds a
 * position (4 bytes) for each file it packed and nothing for those that
 * stayed. Otherwise both are sorted past memory (xsort.h). */
#include "pipe_update.h"

#include "xsort.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UPD_NOT_IN_PLAN BALE_ORDER_MAX

/* A sample the run wrote. */
struct upd_new {
	uint64_t key;
	int64_t label;
	struct bale_diff_pack file;
	const char *path;
};

/* Walking the files packed, in walk order. */
struct upd_news {
	struct pipe_run *run;
	struct pipe_update *u;
	bale_order_t *pos;	/* per file packed: its position */
	uint64_t k;		/* the next file */
	struct bale_walk_cursor cur;	/* their paths and labels */
};

/* Each file's position in the run: an update's through its shuffle
 * (pack_at), a first run's through the run's order. */
static int upd_news_init(struct upd_news *nw, struct pipe_run *run,
    struct pipe_update *u)
{
	size_t i, n = u->diff.npack;

	memset(nw, 0, sizeof(*nw));
	nw->run = run;
	nw->u = u;
	bale_walk_cursor_init(&nw->cur, run->in.walk);
	nw->pos = malloc((n + 1) * sizeof(*nw->pos));
	if (!nw->pos)
		return -1;
	for (i = 0; i <= n; i++)
		nw->pos[i] = UPD_NOT_IN_PLAN;
	for (i = 0; i < run->plan.count; i++)
		nw->pos[u->incremental ? u->pack_at[i] :
		    bale_order_at(&run->plan.order, i)] = (bale_order_t)i;
	return 0;
}

/* The next file the run wrote into @s. @return 1, 0 when no more, -1
 * with errno */
static int upd_news_next(struct upd_news *nw, struct upd_new *s)
{
	bale_order_t pos;

	for (; nw->k < nw->u->diff.npack; nw->k++) {
		pos = nw->pos[nw->k];
		if (pos == UPD_NOT_IN_PLAN ||
		    !bale_bits_get(&nw->u->written, pos))
			continue;
		if (bale_update_diff_pack(&nw->u->diff, nw->k++, &s->file))
			return -1;
		s->key = nw->run->plan.key_base + pos;
		s->label = bale_walk_cursor_label(&nw->cur,
		    (size_t)s->file.item);
		if (s->label >= 0)	/* not BALE_LABEL_NONE */
			s->label = nw->run->lab.map[s->label];
		s->path = bale_walk_cursor_path(&nw->cur,
		    (size_t)s->file.item);
		if (!s->path)
			errno = ENOMEM;
		return s->path ? 1 : -1;
	}
	return 0;
}

static void upd_news_release(struct upd_news *nw)
{
	free(nw->pos);
	bale_walk_cursor_release(&nw->cur);
}

/* Every source file the run reported skipped, as it is now, so the
 * next update tries it again only once it changed. A path that cannot
 * be stat'ed (a broken link) is left out: the walk meets it again. */
static int upd_manifest_skips(struct bale_pipeline *p,
    const struct pipe_run *run, struct bale_manifest *m)
{
	size_t i, n = bale_report_count(p->report, BALE_NOTE_SKIPPED);
	const char *path, *why;
	struct stat sb;
	int rootfd = open(run->opts->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	for (i = 0; rc == 0 && rootfd >= 0 && i < n; i++) {
		bale_report_get(p->report, BALE_NOTE_SKIPPED, i, &path, &why);
		if (fstatat(rootfd, path, &sb, 0) == 0 && S_ISREG(sb.st_mode))
			rc = bale_manifest_add_skip(m, (uint64_t)sb.st_size,
			    bale_manifest_ns(&sb.st_ctim), path, why);
	}
	if (rootfd >= 0)
		close(rootfd);
	if (rc != 0)
		errno = ENOMEM;
	return rc;
}

/* The new manifest's head (its skips too): the dataset after the run. */
static int upd_head(struct bale_pipeline *p, struct pipe_run *run,
    struct pipe_update *u, struct bale_manifest *m)
{
	memset(m, 0, sizeof(*m));
	m->version = p->stats.version;
	m->next_key = run->plan.skip ? u->old.next_key :
	    run->plan.key_base + run->plan.count;
	m->count = u->diff.nkept + bale_bits_count(&u->written);
	m->formats = (char *)u->user->formats;
	m->settings = u->settings;
	m->classes = (char **)u->diff.classes;
	m->nclasses = u->diff.nclasses;
	return upd_manifest_skips(p, run, m);
}

/* The old manifest's next sample that stays. */
static int upd_next_kept(struct bale_manifest_in *in,
    struct bale_manifest *head, const struct bale_update_diff *d,
    uint64_t *line, struct bale_manifest_entry *e, const char **path,
    struct bale_errbuf *err)
{
	int rc;

	while ((rc = bale_manifest_next(in, head, e, path, err)) == 1)
		if (bale_bits_get(&d->kept, (*line)++))
			return 1;
	return rc;
}

/* The samples that stayed (read from the old manifest again) and the
 * new ones, merged in path order. */
static int upd_merge(struct bale_pipeline *p, struct upd_news *nw,
    struct bale_manifest_out *out)
{
	struct pipe_update *u = nw->u;
	struct bale_manifest_in in;
	struct bale_manifest head;
	struct bale_manifest_entry e;
	struct upd_new s;
	const char *path = NULL;
	uint64_t line = 0;
	int old = 0, new, rc = BALE_OK;

	memset(&in, 0, sizeof(in));
	memset(&head, 0, sizeof(head));
	if (u->incremental && (rc = bale_manifest_open(&in, &head,
	    u->manifest, &p->err)) == BALE_OK)
		old = upd_next_kept(&in, &head, &u->diff, &line, &e, &path,
		    &p->err);
	rc = rc == BALE_OK && old > 1 ? old : rc;	/* its error */
	new = upd_news_next(nw, &s);
	while (rc == BALE_OK && new >= 0 && (old == 1 || new == 1)) {
		if (old == 1 && (new != 1 ||
		    bale_walk_path_cmp(path, s.path) < 0)) {
			bale_manifest_put(out, e.key, e.label, e.size,
			    e.mtime_ns, path);
			old = upd_next_kept(&in, &head, &u->diff, &line, &e,
			    &path, &p->err);
			rc = old > 1 ? old : BALE_OK;
		} else {
			bale_manifest_put(out, s.key, s.label, s.file.size,
			    s.file.mtime_ns, s.path);
			new = upd_news_next(nw, &s);
		}
	}
	bale_manifest_close(&in);
	bale_manifest_release(&head);
	if (rc == BALE_OK && new < 0)
		rc = bale_errbuf_set(&p->err, BALE_EIO, "cannot read back the "
		    "files packed: %s", strerror(errno));
	return rc;
}

/* Manifest lines sorted past memory: a path, NUL, then the varints of
 * the key, label, size and modification time. */
static int upd_cmp_lines(const void *a, size_t na, const void *b, size_t nb)
{
	(void)na;
	(void)nb;
	return bale_walk_path_cmp(a, b);
}

static int upd_sort_add(struct bale_xsort *x, struct bale_buf *rec,
    uint64_t key, int64_t label, uint64_t size, int64_t mtime_ns,
    const char *path)
{
	struct bale_manifest_entry e = { key, label, size, mtime_ns };

	bale_buf_reset(rec);
	bale_buf_add(rec, path, strlen(path) + 1);
	bale_manifest_entry_put(rec, &e);
	if (rec->failed)
		x->err = ENOMEM;
	return rec->failed ? -1 : bale_xsort_add(x, rec->data, rec->len);
}

/* The old manifest's samples that stay, as it is read again. */
struct upd_kept_ctx {
	const struct pipe_update *u;
	struct bale_xsort *x;
	struct bale_buf *rec;
};

/* bale_manifest_each callback: a sample that stays to the sort. */
static int upd_sort_sample(void *ctx, uint64_t line,
    const struct bale_manifest_entry *e, const char *path)
{
	struct upd_kept_ctx *c = ctx;

	if (!bale_bits_get(&c->u->diff.kept, line))
		return BALE_OK;
	return upd_sort_add(c->x, c->rec, e->key, e->label, e->size,
	    e->mtime_ns, path) ? BALE_EIO : BALE_OK;
}

static int upd_sort_kept(struct bale_pipeline *p, struct pipe_update *u,
    struct bale_xsort *x, struct bale_buf *rec)
{
	struct upd_kept_ctx c = { u, x, rec };
	int rc = bale_manifest_each(u->manifest, upd_sort_sample, &c,
	    &p->err);

	return rc == BALE_EIO && x->err ? -1 : rc;
}

/* The samples that stayed and the new ones, sorted into path order
 * past memory: the walk was not in path order, or the old manifest
 * was not. @return BALE_OK, an error set in p->err, or -1 with errno */
static int upd_sorted(struct bale_pipeline *p, struct upd_news *nw,
    struct bale_manifest_out *out)
{
	struct pipe_update *u = nw->u;
	struct bale_buf rec = BALE_BUF_INIT;
	struct bale_xsort x;
	struct bale_manifest_entry e;
	struct upd_new s;
	const unsigned char *q;
	const void *r;
	size_t n;
	int got = 0, rc = BALE_OK;

	if (bale_xsort_init(&x, u->diff.packs.dir, upd_cmp_lines, 0) != 0)
		x.err = ENOMEM;
	else if (u->incremental)
		rc = upd_sort_kept(p, u, &x, &rec);
	while (rc == BALE_OK && !x.err && (got = upd_news_next(nw, &s)) == 1)
		upd_sort_add(&x, &rec, s.key, s.label, s.file.size,
		    s.file.mtime_ns, s.path);
	if (got < 0 && !x.err)
		x.err = errno;
	if (rc == BALE_OK && !x.err && bale_xsort_sort(&x) == 0)
		while ((got = bale_xsort_next(&x, &r, &n)) == 1) {
			q = (const unsigned char *)r + strlen(r) + 1;
			bale_manifest_entry_get(&q, &e);
			bale_manifest_put(out, e.key, e.label, e.size,
			    e.mtime_ns, r);
		}
	if (rc == BALE_OK && x.err) {
		errno = x.err;
		rc = -1;
	}
	bale_xsort_release(&x);
	bale_buf_release(&rec);
	return rc;
}

/* Write the manifest, a line at a time where it can. */
static int upd_write(struct bale_pipeline *p, struct upd_news *nw,
    struct bale_manifest *m)
{
	struct pipe_update *u = nw->u;
	struct bale_manifest_out out;
	int rc;

	if (bale_manifest_begin(&out, m, u->manifest) != 0)
		return -1;
	rc = u->diff.sorted ? upd_merge(p, nw, &out) : upd_sorted(p, nw,
	    &out);
	if (rc != BALE_OK) {
		bale_manifest_abandon(&out);
		return rc;
	}
	return bale_manifest_end(&out) != 0 ? -1 : BALE_OK;
}

int bale_pipe_update_manifest(struct bale_pipeline *p, struct pipe_run *run,
    struct pipe_update *u)
{
	struct bale_manifest m;
	struct upd_news nw;
	int rc;

	memset(&m, 0, sizeof(m));
	if (upd_news_init(&nw, run, u) != 0 || upd_head(p, run, u, &m) != 0)
		rc = bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	else
		rc = upd_write(p, &nw, &m);
	if (rc < 0)	/* errno says why */
		rc = bale_errbuf_set(&p->err, BALE_EIO, "cannot write '%s': "
		    "%s", u->manifest, strerror(errno));
	free(m.skip);
	bale_buf_release(&m.arena);
	upd_news_release(&nw);
	return rc;
}
