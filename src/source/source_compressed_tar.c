/* source_compressed_tar.c - a compressed tar (gzip, zstd, xz, ... as
 * libarchive reads them) as the source: listed in one pass of
 * decompression, the data skipped. Its members are named by their
 * ordinals in the stream, and the pipeline's stream feeder
 * (stream_feed.c) reads them on its passes, front to back. */
#include "source.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "tar_stream.h"
#include "walk_arc.h"

#include <string.h>

struct stream_list {
	struct arc_scan *s;
	size_t tar;		/* 1 + index of the inner tar being listed */
};

/* Remember why the listing of the current inner tar stopped. */
static int stream_note_damage(struct stream_list *l, const char *why)
{
	struct arc_scan *s = l->s;

	if (!l->tar)
		return BALE_OK;
	s->ents[l->tar - 1].damage = s->names.len + 1;
	bale_buf_puts(&s->names, why);
	bale_buf_add(&s->names, "", 1);
	return s->names.failed ? bale_walk_nomem(s->w) : BALE_OK;
}

/* Keep the bytes of the member just listed (a WebDataset label or
 * JSON): the names buffer holds them, NUL-terminated. One that cannot
 * be read is not kept; the damage is met again when the stream is. */
static int stream_keep_text(struct arc_scan *s, struct bale_tar_stream *ts,
    uint64_t size)
{
	struct arc_entry *e = &s->ents[s->nents - 1];
	struct bale_errbuf err;
	size_t at = s->names.len;

	bale_buf_zeros(&s->names, (size_t)size + 1);
	if (s->names.failed)
		return bale_walk_nomem(s->w);
	if (bale_tar_stream_read(ts, (unsigned char *)s->names.data + at,
	    (size_t)size, &err) != BALE_OK) {
		s->names.len = at;
		return BALE_OK;
	}
	s->names.data[at + size] = '\0';
	e->data = at + 1;
	return BALE_OK;
}

static int stream_keep(void *ctx, struct bale_tar_stream *ts,
    const struct bale_stream_member *m)
{
	struct stream_list *l = ctx;
	struct arc_scan *s = l->s;
	enum walk_member_kind kind = bale_arc_tar_kind(m->kind);
	int rc;

	(void)ts;
	if (m->damage)
		return stream_note_damage(l, m->damage);
	if (!m->outer)
		l->tar = 0;
	rc = bale_arc_keep_entry(s, m->name, kind, m->ordinal, m->size);
	if (rc != BALE_OK)
		return rc;
	if (m->outer)
		s->ents[s->nents - 1].inner_of = l->tar;
	else if (kind == WALK_FILE && bale_walk_is_archive_name(m->name))
		l->tar = s->nents;
	if (!m->outer && kind == WALK_FILE &&
	    bale_walk_wds_keeps_text(m->name, m->size))
		return stream_keep_text(s, ts, m->size);
	return BALE_OK;
}

/* Listing fails with BALE_EINPUT (nothing listed) when libarchive does
 * not read the file as a compressed tar: the last archive kind tried,
 * so the file is no archive bale reads. */
static int compressed_tar_list(struct arc_scan *s, uint64_t size,
    const char *path)
{
	struct stream_list l = { s, 0 };
	struct bale_errbuf err;
	uint64_t met = 0;
	int rc;

	(void)size;
	rc = bale_tar_stream_scan(s->fd, stream_keep, &l, &met, &err);
	if (rc != BALE_OK && s->w->err.rc)	/* a callback failed */
		return rc;
	if (rc == BALE_EINPUT && met == 0)
		return bale_errbuf_set(&s->w->err, BALE_EINPUT, "walk: '%s' "
		    "is not a tar, compressed tar or zip archive (%s)", path,
		    err.msg);
	if (rc != BALE_OK && met == 0)
		return bale_errbuf_copy(&s->w->err, &err);
	if (rc != BALE_OK) {
		rc = bale_arc_damaged(s->w, path, rc, 1, &err);
		if (rc != BALE_OK)
			return rc;
	}
	return bale_arc_take_entries(s);
}

/* Whatever is not a plain tar or zip may be a compressed tar: only
 * libarchive's listing can tell. */
static int compressed_tar_sniff(int fd, uint64_t size,
    const unsigned char *head, size_t n)
{
	(void)fd;
	(void)size;
	(void)head;
	(void)n;
	return 1;
}

const struct bale_source_kind bale_source_compressed_tar = {
	.name = "compressed_tar",
	.what = "a compressed tar",
	.caps = BALE_SOURCE_LISTABLE | BALE_SOURCE_STREAMED |
	    BALE_SOURCE_COMPRESSED,
	.probe = bale_source_archive_probe,
	.scan = bale_source_archives_scan,
	.sniff = compressed_tar_sniff,
	.list = compressed_tar_list,
	.read = NULL,	/* members come from the feed */
};
