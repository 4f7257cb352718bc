/* source_packed.c - an output bale reads (its LMDB, HDF5 file or shard
 * list, a Caffe LMDB) as the source: converted sample by sample, in its
 * order, with its labels, class names and the source paths it recorded.
 * The walk reads each sample once to learn its path and size; its
 * samples are members of two kinds: those whose bytes lie whole in the
 * output's files (an LMDB's), read again there by the workers, and those
 * the feed (stream_feed.h) reads, in output order, with a reader of its
 * own. */
#include "walk_int.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "handle.h"
#include "input.h"
#include "source.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The "classes" array of the reader's info (every format puts it at
 * the top). NULL when it has none. */
static const char *dataset_classes_json(const char *info, const char **vend)
{
	const char *v = bale_jsonr_find(info, info + strlen(info), "classes",
	    vend);

	return v && *v == '[' ? v : NULL;
}

/* Class names from the output's own list (null entries stay NULL). */
static int dataset_read_classes(struct bale_walk *w, struct bale_reader *r)
{
	const char *info;
	const char *cur;
	const char *v;
	const char *vend;
	const char *end;
	size_t k;
	int rc;

	if (bale_reader_info(r, &info) != BALE_OK || !info)
		return BALE_OK;
	cur = dataset_classes_json(info, &end);
	if (!cur)
		return BALE_OK;
	while ((v = bale_jsonr_next(&cur, end, &vend)) != NULL) {
		k = w->nclasses;
		rc = bale_walk_cover_label(w, (int64_t)k);
		if (rc != BALE_OK)
			return rc;
		if (*v == '"' && !(w->classes[k] = bale_jsonr_string(v, vend)))
			return bale_walk_nomem(w);
	}
	return BALE_OK;
}

static void dataset_release_reader(void *r)
{
	bale_reader_free(r);
}

/* Sample @b's bytes, when they lie whole in a file of the output (an
 * LMDB's): the workers then read them there, in place like a tar's
 * members, in any order and several at once, and no reader maps pages
 * of the source out of order (a shuffled conversion's did: 365 MiB at
 * 10 M). The walk keeps its reader open so that they stay there, and
 * checks them here against the checksum the output stored, since the
 * worker will have none to check. @return 1 if @m now says where they
 * are, 0 if they are read by the feed, -1 if they are damaged */
static int dataset_locate(struct bale_walk *w, struct bale_reader *r,
    const struct bale_blob *b, struct bale_walk_member *m)
{
	uint64_t at;
	int fd;

	if (bale_reader_where(r, &fd, &at) != BALE_OK)
		return 0;
	if (b->has_crc32 && bale_crc32(b->data, b->size) != b->crc32)
		return -1;
	w->held = r;
	w->release_held = dataset_release_reader;
	m->kind = &bale_source_packed_in_place;
	m->fd = fd;
	m->offset = at;
	return 1;
}

/* Sample @i: its path (the key when the output kept none), label and
 * size, or a note saying why it cannot be converted. */
static int dataset_take(struct bale_walk *w, struct bale_reader *r,
    uint64_t i)
{
	struct bale_blob b;
	struct bale_walk_member m;
	const char *path;
	char where[32];
	int rc = bale_reader_get(r, i, &b);

	snprintf(where, sizeof(where), "sample %" PRIu64, i);
	if (rc == BALE_ENOMEM)
		return bale_walk_nomem(w);
	if (rc != BALE_OK)
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, where,
		    bale_reader_errmsg(r));
	path = b.path && *b.path ? b.path : b.key;
	if (b.label < BALE_LABEL_NONE || b.label > WALK_MAX_LABEL)
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path,
		    "label outside -1..16777216");
	if (b.size == 0)
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path,
		    "empty sample");
	rc = bale_walk_cover_label(w, b.label);
	if (rc != BALE_OK)
		return rc;
	memset(&m, 0, sizeof(m));
	m.kind = &bale_source_packed;
	m.fd = -1;
	m.offset = i;
	/* its checksum is not kept (4 bytes a sample): the feed reads it
	 * again with the bytes and the worker checks them with it, or
	 * dataset_locate() checks them now */
	m.size = m.csize = b.size;
	if (dataset_locate(w, r, &b, &m) < 0)
		return bale_walk_add_note(w, BALE_NOTE_SKIPPED, path,
		    BALE_WHY_DAMAGED);
	return bale_walk_add_located(w, path, b.label, &m);
}

static int dataset_walk(struct bale_walk *w, struct bale_reader *r,
    const char *path, const char *format)
{
	uint64_t n = 0;
	uint64_t i;
	int rc = bale_reader_open(r, format, path);

	if (rc == BALE_OK)
		rc = bale_reader_count(r, &n);
	if (rc == BALE_ENOMEM)
		return bale_walk_nomem(w);
	if (rc != BALE_OK)
		return bale_errbuf_set(&w->err, BALE_EINPUT, "walk: '%s': %s",
		    path, bale_reader_errmsg(r));
	w->dataset = strdup(path);
	w->dataset_format = strdup(bale_reader_format(r));
	if (!w->dataset || !w->dataset_format)
		return bale_walk_nomem(w);
	rc = dataset_read_classes(w, r);
	for (i = 0; rc == BALE_OK && i < n; i++) {
		rc = dataset_take(w, r, i);
		/* the output's order is kept: seal as it goes */
		if (rc == BALE_OK && w->nitems >= WALK_SEAL_EVERY)
			rc = bale_walk_seal(w);
	}
	return rc;
}

int bale_walk_dataset(struct bale_walk *w, const char *path,
    const char *format)
{
	struct bale_reader *r;
	int rc;

	bale_errbuf_clear(&w->err);
	if (bale_reader_new(&r) != BALE_OK)
		return bale_walk_nomem(w);
	rc = dataset_walk(w, r, path, format);
	if (w->held != r)
		bale_reader_free(r);
	return rc == BALE_OK ? bale_walk_seal_all(w) : rc;
}

const char *bale_walk_dataset_source(const struct bale_walk *w,
    const char **format)
{
	*format = w->dataset_format;
	return w->dataset;
}

static int packed_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err)
{
	(void)self;
	(void)err;
	return s->npaths == 1 && bale_output_format(s->paths[0]) != NULL;
}

static int packed_scan(const struct bale_source *s, struct bale_walk *w)
{
	return bale_walk_dataset(w, s->paths[0], NULL);
}

const struct bale_source_kind bale_source_packed = {
	.name = "packed",
	.what = "a packed output",
	.caps = 0,
	.probe = packed_probe,
	.scan = packed_scan,
};

/* Not a kind a source is of (no probe): only its samples' kind, read
 * where the walk's reader said the bytes are (it stays open, so they
 * stay there). */
const struct bale_source_kind bale_source_packed_in_place = {
	.name = "packed in place",
	.what = "a packed output's stored sample",
	.caps = BALE_SOURCE_RANDOM,
	.read = bale_input_read_stored,
};
