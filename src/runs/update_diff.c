/* update_diff.c - the manifest against the walk (update_diff.h). */
#include "update_diff.h"

#include "path_index.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The manifest's sample paths and skipped paths, for the index. */
static const char *diff_sample_path(const void *m, size_t i,
    struct bale_buf *scratch)
{
	(void)scratch;	/* the manifest keeps its paths whole */
	return bale_manifest_path_of(m, i);
}

static const char *diff_skip_path(const void *m, size_t i,
    struct bale_buf *scratch)
{
	(void)scratch;
	return bale_manifest_skip_path(m, i);
}

/* A file skipped before and unchanged since (same size, same status
 * change time) is not tried again: the same reason would skip it. */
static int diff_still_skipped(struct bale_update_diff *d,
    const struct bale_manifest *m, struct bale_path_index *xs,
    const char *path, size_t i)
{
	long k = bale_path_index_find(xs, path);

	if (k < 0 || m->skip[k].size != d->size[i] ||
	    m->skip[k].ctime_ns != d->ctime_ns[i])
		return 0;
	d->still_walk[d->nstill] = i;
	d->still_skip[d->nstill++] = (size_t)k;
	return 1;
}

/* Each file's size and modification time, as reading it would find it
 * (links followed); a file that cannot be stat'ed gets 0s and is packed,
 * where reading it says why it fails. */
static int diff_stat(struct bale_update_diff *d, const struct bale_walk *w,
    int rootfd, struct bale_buf *scratch)
{
	size_t i, n = bale_walk_count(w);
	const char *path;
	struct stat sb;

	for (i = 0; i < n; i++) {
		path = bale_walk_path(w, i, scratch);
		if (!path)
			return -1;
		if (fstatat(rootfd, path, &sb, 0) != 0)
			continue;
		d->size[i] = (uint64_t)sb.st_size;
		d->mtime_ns[i] = (int64_t)sb.st_mtim.tv_sec * 1000000000 +
		    sb.st_mtim.tv_nsec;
		d->ctime_ns[i] = (int64_t)sb.st_ctim.tv_sec * 1000000000 +
		    sb.st_ctim.tv_nsec;
	}
	return 0;
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

static int64_t diff_label(const struct bale_update_diff *d,
    const struct bale_walk *w, size_t i)
{
	return d->label_map[bale_walk_label(w, i)];
}

/* Each walked file against the manifest; @leave marks the manifest
 * samples that do not stay. */
static int diff_walk(struct bale_update_diff *d, const struct bale_walk *w,
    const struct bale_manifest *m, struct bale_path_index x[2],
    unsigned char *leave, struct bale_buf *scratch)
{
	size_t i, n = bale_walk_count(w);
	const char *path;
	long j;

	for (i = 0; i < n; i++) {
		path = bale_walk_path(w, i, scratch);
		if (!path)
			return -1;
		j = m ? bale_path_index_find(&x[0], path) : -1;
		if (j < 0 && m && diff_still_skipped(d, m, &x[1], path, i))
			continue;
		if (j >= 0)
			leave[j] = 0;
		if (j >= 0 && m->e[j].size == d->size[i] &&
		    m->e[j].mtime_ns == d->mtime_ns[i] &&
		    m->e[j].label == diff_label(d, w, i))
			continue;
		if (j >= 0) {
			leave[j] = 1;
			d->replaced++;
		} else {
			d->added++;
		}
		d->pack_replaces[d->npack] = j >= 0;
		d->pack[d->npack++] = i;
	}
	return 0;
}

static void diff_leavers(struct bale_update_diff *d,
    const struct bale_manifest *m, const unsigned char *leave)
{
	size_t j;

	for (j = 0; m && j < m->n; j++) {
		if (leave[j] == 2)
			d->gone[d->ngone++] = j;
		if (leave[j])
			d->removed[d->nremoved++] = m->e[j].key;
		else
			d->kept[d->nkept++] = j;
	}
}

int bale_update_diff(struct bale_update_diff *d, const struct bale_walk *walk,
    int rootfd, const struct bale_manifest *m)
{
	size_t n = bale_walk_count(walk), nm = m ? m->n : 0;
	struct bale_buf scratch = BALE_BUF_INIT;
	struct bale_path_index x[2] = { BALE_PATH_INDEX_INIT,
	    BALE_PATH_INDEX_INIT };
	unsigned char *leave = malloc(nm + 1);
	int rc = -1;

	memset(d, 0, sizeof(*d));
	d->size = calloc(n + 1, sizeof(*d->size));
	d->mtime_ns = calloc(n + 1, sizeof(*d->mtime_ns));
	d->ctime_ns = calloc(n + 1, sizeof(*d->ctime_ns));
	d->pack = malloc((n + 1) * sizeof(*d->pack));
	d->pack_replaces = malloc(n + 1);
	d->gone = malloc((nm + 1) * sizeof(*d->gone));
	d->kept = malloc((nm + 1) * sizeof(*d->kept));
	d->removed = malloc((nm + 1) * sizeof(*d->removed));
	d->still_walk = malloc((n + 1) * sizeof(*d->still_walk));
	d->still_skip = malloc((n + 1) * sizeof(*d->still_skip));
	if (leave && d->size && d->mtime_ns && d->ctime_ns && d->pack && d->kept &&
	    d->removed && d->pack_replaces && d->gone && d->still_walk &&
	    d->still_skip && diff_classes(d, walk, m) == 0 &&
	    (!m || (bale_path_index_build(&x[0], m->n, diff_sample_path,
	    m) == 0 && bale_path_index_build(&x[1], m->nskip,
	    diff_skip_path, m) == 0))) {
		memset(leave, 2, nm + 1);	/* 2: its file is gone */
		rc = diff_stat(d, walk, rootfd, &scratch);
		if (rc == 0)
			rc = diff_walk(d, walk, m, x, leave, &scratch);
		if (rc == 0)
			diff_leavers(d, m, leave);
	}
	bale_buf_release(&scratch);
	bale_path_index_release(&x[0]);
	bale_path_index_release(&x[1]);
	free(leave);
	return rc;
}

void bale_update_diff_release(struct bale_update_diff *d)
{
	free(d->size);
	free(d->mtime_ns);
	free(d->ctime_ns);
	free(d->label_map);
	free(d->classes);
	free(d->pack);
	free(d->pack_replaces);
	free(d->gone);
	free(d->kept);
	free(d->removed);
	free(d->still_walk);
	free(d->still_skip);
	memset(d, 0, sizeof(*d));
}
