/* source_tar.c - a tar (or a tar of per-class tars) as the source:
 * listed by one scan of its headers, its members left in place and read
 * with pread at their offsets. */
#include "source.h"

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

static int tar_list(struct arc_scan *s, uint64_t size, const char *path)
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

static int tar_read(struct bale_input *in, unsigned char *buf)
{
	return bale_input_pread_member(in, buf, in->size, in->member.offset);
}

const struct bale_source_kind bale_source_tar = {
	.name = "tar",
	.what = "a tar archive",
	.caps = BALE_SOURCE_LISTABLE | BALE_SOURCE_RANDOM,
	.probe = bale_source_archive_probe,
	.scan = bale_source_archives_scan,
	.sniff = tar_sniff,
	.list = tar_list,
	.read = tar_read,
};
