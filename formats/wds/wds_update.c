/* wds_update.c - bale pack --update on a WebDataset output.
 *
 * A shard is never changed in place. One that holds a sample that leaves
 * is written anew under a new number: its other samples' tar bytes are
 * copied as they are (in the kernel: copy_file_range), its .idx offsets
 * moved with them. The delta's shards are moved in under new numbers.
 * Then one new shard list is written, which is the update: the shards
 * that stay, each rewritten one in its old one's place, the delta's at
 * the end. The shards of the version before stay on disk until the next
 * update (a reader may be mid-epoch in them); older ones, which neither
 * list names, are removed then. A number is never reused while a file
 * holds it, and a given sequence of updates gives the same files.
 *
 * Every file goes through the store, so an output in an object store is
 * updated the same way: a rewritten shard is read in ranges and
 * uploaded as it is made, the delta (staged on local disk by the
 * pipeline) is uploaded under its new numbers, and the list object is
 * replaced last. On local disk the kernel copies, and the delta's files
 * are renamed in.
 */
#include "wds.h"
#include "wds_list.h"

#include "bale_store.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wds_updating {
	const struct bale_update *u;
	struct bale_errbuf *err;
	struct wds_list old;
	char *list;		/* OUT/NAME-shards.json */
	unsigned next_no;	/* the next free shard number */
	struct wds_list now;	/* the new list's shards */
	struct bale_buf made;	/* files made, NUL-separated: removed if
				 * the update fails */
};

static int wds_upd_nomem(struct wds_updating *g)
{
	return bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
}

/* Shard number of @file, a NAME-NNNNNN.tar, .idx or .bidx, or -1. */
static long wds_upd_number(const char *file, const char *name)
{
	size_t n = strlen(name);
	char *end;
	long no;

	if (strncmp(file, name, n) != 0 || file[n] != '-' ||
	    file[n + 1] < '0' || file[n + 1] > '9')
		return -1;
	no = strtol(file + n + 1, &end, 10);
	if (end - (file + n + 1) < 6 || (strcmp(end, ".tar") != 0 &&
	    strcmp(end, ".idx") != 0 && strcmp(end, ".bidx") != 0))
		return -1;
	return no;
}

/* 1 if @list names @file's shard (the same name up to the extension). */
static int wds_upd_listed(const struct wds_list *l, const char *file)
{
	size_t i, stem = (size_t)(strrchr(file, '.') - file);

	for (i = 0; i < l->n; i++)
		if (strncmp(l->v[i].url, file, stem) == 0 &&
		    strcmp(l->v[i].url + stem, ".tar") == 0)
			return 1;
	return 0;
}

/* A scan of the output's shard files: @fn(g, file) for each. */
struct wds_upd_scanning {
	struct wds_updating *g;
	void (*fn)(struct wds_updating *, const char *);
};

static int wds_upd_scan_one(void *arg, const char *entry, int is_dir)
{
	struct wds_upd_scanning *sc = arg;

	if (!is_dir && bale_wds_shard_file(entry, sc->g->u->name))
		sc->fn(sc->g, entry);
	return 0;
}

/* Every shard file of the output (a replacing run's in a store too). */
static int wds_upd_scan(struct wds_updating *g,
    void (*fn)(struct wds_updating *, const char *))
{
	struct wds_upd_scanning sc = { g, fn };

	return bale_store_list(g->u->out, wds_upd_scan_one, &sc, g->err);
}

static void wds_upd_note_max(struct wds_updating *g, const char *file)
{
	long no = wds_upd_number(file, g->u->name);

	if (no >= 0 && (unsigned long)no >= g->next_no)
		g->next_no = (unsigned)no + 1;
}

/* Files neither the old list nor the new names, after publishing: an
 * older version's, which no reader can still be in. */
static void wds_upd_drop_old(struct wds_updating *g, const char *file)
{
	struct bale_errbuf err;
	char *path;

	if (wds_upd_listed(&g->old, file) || wds_upd_listed(&g->now, file))
		return;
	path = bale_strfmt("%s/%s", g->u->out, file);
	if (path)
		(void)bale_store_remove(path, &err);
	free(path);
}

/* Shard @url (beside the list) into the new list. */
static int wds_upd_list(struct wds_updating *g, const char *url,
    uint64_t nsamples, uint64_t filesize)
{
	return bale_wds_list_push(&g->now, url, nsamples, filesize) == 0 ?
	    BALE_OK : wds_upd_nomem(g);
}

static char *wds_upd_path(const struct wds_updating *g, unsigned no,
    const char *ext)
{
	return bale_strfmt("%s/%s-%06u.%s", g->u->out, g->u->name, no, ext);
}

static void wds_upd_made(struct wds_updating *g, const char *path)
{
	bale_buf_add(&g->made, path, strlen(path) + 1);
}

/* How many of samples [@pos, @pos + @n) leave. */
static uint64_t wds_upd_leaving(const struct bale_update *u, uint64_t pos,
    uint64_t n)
{
	uint64_t i, k = 0;

	for (i = pos; i < pos + n; i++)
		k += (uint64_t)bale_update_removes(u,
		    bale_update_key_before(u, i));
	return k;
}

/* A sample's .idx line: its bytes in the tar are [*lo, *hi), headers
 * and padding included; its first member's name starts with @key. */
static int wds_upd_span(const char *line, const char *key, uint64_t *lo,
    uint64_t *hi)
{
	char ext[32], name[256];
	uint64_t off, size;
	int used;

	*lo = UINT64_MAX;
	*hi = 0;
	while (sscanf(line, "%31s %" SCNu64 " %" SCNu64 " %255s%n", ext, &off,
	    &size, name, &used) == 4) {
		if (*lo == UINT64_MAX && strncmp(name, key, strlen(key)) != 0)
			return -1;
		if (off < WDS_BLOCK)
			return -1;
		*lo = off - WDS_BLOCK < *lo ? off - WDS_BLOCK : *lo;
		if (off + (size + WDS_BLOCK - 1) / WDS_BLOCK * WDS_BLOCK > *hi)
			*hi = off + (size + WDS_BLOCK - 1) / WDS_BLOCK *
			    WDS_BLOCK;
		line += used;
	}
	return *lo < *hi ? 0 : -1;
}

/* The line with every offset moved by @to - @from. */
static void wds_upd_shift(struct bale_buf *idx, const char *line,
    uint64_t from, uint64_t to)
{
	char ext[32], name[256];
	uint64_t off, size;
	int used;

	while (sscanf(line, "%31s %" SCNu64 " %" SCNu64 " %255s%n", ext, &off,
	    &size, name, &used) == 4) {
		bale_wds_idx_add(idx, ext, off - from + to, size, name);
		line += used;
	}
	bale_buf_puts(idx, "\n");
}

/* Where a rewrite reads and writes. */
struct wds_rewrite {
	struct bale_sfile *in;
	struct bale_swrite *out;
	uint64_t at;		/* bytes written to @out */
	uint64_t kept;
	struct bale_buf idx;	/* the new .idx's lines */
	struct bale_index old;	/* the old shard's .bidx, when sound */
	struct bale_index_build bix;	/* the new one's, from it */
};

/* Old sample @i, moved from [@lo, ...) to @at, into the new .bidx: its
 * label and key as the old one had them (a sample whose old entry does
 * not fit its .idx span leaves the new shard without one). */
static void wds_upd_index(struct wds_rewrite *w, uint64_t i, uint64_t lo,
    uint64_t hi, const char *key)
{
	const struct bale_index_loc *old = &w->old.locs[i];
	const char *had = bale_index_key(&w->old, i);
	struct bale_index_loc loc = *old;

	if (!had || strcmp(had, key) != 0 || old->off < lo ||
	    old->off + old->size + old->tail > hi) {
		w->bix.unfit = 1;
		return;
	}
	loc.off = old->off - lo + w->at;
	bale_index_add(&w->bix, w->old.labels[i], &loc, key);
}

/* Copy the samples of @text (the old .idx, after its head) that stay.
 * @return BALE_OK, 1 when the .idx does not fit the manifest, or the
 * copy's error (in g->err) */
static int wds_upd_copy(struct wds_updating *g, struct wds_rewrite *w,
    char *text, uint64_t pos, uint64_t n)
{
	char key[32];
	uint64_t i, lo, hi, kb;
	char *line = text, *nl;
	int rc;

	for (i = 0; i < n; i++, line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			return 1;
		*nl = '\0';
		kb = bale_update_key_before(g->u, pos + i);
		snprintf(key, sizeof(key), "%010" PRIu64, kb);
		if (wds_upd_span(line, key, &lo, &hi) != 0)
			return 1;
		if (bale_update_removes(g->u, kb))
			continue;
		rc = bale_store_copy_range(w->in, lo, hi - lo, w->out,
		    g->err);
		if (rc != BALE_OK)
			return rc;
		if (w->old.map)
			wds_upd_index(w, i, lo, hi, key);
		wds_upd_shift(&w->idx, line, lo, w->at);
		w->at += hi - lo;
		w->kept++;
	}
	return BALE_OK;
}

/* The shard's .idx, whole, into *@text. */
static int wds_upd_read_idx(struct wds_updating *g, const char *url,
    char **text)
{
	char *path = bale_strfmt("%s/%.*s.idx", g->u->out,
	    (int)strlen(url) - 4, url);
	size_t len;
	int rc;

	*text = NULL;
	if (!path)
		return wds_upd_nomem(g);
	rc = bale_store_read_all(path, text, &len, g->err);
	free(path);
	return rc;
}

/* The rewritten shard's .bidx, made from the old one's entries; none
 * when the old shard had none (the readers then take the .idx files). */
static int wds_upd_finish_bidx(struct wds_updating *g, struct wds_rewrite *w,
    const char *tar)
{
	char *path = bale_strfmt("%.*s.bidx", (int)strlen(tar) - 4, tar);
	struct bale_buf b = BALE_BUF_INIT;
	int rc = BALE_OK;

	if (!path)
		return wds_upd_nomem(g);
	if (w->old.map && !w->bix.unfit) {
		wds_upd_made(g, path);
		rc = bale_index_render(&w->bix, w->at + WDS_END_BYTES,
		    &b) == 0 ? bale_store_put(path, b.data, b.len, g->err) :
		    wds_upd_nomem(g);
	}
	bale_buf_release(&b);
	free(path);
	return rc;
}

/* The rewritten shard's files: the tar (@w->out, made whole here),
 * then its .idx and .bidx. */
static int wds_upd_finish(struct wds_updating *g, struct wds_rewrite *w,
    const char *tar, const char *idx)
{
	static const char zeros[WDS_END_BYTES];
	struct bale_buf head = BALE_BUF_INIT;
	int rc = bale_swrite_write(w->out, zeros, sizeof(zeros), g->err);

	if (rc == BALE_OK)
		rc = bale_swrite_finish(w->out, g->err);
	else
		bale_swrite_abort(w->out);
	w->out = NULL;
	if (rc != BALE_OK)
		return rc;
	wds_upd_made(g, tar);
	bale_buf_printf(&head, "v1.2 %" PRIu64 "\n", w->kept);
	bale_buf_add(&head, w->idx.data ? w->idx.data : "", w->idx.len);
	wds_upd_made(g, idx);
	rc = head.failed || w->idx.failed ? wds_upd_nomem(g) :
	    bale_store_put(idx, head.data, head.len, g->err);
	bale_buf_release(&head);
	return rc == BALE_OK ? wds_upd_finish_bidx(g, w, tar) : rc;
}

/* The old shard's .bidx, if it has a sound one. */
static void wds_upd_open_old_index(struct wds_updating *g,
    const struct wds_shard *s, struct wds_rewrite *w)
{
	char *path = bale_strfmt("%s/%.*s.bidx", g->u->out,
	    (int)strlen(s->url) - 4, s->url);

	if (path)	/* on failure it is left closed, all zero */
		bale_store_index_open(&w->old, path, s->nsamples,
		    s->filesize);
	free(path);
}

/* Copy shard @src's samples that stay (they start at position @pos)
 * into the new shard @tar, and make its .idx @idx. */
static int wds_upd_copy_shard(struct wds_updating *g,
    const struct wds_shard *s, uint64_t pos, const char *src,
    const char *tar, const char *idx, struct wds_rewrite *w)
{
	char *text, *body;
	int rc = wds_upd_read_idx(g, s->url, &text);

	if (rc != BALE_OK)
		return rc;
	body = strchr(text, '\n');
	wds_upd_open_old_index(g, s, w);
	rc = bale_sfile_open_sized(&w->in, src, s->filesize, g->err);
	if (rc == BALE_OK)
		rc = bale_swrite_open(&w->out, tar, g->err);
	if (rc == BALE_OK)
		rc = body ? wds_upd_copy(g, w, body + 1, pos, s->nsamples) :
		    1;
	free(text);
	if (rc == 1)
		return bale_errbuf_set(g->err, BALE_EINVAL, "'%s' and its "
		    ".idx do not hold what the manifest lists", src);
	return rc == BALE_OK ? wds_upd_finish(g, w, tar, idx) : rc;
}

/* Write shard @s (samples [@pos, ...)) anew without its leavers. */
static int wds_upd_rewrite(struct wds_updating *g, const struct wds_shard *s,
    uint64_t pos)
{
	char *src = bale_strfmt("%s/%s", g->u->out, s->url);
	char *tar = wds_upd_path(g, g->next_no, "tar");
	char *idx = wds_upd_path(g, g->next_no, "idx");
	struct wds_rewrite w = { .in = NULL, .out = NULL };
	int rc = src && tar && idx ? wds_upd_copy_shard(g, s, pos, src, tar,
	    idx, &w) : wds_upd_nomem(g);

	if (rc == BALE_OK)
		rc = wds_upd_list(g, tar + strlen(g->u->out) + 1, w.kept,
		    w.at + WDS_END_BYTES);
	if (rc == BALE_OK)
		g->next_no++;
	bale_swrite_abort(w.out);
	bale_sfile_close(w.in);
	bale_buf_release(&w.idx);
	bale_index_close(&w.old);
	bale_index_build_release(&w.bix);
	free(src);
	free(tar);
	free(idx);
	return rc;
}

/* The old list's shards, kept, rewritten or dropped. */
static int wds_upd_old_shards(struct wds_updating *g)
{
	const struct bale_update *u = g->u;
	const struct wds_shard *s;
	uint64_t pos = 0, leaving;
	size_t i;
	int rc = BALE_OK;

	for (i = 0; i < g->old.n; i++)
		pos += g->old.v[i].nsamples;
	if (pos != u->count_before)
		return bale_errbuf_cut_short(g->err, "wds", g->list,
		    pos, u->count_before);
	for (i = 0, pos = 0; rc == BALE_OK && i < g->old.n; i++) {
		s = &g->old.v[i];
		leaving = wds_upd_leaving(u, pos, s->nsamples);
		if (leaving == 0)
			rc = wds_upd_list(g, s->url, s->nsamples, s->filesize);
		else if (leaving < s->nsamples)
			rc = wds_upd_rewrite(g, s, pos);
		pos += s->nsamples;
	}
	return rc;
}

/* Delta file @from (on local disk) in as @to: renamed on local disk,
 * uploaded into an object store. */
static int wds_upd_move_file(struct wds_updating *g, const char *from,
    const char *to)
{
	if (!bale_store_is_local(to))
		return bale_store_copy(from, to, g->err);
	if (rename(from, to) == 0)
		return BALE_OK;
	return bale_errbuf_set(g->err, BALE_EIO, "cannot move '%s' to '%s': "
	    "%s", from, to, strerror(errno));
}

/* Move @url (and its .idx and .bidx) from the delta in as shard
 * next_no. */
static int wds_upd_move(struct wds_updating *g, const struct wds_shard *s)
{
	const char *ext[] = { "tar", "idx", "bidx" };
	size_t n = strlen(s->url);
	char *from, *to;
	int k, rc = BALE_OK;

	for (k = 0; rc == BALE_OK && k < 3; k++) {
		from = bale_strfmt("%s/%.*s.%s", g->u->delta, (int)n - 4,
		    s->url, ext[k]);
		to = wds_upd_path(g, g->next_no, ext[k]);
		if (!from || !to)
			rc = wds_upd_nomem(g);
		else if (k == 2 && access(from, F_OK) != 0)
			;	/* no .bidx: readers take the .idx */
		else if ((rc = wds_upd_move_file(g, from, to)) == BALE_OK)
			wds_upd_made(g, to);
		if (rc == BALE_OK && k == 0)
			rc = wds_upd_list(g, to + strlen(g->u->out) + 1,
			    s->nsamples, s->filesize);
		free(from);
		free(to);
	}
	g->next_no++;
	return rc;
}

static int wds_upd_delta(struct wds_updating *g)
{
	char *path = bale_strfmt("%s/%s" WDS_LIST_SUFFIX, g->u->delta,
	    g->u->name);
	struct wds_list d;
	size_t i;
	int rc = path ? bale_wds_list_read(path, &d, g->err) : wds_upd_nomem(g);

	free(path);
	if (rc != BALE_OK)
		return rc;
	for (i = 0; rc == BALE_OK && i < d.n; i++)
		rc = strchr(d.v[i].url, '/') ? bale_errbuf_set(g->err,
		    BALE_EINVAL, "the delta names '%s'", d.v[i].url) :
		    wds_upd_move(g, &d.v[i]);
	bale_wds_list_release(&d);
	return rc;
}

/* The new list, written atomically: from now on it is the output. */
static int wds_upd_publish(struct wds_updating *g)
{
	struct bale_buf b = BALE_BUF_INIT, cls = BALE_BUF_INIT;
	struct bale_buf entries = BALE_BUF_INIT;
	uint64_t samples = 0;
	size_t i;
	int rc = BALE_OK;

	for (i = 0; i < g->now.n; i++) {
		bale_wds_list_add(&entries, g->now.v[i].url,
		    g->now.v[i].nsamples, g->now.v[i].filesize);
		samples += g->now.v[i].nsamples;
	}
	bale_json_str_array(&cls, g->u->classes, g->u->nclasses);
	bale_wds_list_render(&b, g->u->name, &entries, samples, cls.data,
	    cls.len);
	if (b.failed || cls.failed || entries.failed || g->made.failed)
		rc = wds_upd_nomem(g);
	else
		rc = bale_store_put(g->list, b.data, b.len, g->err);
	bale_buf_release(&b);
	bale_buf_release(&cls);
	bale_buf_release(&entries);
	return rc;
}

int bale_wds_update(const struct bale_update *u, struct bale_errbuf *err)
{
	struct wds_updating g;
	struct bale_errbuf gone;
	const char *p;
	int rc;

	memset(&g, 0, sizeof(g));
	g.u = u;
	g.err = err;
	g.list = bale_strfmt("%s/%s" WDS_LIST_SUFFIX, u->out, u->name);
	rc = g.list ? bale_wds_list_read(g.list, &g.old, err) :
	    wds_upd_nomem(&g);
	if (rc == BALE_OK)
		rc = wds_upd_scan(&g, wds_upd_note_max);
	if (rc == BALE_OK)
		rc = wds_upd_old_shards(&g);
	if (rc == BALE_OK && u->delta)
		rc = wds_upd_delta(&g);
	if (rc == BALE_OK)
		rc = wds_upd_publish(&g);
	if (rc == BALE_OK)	/* best effort: the update is done */
		wds_upd_scan(&g, wds_upd_drop_old);
	for (p = g.made.data; rc != BALE_OK && p && p < g.made.data +
	    g.made.len; p += strlen(p) + 1)
		(void)bale_store_remove(p, &gone);
	bale_wds_list_release(&g.old);
	bale_wds_list_release(&g.now);
	bale_buf_release(&g.made);
	free(g.list);
	return rc;
}
