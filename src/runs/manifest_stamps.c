/* manifest_stamps.c - the file stamps a manifest holds: for a source
 * of files stamped as a whole (Parquet), every sample of a file has its
 * file's stamp as its modification time, so the distinct ones name the
 * files the output was packed from (an update leaves those unchanged
 * unread). Rows of a file share a stamp but need not come together (the
 * manifest is in path order): repeats are dropped as they come, and
 * the stamps sorted and made unique whenever they fill their room. */
#include "manifest.h"

#include "bale.h"

#include <stdlib.h>

struct stamps {
	uint64_t *v;
	size_t n, cap;
	size_t compact_at;	/* sort and unique when n reaches it */
};

/* Sort @s and drop its repeats; the next compaction waits for as many
 * again. */
static void stamps_compact(struct stamps *s)
{
	size_t i, kept = 0;

	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), bale_u64_cmp);
	for (i = 0; i < s->n; i++)
		if (kept == 0 || s->v[kept - 1] != s->v[i])
			s->v[kept++] = s->v[i];
	s->n = kept;
	s->compact_at = 2 * kept + 1024;
}

/* bale_manifest_each callback. */
static int stamps_take(void *ctx, uint64_t line,
    const struct bale_manifest_entry *e, const char *path)
{
	struct stamps *s = ctx;
	uint64_t stamp = (uint64_t)e->mtime_ns;

	(void)line;
	(void)path;
	if (s->n && s->v[s->n - 1] == stamp)
		return BALE_OK;
	if (s->n >= s->compact_at)
		stamps_compact(s);
	if (bale_grow_array((void **)&s->v, &s->cap, s->n + 1,
	    sizeof(*s->v)) != 0)
		return BALE_ENOMEM;
	s->v[s->n++] = stamp;
	return BALE_OK;
}

int bale_manifest_stamps(const char *path, uint64_t **stamps, size_t *n,
    struct bale_errbuf *err)
{
	struct stamps s = { NULL, 0, 0, 1024 };
	int rc = bale_manifest_each(path, stamps_take, &s, err);

	if (rc == BALE_ENOMEM)
		rc = bale_errbuf_set(err, rc, "no memory");
	if (rc != BALE_OK) {
		free(s.v);
		return rc;
	}
	stamps_compact(&s);
	*stamps = s.v;
	*n = s.n;
	return BALE_OK;
}
