/* source_tar.c - a tar (or a tar of per-class tars) as the source:
 * listed by one scan of its headers, its members left in place and read
 * with pread at their offsets. */
#include "kind.h"

#include "bale.h"
#include "input.h"
#include "tar_scan.h"
#include "walk_arc.h"

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
 * breaks off. */
struct tar_survey {
	struct arc_scan *s;
	uint64_t files;
	int labels;		/* KEY.cls members: WebDataset */
	int images;		/* images: not a tar of tars */
	int tars;
};

static int tar_survey_one(void *ctx, const struct bale_tar_member *m)
{
	struct tar_survey *v = ctx;

	if (bale_walk_stopped(v->s->w))
		return BALE_EINTR;
	v->files++;
	if (m->kind != BALE_TAR_FILE)
		return BALE_OK;
	v->labels |= bale_walk_wds_is_label(m->name);
	v->images |= bale_walk_is_image(m->name);
	v->tars |= bale_tar_is_tar_name(m->name);
	return BALE_OK;
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

/* A tar listed whole, then taken: a WebDataset shard, a tar of tars. */
static int tar_list_whole(struct arc_scan *s, uint64_t size,
    const char *path)
{
	struct bale_errbuf err;
	int rc;

	rc = bale_tar_scan(s->fd, 0, size, tar_keep, s, &err);
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
static int tar_list(struct arc_scan *s, uint64_t size, const char *path)
{
	struct tar_survey v = { s, 0, 0, 0, 0 };
	struct bale_errbuf err, again;
	int damaged;
	int rc;

	if (s->wds)
		return tar_list_whole(s, size, path);
	rc = bale_tar_scan(s->fd, 0, size, tar_survey_one, &v, &err);
	if (rc != BALE_OK && s->w->err.rc)
		return rc;
	if (v.labels || (v.tars && !v.images))
		return tar_list_whole(s, size, path);
	damaged = rc != BALE_OK;
	if (damaged) {
		rc = bale_arc_damaged(s->w, path, rc, v.files > 0, &err);
		if (rc != BALE_OK)
			return rc;
	}
	rc = bale_tar_scan(s->fd, 0, size, tar_take, s, &again);
	if (rc == BALE_OK || s->w->err.rc)	/* done, or a callback failed */
		return rc;
	if (rc == BALE_EINPUT && damaged)	/* noted already */
		return BALE_OK;
	return bale_arc_damaged(s->w, path, rc, v.files > 0, &again);
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
