/* source_compressed_tar.c - a compressed tar (gzip, zstd, xz, ... as
 * libarchive reads them) as the source: listed in one pass of
 * decompression, the data skipped. Its members are named by their
 * ordinals in the stream, and the pipeline's stream feeder
 * (stream_feed.c) reads them on its passes, front to back.
 *
 * An ImageFolder archive's members wait in a spill (an unlinked file in
 * $TMPDIR, some 10 bytes and the name a member) until the pass ends, and
 * are then taken one by one, sorted past memory as a plain tar's are:
 * a list of ten million members would take a GiB. A WebDataset label or
 * an inner tar turns the listing whole, in memory (the spill read back
 * into it): shards group their members, and a tar of tars is told by
 * all of its, as bale_arc_take_entries() does it. A second pass to tell
 * them first, as a plain tar's survey does, would cost as much time
 * again. */
#include "kind.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "spill_records.h"
#include "tar_stream.h"
#include "walk_arc.h"

#include <errno.h>
#include <string.h>

struct stream_list {
	struct arc_scan *s;
	size_t tar;		/* 1 + index of the inner tar being listed */
	int whole;		/* listed into s->ents, not spilled */
	struct bale_spill spill;
	struct bale_buf rec;	/* the member being spilled */
};

/* A spilled member, read back. */
struct spilled {
	uint64_t ordinal;
	uint64_t size;
	enum walk_member_kind kind;
	const char *name;
	const unsigned char *text;	/* kept bytes, or NULL */
	size_t ntext;
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

/* Keep @n bytes @p of the member just listed (a WebDataset label or
 * JSON): the names buffer holds them, NUL-terminated. */
static int stream_keep_bytes(struct arc_scan *s, const void *p, size_t n)
{
	size_t at = s->names.len;

	bale_buf_add(&s->names, p, n);
	bale_buf_add(&s->names, "", 1);
	if (s->names.failed)
		return bale_walk_nomem(s->w);
	s->ents[s->nents - 1].data = at + 1;
	return BALE_OK;
}

/* Read the current member's @size bytes to the end of @b; one that
 * cannot be read is not kept (the damage is met again when the stream
 * is). @return 1 if kept, 0 if not, -1 without memory */
static int stream_read_text(struct bale_tar_stream *ts, struct bale_buf *b,
    uint64_t size)
{
	struct bale_errbuf err;
	size_t at = b->len;

	bale_buf_zeros(b, (size_t)size);
	if (b->failed)
		return -1;
	if (bale_tar_stream_read(ts, (unsigned char *)b->data + at,
	    (size_t)size, &err) == BALE_OK)
		return 1;
	b->len = at;
	return 0;
}

/* Keep the bytes of the member just listed, read from the stream. */
static int stream_keep_text(struct stream_list *l, struct bale_tar_stream *ts,
    uint64_t size)
{
	int kept;

	bale_buf_reset(&l->rec);
	kept = stream_read_text(ts, &l->rec, size);
	if (kept < 0)
		return bale_walk_nomem(l->s->w);
	return kept ? stream_keep_bytes(l->s, l->rec.data, l->rec.len) :
	    BALE_OK;
}

/* Member @m into the spill: the record's length, then varints of its
 * ordinal, size and kind, its name with its NUL, 1 + the length of its
 * kept bytes (0: none) and those bytes. */
static int stream_spill(struct stream_list *l, struct bale_tar_stream *ts,
    const struct bale_stream_member *m, enum walk_member_kind kind)
{
	struct bale_buf *r = &l->rec;
	int kept = 0;
	size_t at;

	bale_buf_reset(r);
	bale_varint_put(r, m->ordinal);
	bale_varint_put(r, m->size);
	bale_varint_put(r, (uint64_t)kind);
	bale_buf_add(r, m->name, strlen(m->name) + 1);
	at = r->len;
	if (kind == WALK_FILE && bale_walk_wds_keeps_text(m->name, m->size)) {
		bale_varint_put(r, m->size + 1);
		kept = stream_read_text(ts, r, m->size);
	}
	if (kept <= 0) {
		r->len = at;
		bale_varint_put(r, 0);
	}
	if (kept < 0 || r->failed)
		return bale_walk_nomem(l->s->w);
	bale_spill_record(&l->spill, r->data, r->len);
	return l->spill.failed ? bale_walk_spill_failed(l->s->w, &l->spill, 0,
	    l->spill.err) : BALE_OK;
}

/* Spilled record @p (its body, after its length) into @m. */
static void replay_decode(const unsigned char *p, struct spilled *m)
{
	uint64_t ntext;

	m->ordinal = bale_varint_get(&p);
	m->size = bale_varint_get(&p);
	m->kind = (enum walk_member_kind)bale_varint_get(&p);
	m->name = (const char *)p;
	p += strlen(m->name) + 1;
	ntext = bale_varint_get(&p);
	m->text = ntext ? p : NULL;
	m->ntext = ntext ? (size_t)ntext - 1 : 0;
}

/* A replay of the spill: each member to fn. */
struct stream_replaying {
	struct stream_list *l;
	int (*fn)(struct stream_list *, const struct spilled *);
};

static int stream_replay_one(void *ctx, const unsigned char *rec, size_t n)
{
	struct stream_replaying *r = ctx;
	struct spilled m;

	(void)n;
	replay_decode(rec, &m);
	return r->fn(r->l, &m);
}

/* Read back the spill, record by record, through @buf: each goes to
 * @fn. */
static int stream_replay(struct stream_list *l, struct bale_buf *buf,
    int (*fn)(struct stream_list *, const struct spilled *))
{
	struct stream_replaying r = { l, fn };
	int rc = bale_spill_replay(&l->spill, buf, stream_replay_one, &r);

	return rc == 1 ? bale_walk_spill_failed(l->s->w, &l->spill, 1, errno) :
	    rc;
}

/* stream_replay: list a spilled member, as the pass would have. */
static int stream_keep_spilled(struct stream_list *l, const struct spilled *m)
{
	int rc = bale_arc_keep_entry(l->s, m->name, m->kind, m->ordinal,
	    m->size);

	if (rc == BALE_OK && m->text)
		rc = stream_keep_bytes(l->s, m->text, m->ntext);
	return rc;
}

/* stream_replay: take a spilled member, as a whole list would. */
static int stream_take_spilled(struct stream_list *l, const struct spilled *m)
{
	return bale_arc_take_member(l->s, m->name, m->kind, 0, m->ordinal,
	    m->size);
}

/* A member that needs the whole list came: what was spilled is listed
 * first. */
static int stream_go_whole(struct stream_list *l)
{
	struct bale_buf buf;
	int rc;

	memset(&buf, 0, sizeof(buf));
	rc = stream_replay(l, &buf, stream_keep_spilled);
	bale_buf_release(&buf);
	bale_spill_release(&l->spill);
	l->whole = 1;
	return rc;
}

/* Does member @m need the whole list (see the top)? */
static int stream_needs_whole(const struct bale_stream_member *m,
    enum walk_member_kind kind)
{
	return m->outer || m->damage || (kind == WALK_FILE &&
	    (bale_walk_wds_is_label(m->name) ||
	    bale_tar_is_tar_name(m->name)));
}

static int stream_keep(void *ctx, struct bale_tar_stream *ts,
    const struct bale_stream_member *m)
{
	struct stream_list *l = ctx;
	struct arc_scan *s = l->s;
	enum walk_member_kind kind = bale_arc_tar_kind(m->kind);
	int rc;

	if (!l->whole && !stream_needs_whole(m, kind))
		return stream_spill(l, ts, m, kind);
	if (!l->whole && (rc = stream_go_whole(l)) != BALE_OK)
		return rc;
	if (m->damage)
		return stream_note_damage(l, m->damage);
	if (!m->outer)
		l->tar = 0;
	rc = bale_arc_keep_entry(s, m->name, kind, m->ordinal, m->size);
	if (rc != BALE_OK)
		return rc;
	if (m->outer)
		s->ents[s->nents - 1].inner_of = l->tar;
	else if (kind == WALK_FILE && bale_tar_is_tar_name(m->name))
		l->tar = s->nents;
	if (!m->outer && kind == WALK_FILE &&
	    bale_walk_wds_keeps_text(m->name, m->size))
		return stream_keep_text(l, ts, m->size);
	return BALE_OK;
}

/* Listing fails with BALE_EINPUT (nothing listed) when libarchive does
 * not read the file as a compressed tar: the last archive kind tried,
 * so the file is no archive bale reads. */
static int stream_pass(struct stream_list *l, const char *path)
{
	struct arc_scan *s = l->s;
	struct bale_errbuf err;
	uint64_t met = 0;
	int rc;

	rc = bale_tar_stream_scan(s->fd, stream_keep, l, &met, &err);
	if (rc != BALE_OK && s->w->err.rc)	/* a callback failed */
		return rc;
	if (rc == BALE_EINPUT && met == 0)
		return bale_errbuf_set(&s->w->err, BALE_EINPUT, "walk: '%s' "
		    "is not a tar, compressed tar or zip archive (%s)", path,
		    err.msg);
	if (rc != BALE_OK && met == 0)
		return bale_errbuf_copy(&s->w->err, &err);
	if (rc != BALE_OK)
		return bale_arc_damaged(s->w, path, rc, 1, &err);
	return BALE_OK;
}

static int compressed_tar_list(struct arc_scan *s, uint64_t size,
    const char *path)
{
	struct stream_list l;
	int rc;

	(void)size;
	memset(&l, 0, sizeof(l));
	l.s = s;
	l.whole = s->wds;
	rc = bale_spill_init(&l.spill, bale_walk_tmpdir()) ?
	    bale_walk_nomem(s->w) : stream_pass(&l, path);
	if (rc == BALE_OK)
		rc = l.whole ? bale_arc_take_entries(s) :
		    stream_replay(&l, &l.rec, stream_take_spilled);
	bale_spill_release(&l.spill);
	bale_buf_release(&l.rec);
	return rc;
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

/* The feed's pass: a compressed stream cannot skip a stretch. */
static int compressed_tar_pass(int fd, int arg, bale_stream_member_fn fn,
    bale_stream_wants_fn wants, void *ctx, uint64_t *met,
    struct bale_errbuf *err)
{
	(void)arg;
	(void)wants;
	return bale_tar_stream_scan(fd, fn, ctx, met, err);
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
	.stream = compressed_tar_pass,
};
