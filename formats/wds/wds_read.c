/* wds_read.c - the WebDataset reader.
 *
 * The shard list names the shards; each shard's .idx gives every member's
 * data offset and size, so a sample costs one pread: bale writes a
 * sample's members back to back, so the span from the first to the last
 * is read at once. Offsets are checked against the shard's size.
 */
#include "wds.h"

#include "wds_idx.h"
#include "wds_list.h"

#include "bale_store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define WDS_MAX_SPAN ((uint64_t)1 << 32)



static int wds_roption(struct bale_reader *r, void *priv, const char *key,
    const char *value)
{
	struct wds_r *st = priv;

	(void)r;
	if (strcmp(key, "images_only") == 0)
		st->images_only = strcmp(value, "0") != 0;
	else if (strcmp(key, "meta") == 0)
		st->no_meta = strcmp(value, "0") == 0;
	else if (strcmp(key, "check_indexes") == 0)
		st->check = strcmp(value, "0") != 0;
	else
		return BALE_ENOOPT;
	return BALE_OK;
}

static int wds_idx_line(struct wds_r *st, char *line, uint32_t shard)
{
	struct wds_entry e;
	char *member = NULL;
	char *dot;

	memset(&e, 0, sizeof(e));
	e.shard = shard;
	if (bale_wds_idx_parse(line, &e, &member) != 0 ||
	    !(dot = strchr(member, '.')))
		return -1;
	e.key = st->arena.len;
	bale_buf_add(&st->arena, member, (size_t)(dot - member));
	bale_buf_add(&st->arena, "", 1);
	if (st->nentries == st->cap) {
		struct wds_entry *ne;

		st->cap = st->cap ? st->cap * 2 : 1024;
		ne = realloc(st->entries, st->cap * sizeof(*ne));
		if (!ne)
			return -1;
		st->entries = ne;
	}
	st->entries[st->nentries++] = e;
	return st->arena.failed ? -1 : 0;
}

static int wds_read_idx(struct bale_reader *r, struct wds_r *st,
    uint32_t shard, uint64_t nsamples)
{
	const char *idx = st->paths[st->maxshards + shard];
	uint64_t before = st->nentries;
	struct bale_errbuf err;
	char *save = NULL;
	char *line;
	char *text;
	size_t n;
	int rc = bale_store_read_all(idx, &text, &n, &err);

	if (rc != BALE_OK)
		return bale_reader_seterr(r, rc, "%s", err.msg);
	line = strtok_r(text, "\n", &save);
	if (!line || strncmp(line, "v1.2 ", 5) != 0)
		rc = bale_reader_seterr(r, BALE_EINVAL,
		    "'%s' is not a v1.2 index", idx);
	while (rc == BALE_OK && (line = strtok_r(NULL, "\n", &save)))
		if (wds_idx_line(st, line, shard) != 0)
			rc = bale_reader_seterr(r, BALE_EINVAL,
			    "bad line in '%s'", idx);
	if (rc == BALE_OK && st->nentries - before != nsamples)
		rc = bale_reader_seterr(r, BALE_EINVAL,
		    "'%s' lists %" PRIu64 " samples, the shard list %"
		    PRIu64, idx, st->nentries - before, nsamples);
	free(text);
	return rc;
}

static int wds_add_shard(struct bale_reader *r, struct wds_r *st,
    const char *dir, const struct wds_shard *shard)
{
	char *url = shard->url;
	size_t i = st->nshards;
	char *path = strchr(url, '/') || strstr(url, "..") ? NULL :
	    bale_strfmt("%s/%s", dir, url);
	size_t len = path ? strlen(path) : 0;
	struct bale_errbuf err;
	int rc;

	if (!path || len < 5 || strcmp(path + len - 4, ".tar") != 0) {
		free(path);
		return bale_reader_seterr(r, BALE_EINVAL,
		    "shard '%s' is not a NAME.tar beside the list", url);
	}
	st->paths[i] = path;
	/* the list's size: in an object store, no request a shard now */
	rc = bale_sfile_open_sized(&st->files[i], path, shard->filesize, &err);
	if (rc != BALE_OK)
		return bale_reader_seterr(r, rc, "%s", err.msg);
	st->sizes[i] = bale_sfile_size(st->files[i]);
	st->nshards++;
	return BALE_OK;
}

/* Room for @n shards: paths (tars, then idx files, then NULL), files. */
static int wds_alloc_shards(struct wds_r *st, size_t n)
{
	st->maxshards = n;
	st->paths = calloc(2 * n + 1, sizeof(char *));
	st->files = calloc(n ? n : 1, sizeof(*st->files));
	st->sizes = calloc(n ? n : 1, sizeof(uint64_t));
	st->listed = calloc(n ? n : 1, sizeof(uint64_t));
	return st->paths && st->files && st->sizes && st->listed ? 0 : -1;
}

/* Member @key of the object at [@v, @vend), as "key":value after a
 * comma unless @first (nothing when absent). @return 1 when copied */
static int wds_info_copy(struct wds_r *st, const char *v, const char *vend,
    const char *key, int first)
{
	const char *c = v ? bale_jsonr_find(v, vend, key, &vend) : NULL;

	if (!c)
		return 0;
	bale_json_key(&st->info, key, first);
	bale_buf_add(&st->info, c, (size_t)(vend - c));
	return 1;
}

/* The list's "bale" object (@v, up to @vend) as the info's, its class
 * names at the top level, where every format's info has them, and once:
 * {"bale":{"version","samples"},"classes":[...]. */
static void wds_info_bale(struct wds_r *st, const char *v, const char *vend)
{
	int none;

	bale_buf_puts(&st->info, "{\"bale\":{");
	none = !wds_info_copy(st, v, vend, "version", 1);
	wds_info_copy(st, v, vend, "samples", none);
	bale_buf_puts(&st->info, "}");
	wds_info_copy(st, v, vend, "classes", 0);
}

/* The .idx beside shard @i: its path among the files. */
static int wds_name_idx(struct bale_reader *r, struct wds_r *st, size_t i)
{
	const char *tar = st->paths[i];

	free(st->paths[st->maxshards + i]);	/* check mode: its .bidx */
	st->paths[st->maxshards + i] = bale_strfmt("%.*s.idx",
	    (int)strlen(tar) - 4, tar);
	if (!st->paths[st->maxshards + i])
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	return BALE_OK;
}

/* Where the samples lie: the shards' compact indexes when all have a
 * sound one, else every .idx parsed; in check mode, each shard's .idx
 * when a read first comes to it (wds_entry_at), so checking millions
 * holds one shard's entries. */
static int wds_index_shards(struct bale_reader *r, struct wds_r *st)
{
	size_t i;
	int rc = bale_wds_bidx_open(r, st);

	st->by_index = rc > 0;
	if (rc != 0)
		return rc > 0 ? BALE_OK : rc;
	for (i = 0; rc == BALE_OK && i < st->nshards; i++)
		rc = wds_name_idx(r, st, i);
	if (rc == BALE_OK && st->check) {
		st->lazy = 1;
		st->n = st->first[st->nshards];
		return BALE_OK;
	}
	for (i = 0; rc == BALE_OK && i < st->nshards; i++)
		rc = wds_read_idx(r, st, (uint32_t)i, st->listed[i]);
	st->n = st->nentries;
	return rc;
}

/* Sample @i's entry; lazy, its shard's .idx is parsed first, in place
 * of the one parsed before. NULL when that fails (said in @r). */
static const struct wds_entry *wds_entry_at(struct bale_reader *r,
    struct wds_r *st, uint64_t i)
{
	size_t shard;
	uint64_t j;

	if (!st->lazy)
		return &st->entries[i];
	shard = bale_wds_shard_of(st, i, &j);
	if (st->unusable == shard + 1) {	/* said once, not parsed anew */
		bale_reader_seterr(r, BALE_EINVAL, "%s", st->unusable_why);
		return NULL;
	}
	if (st->loaded != shard + 1) {
		st->loaded = 0;
		st->nentries = 0;
		bale_buf_reset(&st->arena);
		if (wds_read_idx(r, st, (uint32_t)shard, st->listed[shard]) !=
		    BALE_OK) {
			st->unusable = shard + 1;
			snprintf(st->unusable_why, sizeof(st->unusable_why),
			    "%s", bale_reader_errmsg(r));
			return NULL;
		}
		st->loaded = shard + 1;
	}
	return &st->entries[j];
}

/* The shards the list at @path names, beside it in @dir, each opened;
 * the info from the list's "bale" object. */
static int wds_open_list(struct bale_reader *r, struct wds_r *st,
    const char *dir, const char *path)
{
	struct bale_errbuf err;
	struct wds_list l;
	size_t i;
	int rc = bale_wds_list_read(path, &l, &err);

	if (rc != BALE_OK)
		return bale_reader_seterr(r, rc, "%s", err.msg);
	wds_info_bale(st, l.bale, l.bale ? l.bale + l.bale_len : NULL);
	bale_buf_printf(&st->info, ",\"shards\":%zu}", l.n);
	if (wds_alloc_shards(st, l.n) != 0)
		rc = bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	for (i = 0; rc == BALE_OK && i < l.n; i++) {
		rc = wds_add_shard(r, st, dir, &l.v[i]);
		if (rc == BALE_OK)
			st->listed[st->nshards - 1] = l.v[i].nsamples;
	}
	bale_wds_list_release(&l);
	return rc == BALE_OK ? wds_index_shards(r, st) : rc;
}

static int wds_ropen(struct bale_reader *r, void *priv, const char *path)
{
	struct wds_r *st = priv;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? bale_strfmt("%.*s", (int)(slash - path), path) :
	    bale_strfmt(".");
	int rc = dir ? wds_open_list(r, st, dir, path) :
	    bale_reader_seterr(r, BALE_ENOMEM, "no memory");

	bale_reader_describe(r, (const char *const *)st->paths,
	    st->info.failed ? NULL : st->info.data);
	free(dir);
	return rc;
}

static int wds_rcount(struct bale_reader *r, void *priv, uint64_t *n)
{
	(void)r;
	*n = ((struct wds_r *)priv)->n;
	return BALE_OK;
}

/* Parse the label and the metadata of the entry just read. */
static int wds_fill_blob(struct bale_reader *r, struct wds_r *st,
    const struct wds_entry *e, uint64_t lo, struct bale_blob *out)
{
	const char *json = (const char *)st->buf + (e->json.off - lo);
	const char *cls = (const char *)st->buf + (e->cls.off - lo);
	int64_t stored = 0;

	if (bale_meta_label(cls, (size_t)e->cls.size, &out->label) != 0)
		return bale_reader_seterr(r, BALE_EINVAL,
		    "bad .cls member");
	free(st->path);
	st->path = NULL;
	out->path = NULL;
	if (st->no_meta)
		return BALE_OK;
	if (!bale_meta_label_agrees(json, (size_t)e->json.size, out->label,
	    &stored))
		return bale_reader_seterr(r, BALE_EINVAL, "label %" PRId64
		    " in .cls, %" PRId64 " in .json", out->label, stored);
	bale_meta_parse(json, (size_t)e->json.size, &st->path, &out->crc32,
	    &out->has_crc32);
	out->path = st->path;
	return BALE_OK;
}

/* Bytes [lo, hi) of @e's shard, which hold its image and the members
 * around it, with one preadv: the members into st->buf at their offset
 * in the span (where wds_fill_blob looks), the image into the data
 * buffer, which is the caller's memory when it gave some. */
static int wds_read_span(struct bale_reader *r, struct wds_r *st,
    const struct wds_entry *e, uint64_t lo, uint64_t hi,
    struct bale_blob *out)
{
	size_t before = (size_t)(e->image.off - lo);
	size_t size = (size_t)e->image.size;
	struct iovec iov[3];

	if (bale_grow(&st->buf, &st->bufcap, (size_t)(hi - lo) + 1) != 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	out->data = bale_reader_data_buffer(r, st->buf + before, size);
	if (!out->data)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	out->size = size;
	iov[0] = (struct iovec){ st->buf, before };
	iov[1] = (struct iovec){ (void *)out->data, size };
	iov[2] = (struct iovec){ st->buf + before + size,
	    (size_t)(hi - lo) - before - size };
	return bale_wds_read_at(r, st, e->shard, iov, 3, lo);
}

/* 1 if member @m lies inside a shard of @size bytes (an .idx line can
 * say anything: its offset plus its size must not wrap around). */
static int wds_member_inside(const struct wds_member *m, uint64_t size)
{
	return m->off <= size && m->size <= size - m->off;
}

/* Sample @i lies (in part) past the end of its shard: the shard was cut
 * short after its .idx was written, or the .idx is damaged. The same
 * words for every sample of the shard but the number, so a reader of
 * many (verify) can say it once. */
static int wds_cut_short(struct bale_reader *r, const struct wds_r *st,
    const struct wds_entry *e, uint64_t i)
{
	return bale_reader_seterr(r, BALE_EINVAL, "'%s' ends at byte %"
	    PRIu64 ", before sample %" PRIu64 " (cut short, or its .idx "
	    "damaged)", st->paths[e->shard], st->sizes[e->shard], i);
}

static int wds_rget(struct bale_reader *r, void *priv, uint64_t i,
    struct bale_blob *out)
{
	struct wds_r *st = priv;
	const struct wds_entry *e;
	uint64_t lo;
	uint64_t hi;
	int rc;

	if (i >= st->n)
		return bale_reader_seterr(r, BALE_EINVAL, "no sample %"
		    PRIu64, i);
	if (st->ix && ++st->reads % BALE_INDEX_LET_GO_EVERY == 0)
		bale_wds_bidx_let_go(st);
	if (st->by_index)
		return bale_wds_bidx_get(r, st, i, out);
	e = wds_entry_at(r, st, i);
	if (!e)
		return BALE_EINVAL;
	if (!wds_member_inside(&e->image, st->sizes[e->shard]) ||
	    (!st->images_only && (!wds_member_inside(&e->cls,
	    st->sizes[e->shard]) || !wds_member_inside(&e->json,
	    st->sizes[e->shard]))))
		return wds_cut_short(r, st, e, i);
	lo = e->image.off < e->cls.off ? e->image.off : e->cls.off;
	lo = lo < e->json.off ? lo : e->json.off;
	hi = e->json.off + e->json.size;
	if (e->image.off + e->image.size > hi)
		hi = e->image.off + e->image.size;
	if (st->images_only) {
		lo = e->image.off;
		hi = lo + e->image.size;
	}
	if (hi > st->sizes[e->shard] || hi - lo > WDS_MAX_SPAN ||
	    (!st->images_only && e->cls.off + e->cls.size > hi))
		return wds_cut_short(r, st, e, i);
	rc = wds_read_span(r, st, e, lo, hi, out);
	if (rc != BALE_OK)
		return rc;
	out->key = st->arena.data + e->key;
	if (st->images_only)
		return BALE_OK;
	rc = wds_fill_blob(r, st, e, lo, out);
	return rc == BALE_OK && st->check ?
	    bale_wds_bidx_compare(r, st, i, e, out) : rc;
}

static int wds_rsize(struct bale_reader *r, void *priv, uint64_t i,
    size_t *size)
{
	struct wds_r *st = priv;
	const struct wds_entry *e;
	size_t shard;
	uint64_t j;

	if (st->by_index) {
		*size = bale_wds_bidx_loc(st, i, &shard, &j)->size;
		return BALE_OK;
	}
	e = wds_entry_at(r, st, i);
	if (!e)
		return BALE_EINVAL;
	*size = (size_t)e->image.size;
	return BALE_OK;
}

/* The .cls member alone: a few bytes. */
static int wds_rlabel(struct bale_reader *r, void *priv, uint64_t i,
    int64_t *label)
{
	struct wds_r *st = priv;
	const struct wds_entry *e;
	char cls[32];
	struct iovec v = { cls, 0 };
	size_t shard;
	uint64_t j;
	int rc;

	if (st->by_index) {
		bale_wds_bidx_loc(st, i, &shard, &j);
		*label = st->ix[shard].labels[j];
		return BALE_OK;
	}
	e = wds_entry_at(r, st, i);
	if (!e)
		return BALE_EINVAL;
	if (e->cls.size > sizeof(cls) ||
	    e->cls.off + e->cls.size > st->sizes[e->shard])
		return bale_reader_seterr(r, BALE_EINVAL, "sample %" PRIu64
		    " has a bad .cls member", i);
	v.iov_len = (size_t)e->cls.size;
	rc = bale_wds_read_at(r, st, e->shard, &v, 1, e->cls.off);
	if (rc != BALE_OK)
		return rc;
	if (bale_meta_label(cls, (size_t)e->cls.size, label) != 0)
		return bale_reader_seterr(r, BALE_EINVAL,
		    "bad .cls member");
	return BALE_OK;
}

/* Many labels: from the shards' indexes, 4 bytes a sample read. */
static int wds_rlabels(struct bale_reader *r, void *priv, uint64_t first,
    uint64_t n, int64_t *out)
{
	struct wds_r *st = priv;
	uint64_t i;
	int rc = BALE_OK;

	if (!st->by_index) {
		for (i = 0; rc == BALE_OK && i < n; i++)
			rc = wds_rlabel(r, priv, first + i, &out[i]);
		return rc;
	}
	rc = bale_wds_bidx_labels(st, first, n, out);
	return rc == BALE_OK ? rc : bale_reader_seterr(r, rc, "cannot "
	    "read the labels in the shards' .bidx files: %s", strerror(errno));
}

/* Samples' bytes asked for ahead, when the indexes say where. */
static int wds_rprefetch(struct bale_reader *r, void *priv, uint64_t first,
    uint64_t n)
{
	struct wds_r *st = priv;

	(void)r;
	return st->by_index ? bale_wds_bidx_prefetch(st, first, n) : 0;
}

static void wds_rrelease(void *priv)
{
	struct wds_r *st = priv;
	size_t i;

	bale_buf_release(&st->info);
	bale_wds_bidx_close(st);
	free(st->listed);
	for (i = 0; st->files && i < st->nshards; i++)
		bale_sfile_close(st->files[i]);
	/* every slot: an open that failed part-way leaves gaps */
	for (i = 0; st->paths && i < 2 * st->maxshards; i++)
		free(st->paths[i]);
	free(st->paths);
	free(st->files);
	free(st->sizes);
	free(st->entries);
	free(st->buf);
	free(st->path);
	bale_buf_release(&st->arena);
}

const struct bale_reader_ops bale_wds_reader = {
	.option = wds_roption,
	.open = wds_ropen,
	.count = wds_rcount,
	.get = wds_rget,
	.release = wds_rrelease,
	.size = wds_rsize,
	.label = wds_rlabel,
	.labels = wds_rlabels,
	.prefetch = wds_rprefetch,
};
