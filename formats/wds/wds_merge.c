/* wds_merge.c - the parts of a run as one WebDataset: every part's
 * shards (and .idx files) are linked into the output folder under the
 * numbers they take in the whole run, part 0's first, with no copy of
 * their data (a hard link, else a symbolic one to the part's file), and
 * one shard list over them is written last. A DALI .idx file describes
 * offsets inside its shard, so it stays valid as it is.
 *
 * An object store has no links, and a list names shards beside it: the
 * shards are copied there, by the store itself when the parts are in
 * it too (S3's CopyObject: no byte through bale), else uploaded or
 * downloaded. */
#include "wds.h"
#include "wds_list.h"

#include "bale_store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wds_merging {
	const struct bale_merge *m;
	struct bale_buf entries;	/* the list's shard entries */
	struct bale_buf classes;	/* part 0's class list, as JSON */
	uint64_t samples;
	unsigned shards;
	struct bale_errbuf *err;
};

/* @dst names @src: a hard link, else (another file system) a symbolic
 * link to @src's absolute path; with --copy, a copy. Either in an
 * object store: a copy. */
static int wds_link(const char *src, const char *dst, int copy,
    struct bale_errbuf *err)
{
	char abs[PATH_MAX];

	if (!bale_store_is_local(src) || !bale_store_is_local(dst))
		return bale_store_copy(src, dst, err);
	if (unlink(dst) != 0 && errno != ENOENT)
		return bale_errbuf_set(err, BALE_EIO, "cannot replace "
		    "'%s': %s", dst, strerror(errno));
	if (copy && bale_file_copy(src, dst) == 0)
		return BALE_OK;
	if (copy)
		return bale_errbuf_set(err, BALE_EIO, "cannot copy '%s' "
		    "to '%s': %s", src, dst, strerror(errno));
	if (link(src, dst) == 0)
		return BALE_OK;
	if ((errno == EXDEV || errno == EPERM) && realpath(src, abs) &&
	    symlink(abs, dst) == 0)
		return BALE_OK;
	return bale_errbuf_set(err, BALE_EIO, "cannot link '%s' to "
	    "'%s': %s", src, dst, strerror(errno));
}

/* Link one shard of @part in, and its .idx and .bidx when it has them. */
static int wds_merge_beside(struct wds_merging *g, const char *src,
    const char *dst, const char *ext)
{
	char *from = bale_strfmt("%.*s.%s", (int)strlen(src) - 4, src, ext);
	char *to = bale_strfmt("%.*s.%s", (int)strlen(dst) - 4, dst, ext);
	struct bale_store_stat st;
	struct bale_errbuf none;
	int rc = BALE_OK;

	if (!from || !to)
		rc = bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
	else if (bale_store_stat(from, &st, &none) == BALE_OK)
		rc = wds_link(from, to, g->m->copy, g->err);
	else	/* not another's */
		rc = bale_store_remove(to, g->err);
	free(from);
	free(to);
	return rc;
}

static int wds_merge_shard(struct wds_merging *g, const char *part,
    const char *url, uint64_t nsamples, uint64_t filesize)
{
	const struct bale_merge *m = g->m;
	size_t n = strlen(url);
	char *src = bale_strfmt("%s/%s", part, url);
	char *dst = bale_strfmt("%s/%s-%06u.tar", m->out, m->name, g->shards);
	int rc;

	if (strchr(url, '/') || n < 5 || strcmp(url + n - 4, ".tar") != 0)
		rc = bale_errbuf_set(g->err, BALE_EINVAL, "'%s' lists "
		    "'%s', not a NAME.tar beside it", part, url);
	else if (!src || !dst)
		rc = bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
	else
		rc = wds_link(src, dst, m->copy, g->err);
	if (rc == BALE_OK)
		rc = wds_merge_beside(g, src, dst, "idx");
	if (rc == BALE_OK)
		rc = wds_merge_beside(g, src, dst, "bidx");
	if (rc == BALE_OK) {
		bale_wds_list_add(&g->entries, dst + strlen(m->out) + 1,
		    nsamples, filesize);
		g->shards++;
		g->samples += nsamples;
	}
	free(src);
	free(dst);
	return rc;
}

/* The shards part @i's list names, in its order. */
static int wds_merge_part(struct wds_merging *g, size_t i)
{
	const char *part = g->m->parts[i];
	char *path = bale_strfmt("%s/%s" WDS_LIST_SUFFIX, part, g->m->name);
	struct wds_list l;
	size_t k;
	int rc = path ? bale_wds_list_read(path, &l, g->err) :
	    bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");

	free(path);
	if (rc != BALE_OK)
		return rc;
	if (i == 0 && l.classes)
		bale_buf_add(&g->classes, l.classes, l.classes_len);
	for (k = 0; rc == BALE_OK && k < l.n; k++)
		rc = wds_merge_shard(g, part, l.v[k].url, l.v[k].nsamples,
		    l.v[k].filesize);
	bale_wds_list_release(&l);
	return rc;
}

static int wds_merge_list(struct wds_merging *g, const char *path)
{
	struct bale_buf b = BALE_BUF_INIT;
	int rc = BALE_OK;

	bale_wds_list_render(&b, g->m->name, &g->entries, g->samples,
	    g->classes.data, g->classes.len);
	if (b.failed || g->entries.failed || g->classes.failed)
		rc = bale_errbuf_set(g->err, BALE_ENOMEM, "no memory");
	else
		rc = bale_store_put(path, b.data, b.len, g->err);
	bale_buf_release(&b);
	return rc;
}

int bale_wds_merge(const struct bale_merge *m, struct bale_errbuf *err)
{
	struct wds_merging g = { m, BALE_BUF_INIT, BALE_BUF_INIT, 0, 0, err };
	char *list = bale_strfmt("%s/%s" WDS_LIST_SUFFIX, m->out, m->name);
	struct bale_store_stat st;
	struct bale_errbuf none;
	size_t i;
	int rc = list ? BALE_OK : bale_errbuf_set(err, BALE_ENOMEM,
	    "no memory");

	/* the old list goes first: the output is not whole until the
	 * new one is there */
	if (rc == BALE_OK && bale_store_stat(list, &st, &none) == BALE_OK &&
	    !m->replace)
		rc = bale_errbuf_exists(err, "wds", list);
	else if (rc == BALE_OK)
		rc = bale_store_remove(list, err);
	for (i = 0; rc == BALE_OK && i < m->nparts; i++)
		rc = wds_merge_part(&g, i);
	if (rc == BALE_OK)
		rc = wds_merge_list(&g, list);	/* last: now it is complete */
	bale_buf_release(&g.entries);
	bale_buf_release(&g.classes);
	free(list);
	return rc;
}
