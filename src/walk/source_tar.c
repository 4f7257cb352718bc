/* source_tar.c - a tar (or a tar of per-class tars) as the source:
 * listed by a scan of its headers, its members left in place and read
 * at their offsets. */
#include "kind.h"

#include "bale.h"
#include "bale_store.h"
#include "input.h"
#include "spill_records.h"
#include "tar_scan.h"
#include "varint.h"
#include "walk_arc.h"

#include <errno.h>
#include <string.h>

static int tar_sniff(int fd, uint64_t size, const unsigned char *head,
    size_t n)
{
	(void)fd;
	(void)size;
	return n >= BALE_TAR_BLOCK && bale_tar_is_header(head);
}

/* What a first scan of the headers tells: whether the tar must be
 * listed whole before a member is taken (WebDataset shards group their
 * members, a tar of tars is told by all of its), and if not, where it
 * breaks off. An object in a store is not scanned again (the scan reads
 * all of it): its members are spilled as the survey meets them (the
 * data offset, size, type and name) and read back. */
struct tar_survey {
	struct arc_scan *s;
	uint64_t files;
	int labels;		/* KEY.cls members: WebDataset */
	int images;		/* images: not a tar of tars */
	int tars;
	int spilling;
	struct bale_spill spill;
	struct bale_buf rec;
};

/* Member @m into the survey's spill: varints of its offset, size and
 * kind, its type, its name with its NUL. */
static int tar_spill(struct tar_survey *v, const struct bale_tar_member *m)
{
	struct bale_buf *r = &v->rec;

	bale_buf_reset(r);
	bale_varint_put(r, m->offset);
	bale_varint_put(r, m->size);
	bale_varint_put(r, (uint64_t)m->kind);
	bale_buf_add(r, &m->type, 1);
	bale_buf_add(r, m->name, strlen(m->name) + 1);
	if (r->failed)
		return bale_walk_nomem(v->s->w);
	bale_spill_record(&v->spill, r->data, r->len);
	return v->spill.failed ? bale_walk_spill_failed(v->s->w, &v->spill, 0,
	    v->spill.err) : BALE_OK;
}

static int tar_survey_one(void *ctx, const struct bale_tar_member *m)
{
	struct tar_survey *v = ctx;

	if (bale_walk_stopped(v->s->w))
		return BALE_EINTR;
	v->files++;
	if (m->kind == BALE_TAR_FILE) {
		v->labels |= bale_walk_wds_is_label(m->name);
		v->images |= bale_walk_is_image(m->name);
		v->tars |= bale_tar_is_tar_name(m->name);
	}
	return v->spilling ? tar_spill(v, m) : BALE_OK;
}

/* bale_tar_scan callback: remember the member (outer tar). */
static int tar_keep(void *ctx, const struct bale_tar_member *m)
{
	struct arc_scan *s = ctx;
	int rc = bale_arc_keep_entry(s, m->name, bale_arc_tar_kind(m->kind),
	    m->offset, m->size);

	if (rc == BALE_OK)
		s->ents[s->nents - 1].type = m->type;
	return rc;
}

/* bale_tar_scan callback: take the member as it comes. */
static int tar_take(void *ctx, const struct bale_tar_member *m)
{
	return bale_arc_take_member(ctx, m->name, bale_arc_tar_kind(m->kind),
	    m->type, m->offset, m->size);
}

/* A replay of the survey's spill: each member to fn (tar_keep or
 * tar_take). */
struct tar_replaying {
	struct arc_scan *s;
	bale_tar_member_fn fn;
};

static int tar_replay_one(void *ctx, const unsigned char *p, size_t n)
{
	struct tar_replaying *r = ctx;
	struct bale_tar_member m;

	(void)n;
	m.offset = bale_varint_get(&p);
	m.size = bale_varint_get(&p);
	m.kind = (enum bale_tar_kind)bale_varint_get(&p);
	m.type = (char)*p++;
	m.name = (const char *)p;
	return r->fn(r->s, &m);
}

/* Each member the survey spilled, to @fn, as a second scan would. */
static int tar_replay(struct tar_survey *v, bale_tar_member_fn fn)
{
	struct tar_replaying r = { v->s, fn };
	int rc = bale_spill_replay(&v->spill, &v->rec, tar_replay_one, &r);

	return rc == 1 ? bale_walk_spill_failed(v->s->w, &v->spill, 1, errno) :
	    rc;
}

/* The survey's members to @fn (a scan of the tar again, or its spill),
 * and how that scan ended into @err. */
static int tar_again(struct tar_survey *v, uint64_t size,
    bale_tar_member_fn fn, int survey_rc, const struct bale_errbuf *survey,
    struct bale_errbuf *err)
{
	int rc;

	if (!v->spilling)
		return bale_tar_scan(v->s->fd, 0, size, fn, v->s, err);
	rc = tar_replay(v, fn);
	if (rc == BALE_OK && survey_rc != BALE_OK) {
		*err = *survey;
		rc = survey_rc;
	}
	return rc;
}

/* A tar listed whole, then taken: a WebDataset shard, a tar of tars. */
static int tar_list_whole(struct tar_survey *v, uint64_t size,
    const char *path, int survey_rc, const struct bale_errbuf *survey)
{
	struct arc_scan *s = v->s;
	struct bale_errbuf err;
	int rc;

	rc = tar_again(v, size, tar_keep, survey_rc, survey, &err);
	if (rc != BALE_OK && s->w->err.rc)	/* a callback failed */
		return rc;
	if (rc != BALE_OK) {
		rc = bale_arc_damaged(s->w, path, rc, s->nents > 0, &err);
		if (rc != BALE_OK)
			return rc;
	}
	return bale_arc_take_entries(s);
}

/* An ImageFolder tar: surveyed, then each member taken as the second
 * scan meets it, so no list of them all is kept (ten million members
 * would take a GiB). Damage is noted before the members, as when the
 * tar is listed whole. */
static int tar_list_surveyed(struct tar_survey *v, uint64_t size,
    const char *path)
{
	struct arc_scan *s = v->s;
	struct bale_errbuf err, again;
	int damaged;
	int rc;

	rc = bale_tar_scan(s->fd, 0, size, tar_survey_one, v, &err);
	if (rc != BALE_OK && s->w->err.rc)
		return rc;
	if (v->labels || (v->tars && !v->images))
		return tar_list_whole(v, size, path, rc, &err);
	damaged = rc != BALE_OK;
	if (damaged) {
		rc = bale_arc_damaged(s->w, path, rc, v->files > 0, &err);
		if (rc != BALE_OK)
			return rc;
	}
	rc = tar_again(v, size, tar_take, damaged ? BALE_EINPUT : BALE_OK,
	    &err, &again);
	if (rc == BALE_OK || s->w->err.rc)	/* done, or a callback failed */
		return rc;
	if (rc == BALE_EINPUT && damaged)	/* noted already */
		return BALE_OK;
	return bale_arc_damaged(s->w, path, rc, v->files > 0, &again);
}

static int tar_list(struct arc_scan *s, uint64_t size, const char *path)
{
	struct tar_survey v;
	int rc;

	memset(&v, 0, sizeof(v));
	v.s = s;
	if (s->wds)
		return tar_list_whole(&v, size, path, BALE_OK, NULL);
	v.spilling = bale_store_fd_remote(s->fd);
	if (v.spilling && bale_spill_init(&v.spill, bale_walk_tmpdir()) != 0)
		return bale_walk_nomem(s->w);
	rc = tar_list_surveyed(&v, size, path);
	if (v.spilling)
		bale_spill_release(&v.spill);
	bale_buf_release(&v.rec);
	return rc;
}

const struct bale_source_kind bale_source_tar = {
	.name = "tar",
	.what = "a tar archive",
	.caps = BALE_SOURCE_LISTABLE | BALE_SOURCE_RANDOM,
	.probe = bale_source_archive_probe,
	.scan = bale_source_archives_scan,
	.sniff = tar_sniff,
	.list = tar_list,
	.read = bale_input_read_stored,
};
