/* merge.c - bale merge: check that the parts given are the whole of one
 * run, each once and complete (their NAME-part.json, pipe_part.c), then
 * have each format's backend join them (bale_backend.merge). */
#include "bale.h"
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_store.h"
#include "registry.h"
#include "relpath.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a part's marker says. */
struct merge_mark {
	char *dir;
	char *run;
	uint64_t part, parts, first, count, total;
	char *formats;
};

/* Read @k->dir's marker. */
static int merge_read_mark(struct merge_mark *k, const char *name,
    struct bale_errbuf *err)
{
	char *path = bale_strfmt("%s/%s-part.json", k->dir, name);
	struct bale_errbuf why;
	size_t len = 0;
	char *text = NULL;
	const char *end;
	int rc = BALE_OK;

	if (path && bale_store_read_all(path, &text, &len, &why) != BALE_OK)
		text = NULL;
	end = text ? text + len : NULL;
	if (!text)
		rc = bale_errbuf_set(err, BALE_EINVAL, "'%s' holds no complete "
		    "part: no %s-part.json (was it packed as a part of a run, "
		    "and did it finish?)", k->dir, name);
	else if (!(k->run = bale_jsonr_key_string(text, end, "run")) ||
	    !(k->formats = bale_jsonr_key_string(text, end, "formats")) ||
	    bale_jsonr_key_u64(text, end, "part", &k->part) ||
	    bale_jsonr_key_u64(text, end, "parts", &k->parts) ||
	    bale_jsonr_key_u64(text, end, "first", &k->first) ||
	    bale_jsonr_key_u64(text, end, "count", &k->count) ||
	    bale_jsonr_key_u64(text, end, "total", &k->total) ||
	    k->parts == 0 || k->part >= k->parts)
		rc = bale_errbuf_set(err, BALE_EINVAL, "'%s' is not a part "
		    "marker bale wrote", path);
	free(text);
	free(path);
	return rc;
}

/* Every part of one run, each once: @byp[i] is part i's mark. */
static int merge_check(struct merge_mark *m, size_t n,
    struct merge_mark **byp, struct bale_errbuf *err)
{
	uint64_t first = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(m[i].run, m[0].run) != 0 ||
		    m[i].parts != m[0].parts || m[i].total != m[0].total)
			return bale_errbuf_set(err, BALE_EINVAL, "'%s' is a "
			    "part of another run than '%s'", m[i].dir,
			    m[0].dir);
		if (byp[m[i].part])
			return bale_errbuf_set(err, BALE_EINVAL, "'%s' and "
			    "'%s' are both part %" PRIu64 " of %" PRIu64,
			    byp[m[i].part]->dir, m[i].dir, m[i].part,
			    m[i].parts);
		byp[m[i].part] = &m[i];
	}
	for (i = 0; i < m[0].parts; i++) {
		if (!byp[i])
			return bale_errbuf_set(err, BALE_EINVAL, "part %zu of "
			    "%" PRIu64 " is missing", i, m[0].parts);
		if (byp[i]->first != first)
			return bale_errbuf_set(err, BALE_EINVAL, "'%s' does "
			    "not start where the part before it ends",
			    byp[i]->dir);
		first += byp[i]->count;
	}
	return BALE_OK;
}

/* 1 if comma-separated @list names @fmt. */
static int merge_lists(const char *list, const char *fmt)
{
	char name[64];
	int got;

	while ((got = bale_registry_next_name(&list, name, sizeof(name))))
		if (got > 0 && strcmp(name, fmt) == 0)
			return 1;
	return 0;
}

/* 1 when the parts or the merged output lie in an object store. */
static int merge_remote(const struct bale_merge *bm)
{
	size_t i;

	for (i = 0; i < bm->nparts; i++)
		if (!bale_store_is_local(bm->parts[i]))
			return 1;
	return !bale_store_is_local(bm->out);
}

/* Format @be's merge of the parts, its failure named by the format. */
static int merge_one(const struct bale_backend *be,
    const struct bale_merge *bm, struct bale_errbuf *err)
{
	int rc = be->merge(bm, err);

	if (rc != BALE_OK)
		bale_errbuf_prefix(err, be->name);
	return rc;
}

/* Each format asked for, merged by its backend; all are checked first. */
static int merge_formats(const struct bale_merge *bm, const char *want,
    const char *held, struct bale_errbuf *err)
{
	const struct bale_backend *be;
	char name[64];
	const char *p;
	int got, pass, rc = BALE_OK;

	for (pass = 0; pass < 2 && rc == BALE_OK; pass++)
		for (p = want; rc == BALE_OK &&
		    (got = bale_registry_next_name(&p, name, sizeof(name)));) {
			be = got > 0 ? bale_backend_find(name) : NULL;
			if (got < 0)
				rc = bale_errbuf_set(err, BALE_EINVAL, "bad "
				    "format list '%s'", want);
			else if (pass == 0 && !merge_lists(held, name))
				rc = bale_errbuf_set(err, BALE_EINVAL, "the "
				    "parts hold no '%s' output", name);
			else if (pass == 0 && (!be || !be->merge))
				rc = bale_errbuf_set(err, BALE_ENOTSUP, "%s: "
				    "merging parts is not supported yet (the "
				    "other formats can be merged alone)", name);
			else if (pass == 0 && merge_remote(bm) &&
			    !(be->caps & BALE_CAP_MERGE_REMOTE))
				rc = bale_errbuf_set(err, BALE_ENOTSUP, "%s: "
				    "parts in an object store cannot be merged "
				    "yet (the merged file names the parts' "
				    "files, which its library opens as local "
				    "ones): merge them on local disk", name);
			else if (pass == 1)
				rc = merge_one(be, bm, err);
		}
	return rc;
}

/* The parts were made alike (merge_check): how the first was made is
 * how the merged output was, for bale info. Best effort: the merged
 * outputs are whole without it. */
static void merge_copy_made(const char *out, const char *part,
    const char *name)
{
	char *from = bale_strfmt("%s/%s-made.json", part, name);
	char *to = bale_strfmt("%s/%s-made.json", out, name);
	struct bale_errbuf err;

	if (from && to)
		(void)bale_store_copy(from, to, &err);
	free(from);
	free(to);
}

static int merge_run(const char *out, struct merge_mark *m, size_t n,
    const struct bale_merge_opts *o, struct bale_errbuf *err)
{
	const char *name = o && o->name ? o->name : "data";
	struct merge_mark **byp;
	const char **dirs;
	struct bale_merge bm;
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < n; i++)
		rc = merge_read_mark(&m[i], name, err);
	if (rc != BALE_OK)
		return rc;
	byp = calloc(m[0].parts, sizeof(*byp));
	dirs = calloc(m[0].parts, sizeof(*dirs));
	rc = byp && dirs ? merge_check(m, n, byp, err) :
	    bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	for (i = 0; rc == BALE_OK && i < m[0].parts; i++)
		dirs[i] = byp[i]->dir;
	if (rc == BALE_OK)
		rc = bale_store_writable(out, err);
	if (rc == BALE_OK && bale_store_is_local(out) &&
	    bale_file_mkdirs(out) != 0)
		rc = bale_errbuf_set(err, BALE_EIO, "cannot create '%s': %s",
		    out, strerror(errno));
	memset(&bm, 0, sizeof(bm));
	bm.out = out;
	bm.name = name;
	bm.parts = dirs;
	bm.nparts = m[0].parts;
	bm.replace = o && o->replace;
	bm.copy = o && o->copy;
	if (rc == BALE_OK)
		rc = merge_formats(&bm, o && o->formats ? o->formats :
		    m[0].formats, m[0].formats, err);
	if (rc == BALE_OK)
		merge_copy_made(out, dirs[0], name);
	free(byp);
	free(dirs);
	return rc;
}

/* A folder's name without the '/' it may end in ("s3://b/p0/": the
 * files below are joined with one). */
static char *merge_folder(const char *name)
{
	return bale_strfmt("%.*s", bale_path_trim_len(name), name);
}

int bale_merge_parts(const char *out, const char *const *parts,
    size_t nparts, const struct bale_merge_opts *o, struct bale_errbuf *err)
{
	struct merge_mark *m = calloc(nparts ? nparts : 1, sizeof(*m));
	char *to = merge_folder(out);
	struct bale_errbuf own;
	size_t i;
	int rc = BALE_OK;

	err = err ? err : &own;
	bale_errbuf_clear(err);
	for (i = 0; m && i < nparts; i++)
		if (!(m[i].dir = merge_folder(parts[i])))
			rc = BALE_ENOMEM;
	if (!m || !to || rc != BALE_OK)
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	else if (nparts == 0)
		rc = bale_errbuf_set(err, BALE_EINVAL, "no part to merge");
	else
		rc = merge_run(to, m, nparts, o, err);
	for (i = 0; m && i < nparts; i++) {
		free(m[i].dir);
		free(m[i].run);
		free(m[i].formats);
	}
	free(m);
	free(to);
	err->rc = rc;
	return rc;
}
