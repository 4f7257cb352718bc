/* wds_bidx.c - the compact index beside each shard (NAME-NNNNNN.bidx,
 * src/util/sample_index.c's layout): per sample its label, its key and
 * where its image lies, then how many bytes its .cls and .json members
 * take after the image. Opening a shard through it costs a map, not a
 * parse of its .idx; labels cost 4 bytes a sample, not a read of each
 * .cls member. The .idx files stay, for DALI and for other readers.
 *
 * A reader takes the indexes only when every shard has one written for
 * its tar as it is now (its size and the list's sample count); else it
 * parses the .idx files, as for outputs made before the indexes and for
 * shards of other writers.
 */
#include "wds.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* "@tar" with .bidx in place of .tar; NULL without memory. */
static char *wds_bidx_path_of(const char *tar)
{
	return bale_strfmt("%.*s.bidx", (int)strlen(tar) - 4, tar);
}

int bale_wds_bidx_publish(struct wds_w *st, uint64_t tar_size)
{
	char *path = bale_wds_path(st, st->shard_no, "bidx");
	int rc = 0;

	if (!path) {
		errno = ENOMEM;
		return -1;
	}
	if (st->bix.unfit || st->bix.count != st->shard_samples)
		unlink(path);	/* readers take the .idx */
	else
		rc = bale_index_write(&st->bix, path, tar_size, st->sync);
	free(path);
	return rc;
}

/* Shard @i's index, for its tar as it is now. */
static int wds_bidx_open_one(struct wds_r *st, size_t i)
{
	char *path = wds_bidx_path_of(st->paths[i]);
	int rc;

	if (!path)
		return BALE_ENOMEM;
	rc = bale_store_index_open(&st->ix[i], path, st->listed[i],
	    st->sizes[i]);
	if (rc == BALE_OK) {
		free(st->paths[st->maxshards + i]);
		st->paths[st->maxshards + i] = path;	/* what get() reads */
	} else {
		free(path);
	}
	return rc;
}

/* In an object store, every shard's .bidx read at once, ahead of the
 * opens that take them one by one (each alone would be a round trip).
 * NULL: nothing warmed. */
static struct bale_index_pins *wds_bidx_warm(const struct wds_r *st)
{
	struct bale_index_pins *pins = NULL;
	char **names;
	size_t i, k;

	if (!st->nshards || bale_store_is_local(st->paths[0]))
		return NULL;
	names = calloc(st->nshards, sizeof(*names));
	for (i = 0; names && i < st->nshards; i++) {
		names[i] = wds_bidx_path_of(st->paths[i]);
		if (!names[i])
			break;
	}
	if (names && i == st->nshards)
		pins = bale_store_index_warm((const char *const *)names, i);
	for (k = 0; names && k < i; k++)
		free(names[k]);
	free(names);
	return pins;
}

int bale_wds_bidx_open(struct bale_reader *r, struct wds_r *st)
{
	struct bale_index_pins *pins;
	size_t i;
	int rc = BALE_OK;

	st->ix = calloc(st->nshards + 1, sizeof(*st->ix));
	st->first = calloc(st->nshards + 1, sizeof(*st->first));
	st->ix_bad = calloc(st->nshards + 1, 1);
	if (!st->ix || !st->first || !st->ix_bad)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	pins = wds_bidx_warm(st);
	for (i = 0; i < st->nshards; i++) {
		rc = wds_bidx_open_one(st, i);
		st->first[i + 1] = st->first[i] + st->listed[i];
		st->ix_bad[i] = rc == BALE_EINVAL;
		if (rc != BALE_OK && !st->check)
			break;
	}
	bale_store_index_unpin(pins);
	if (st->check)
		return 0;	/* the .idx files too, compared in get() */
	if (rc == BALE_OK) {
		st->n = st->first[st->nshards];
		return 1;
	}
	bale_wds_bidx_close(st);
	if (rc == BALE_ENOMEM)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	return 0;	/* one is missing or stale: the .idx files, all */
}

void bale_wds_bidx_let_go(const struct wds_r *st)
{
	size_t i;

	for (i = 0; i < st->nshards; i++)
		bale_index_let_go(&st->ix[i]);
}

void bale_wds_bidx_close(struct wds_r *st)
{
	size_t i;

	for (i = 0; st->ix && i < st->nshards; i++)
		bale_index_close(&st->ix[i]);
	free(st->ix);
	free(st->first);
	free(st->ix_bad);
	st->ix = NULL;
	st->first = NULL;
	st->ix_bad = NULL;
}

size_t bale_wds_shard_of(const struct wds_r *st, uint64_t i, uint64_t *j)
{
	size_t lo = 0, hi = st->nshards;	/* first[lo] <= i < first[hi] */
	size_t mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (st->first[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	*j = i - st->first[lo];
	return lo;
}

const struct bale_index_loc *bale_wds_bidx_loc(const struct wds_r *st,
    uint64_t i, size_t *shard, uint64_t *j)
{
	*shard = bale_wds_shard_of(st, i, j);
	return &st->ix[*shard].locs[*j];
}

int bale_wds_bidx_compare(struct bale_reader *r, const struct wds_r *st,
    uint64_t i, const struct wds_entry *e, const struct bale_blob *out)
{
	const struct bale_index *ix = &st->ix[e->shard];
	uint64_t j = i - st->first[e->shard];
	const struct bale_index_loc *loc;
	const char *key;

	/* a damaged or stale .bidx: readers would silently take the slow
	 * way; none at all: an output made before the indexes */
	if (st->ix_bad[e->shard])
		return bale_reader_setnote(r, "the .bidx beside '%s' is "
		    "damaged or does not describe it (readers fall back to its "
		    ".idx)", st->paths[e->shard]);
	if (!ix->map)
		return BALE_OK;
	loc = &ix->locs[j];
	key = bale_index_key(ix, j);
	if (loc->off == e->image.off && loc->size == e->image.size &&
	    loc->off + loc->size + loc->tail == e->json.off + e->json.size &&
	    key && strcmp(key, out->key) == 0 && ix->labels[j] == out->label)
		return BALE_OK;
	return bale_reader_setnote(r, "sample %" PRIu64 " (key '%s'): "
	    "the .bidx beside '%s' disagrees with the shard and its .idx", i,
	    out->key, st->paths[e->shard]);
}

int bale_wds_bidx_labels(const struct wds_r *st, uint64_t first,
    uint64_t n, int64_t *out)
{
	uint64_t j, k, done = 0;
	size_t shard;
	int rc = BALE_OK;

	while (rc == BALE_OK && done < n) {
		bale_wds_bidx_loc(st, first + done, &shard, &j);
		k = st->listed[shard] - j;
		if (k > n - done)
			k = n - done;
		rc = bale_index_labels(&st->ix[shard], j, k, out + done);
		done += k;
	}
	return rc;
}

/* A tar header's size field: octal, NUL- or space-ended. */
static int wds_header_size(const unsigned char *h, uint64_t *size)
{
	uint64_t v = 0;
	int i, digits = 0;

	for (i = 124; i < 136 && h[i] == ' '; i++)
		;
	for (; i < 136 && h[i] >= '0' && h[i] <= '7'; i++, digits++)
		v = v * 8 + (uint64_t)(h[i] - '0');
	*size = v;
	return digits > 0 ? 0 : -1;
}

/* The member after the image whose name ends in @ext, in the @n bytes
 * at @p that follow the image's data (padding, then header and data of
 * each member). @return 0 with *@data and *@size set, or -1 */
static int wds_tail_member(const unsigned char *p, size_t n,
    size_t pad, const char *ext, const unsigned char **data,
    uint64_t *size)
{
	size_t at = pad;
	size_t elen = strlen(ext);
	size_t nlen;

	while (at + WDS_BLOCK <= n) {
		if (wds_header_size(p + at, size) != 0 ||
		    *size > n - at - WDS_BLOCK)
			return -1;
		nlen = strnlen((const char *)p + at, 100);
		if (nlen > elen &&
		    memcmp(p + at + nlen - elen, ext, elen) == 0) {
			*data = p + at + WDS_BLOCK;
			return 0;
		}
		at += WDS_BLOCK + (size_t)((*size + WDS_BLOCK - 1) / WDS_BLOCK *
		    WDS_BLOCK);
	}
	return -1;
}

/* Meta: the path and checksum of the JSON member in the tail, and the
 * label its .cls member and its JSON give, against the index's. */
static int wds_bidx_meta(struct bale_reader *r, struct wds_r *st,
    const struct bale_index_loc *loc, struct bale_blob *out)
{
	size_t pad = (size_t)((WDS_BLOCK - loc->size % WDS_BLOCK) % WDS_BLOCK);
	const unsigned char *tail = st->buf + loc->size;
	const unsigned char *json, *cls;
	uint64_t size, cls_size;
	int64_t stored = 0;

	free(st->path);
	st->path = NULL;
	if (wds_tail_member(tail, loc->tail, pad, ".json", &json, &size) != 0 ||
	    wds_tail_member(tail, loc->tail, pad, ".cls", &cls,
	    &cls_size) != 0)
		return bale_reader_seterr(r, BALE_EINVAL, "the members "
		    "after the image of sample '%s' are not its .cls and "
		    ".json: the shard or its .bidx is damaged", out->key);
	if (bale_meta_label((const char *)cls, (size_t)cls_size,
	    &stored) != 0 || stored != out->label)
		return bale_reader_seterr(r, BALE_EINVAL, "label %" PRId64
		    " in .cls, %" PRId64 " in the index", stored, out->label);
	if (!bale_meta_label_agrees((const char *)json, (size_t)size,
	    out->label, &stored))
		return bale_reader_seterr(r, BALE_EINVAL, "label %" PRId64
		    " in the index, %" PRId64 " in .json", out->label, stored);
	bale_meta_parse((const char *)json, (size_t)size, &st->path,
	    &out->crc32, &out->has_crc32);
	out->path = st->path;
	return BALE_OK;
}

/* The image into the blob's data (the caller's memory, or st->buf), the
 * tail (with meta) into st->buf after room for the image. */
static int wds_bidx_read(struct bale_reader *r, struct wds_r *st,
    size_t shard, const struct bale_index_loc *loc, int tail,
    struct bale_blob *out)
{
	struct iovec iov[2];

	if (bale_grow(&st->buf, &st->bufcap, (size_t)loc->size + loc->tail +
	    1) != 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	out->data = bale_reader_data_buffer(r, st->buf, loc->size);
	if (!out->data)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	out->size = loc->size;
	iov[0] = (struct iovec){ (void *)out->data, loc->size };
	iov[1] = (struct iovec){ st->buf + loc->size, tail ? loc->tail : 0 };
	return bale_wds_read_at(r, st, shard, iov, tail ? 2 : 1, loc->off);
}

/* Does sample @loc (its image and the members after it) lie inside
 * shard @shard as it is? (an index can say anything) */
static int wds_loc_inside(const struct wds_r *st, size_t shard,
    const struct bale_index_loc *loc)
{
	return loc->off <= st->sizes[shard] && (uint64_t)loc->size +
	    loc->tail <= st->sizes[shard] - loc->off;
}

int bale_wds_bidx_get(struct bale_reader *r, struct wds_r *st, uint64_t i,
    struct bale_blob *out)
{
	const struct bale_index_loc *loc;
	int meta = !st->images_only && !st->no_meta;
	size_t shard;
	uint64_t j;
	int rc;

	loc = bale_wds_bidx_loc(st, i, &shard, &j);
	if (!wds_loc_inside(st, shard, loc))
		return bale_reader_seterr(r, BALE_EINVAL, "'%s' (%" PRIu64
		    " bytes) is cut short, or its .bidx damaged: sample %"
		    PRIu64 " lies past its end", st->paths[shard],
		    st->sizes[shard], i);
	out->key = bale_index_key(&st->ix[shard], j);
	out->label = st->ix[shard].labels[j];
	out->path = NULL;
	if (!out->key || out->label < BALE_LABEL_NONE)
		return bale_reader_seterr(r, BALE_EINVAL, "the .bidx of "
		    "'%s' is damaged at sample %" PRIu64, st->paths[shard], i);
	rc = wds_bidx_read(r, st, shard, loc, meta, out);
	return rc == BALE_OK && meta ? wds_bidx_meta(r, st, loc, out) : rc;
}

/* The span of the samples of one shard from @first on, @n at most: its
 * start and end in the shard, and how many samples it holds. @return 0,
 * or -1 when the index puts one past the shard's end (get() says) */
static int wds_bidx_span(const struct wds_r *st, uint64_t first,
    uint64_t n, size_t *shard, uint64_t *lo, uint64_t *hi, uint64_t *k)
{
	int meta = !st->images_only && !st->no_meta;
	const struct bale_index_loc *loc;
	uint64_t j, end;
	size_t s;

	for (*k = 0; *k < n; (*k)++) {
		loc = bale_wds_bidx_loc(st, first + *k, &s, &j);
		if (*k > 0 && s != *shard)
			break;
		*shard = s;
		if (!wds_loc_inside(st, s, loc))
			return -1;
		end = loc->off + loc->size + (meta ? loc->tail : 0);
		*lo = *k == 0 || loc->off < *lo ? loc->off : *lo;
		*hi = *k == 0 || end > *hi ? end : *hi;
	}
	return 0;
}

int bale_wds_bidx_prefetch(struct wds_r *st, uint64_t first, uint64_t n)
{
	uint64_t lo = 0, hi = 0, k = 0;
	size_t shard = 0;
	int rc = 0;

	while (n > 0 && rc >= 0) {
		if (wds_bidx_span(st, first, n, &shard, &lo, &hi, &k) != 0)
			return rc;
		rc = bale_sfile_prefetch(st->files[shard], lo,
		    (size_t)(hi - lo), (unsigned)k);
		first += k;
		n -= k;
	}
	return rc;
}
