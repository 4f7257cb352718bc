/* source_bucket.c - an ImageFolder tree of small objects in an object
 * store as the source (s3://bucket/train/, walk_bucket.c), or the objects
 * a list file names below a prefix: each sample one GET of its object,
 * asked for ahead in the run's order so many are in flight (the store's
 * prefetch thread) while the workers encode. */
#include "kind.h"

#include "bale_store.h"
#include "input.h"
#include "relpath.h"

#include <stdlib.h>
#include <string.h>

static int bucket_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err)
{
	struct bale_store_stat st = { 0, 0, "" };
	int rc;

	(void)self;
	if (s->npaths != 1 || bale_store_is_local(s->paths[0]))
		return 0;
	rc = bale_store_stat(s->paths[0], &st, err);
	return rc == BALE_OK ? st.is_dir : rc;
}

static int bucket_scan(const struct bale_source *s, struct bale_walk *w)
{
	return s->list ? bale_walk_bucket_listed(w, s->paths[0], s->kind,
	    s->list) : bale_walk_bucket(w, s->paths[0], s->kind);
}

/* The object of sample @rel of the tree at @root. NULL without memory */
static char *bucket_name(const char *root, const char *rel)
{
	return bale_strfmt("%.*s/%s", bale_path_trim_len(root), root, rel);
}

static int bucket_read(struct bale_input *in, unsigned char *buf)
{
	char *name = bucket_name(in->root, in->rel);
	struct bale_sfile *f = NULL;
	int rc;

	if (!name)
		return bale_input_skip(in, "no memory", 0);
	rc = bale_sfile_open_sized(&f, name, in->size, &in->err);
	if (rc == BALE_OK)
		rc = bale_sfile_pread(f, buf, in->size, 0, &in->err);
	bale_sfile_close(f);
	free(name);
	/* the store said why (its object, its words) */
	return rc == BALE_OK ? BALE_OK : bale_errbuf_set(&in->err,
	    BALE_EINPUT, "%s", in->err.msg);
}

static int bucket_ahead(const char *root, const char *rel,
    const struct bale_walk_member *m)
{
	char *name = bucket_name(root, rel);
	struct bale_errbuf err;
	struct bale_sfile *f = NULL;
	int rc = 0;

	if (name && m->size &&
	    bale_sfile_open_sized(&f, name, m->size, &err) == BALE_OK)
		rc = bale_sfile_prefetch(f, 0, (size_t)m->size, 1);
	bale_sfile_close(f);
	free(name);
	return rc;
}

const struct bale_source_kind bale_source_bucket = {
	.name = "bucket",
	.what = "a folder of objects in an object store",
	.caps = BALE_SOURCE_RANDOM | BALE_SOURCE_STAMPED |
	    BALE_SOURCE_LISTABLE,
	.probe = bucket_probe,
	.scan = bucket_scan,
	.read = bucket_read,
	.ahead = bucket_ahead,
};
