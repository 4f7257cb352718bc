/* walk_archive.c - one archive or several as one dataset: each listed by
 * its kind (source_tar.c, source_zip.c, source_compressed_tar.c), and
 * what the tar kinds share: a tar of per-class tars, damage noted. */
#include "walk_arc.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "bale_store.h"
#include "kind.h"
#include "tar_scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum walk_member_kind bale_arc_tar_kind(enum bale_tar_kind k)
{
	switch (k) {
	case BALE_TAR_FILE: return WALK_FILE;
	case BALE_TAR_DIR: return WALK_DIR;
	case BALE_TAR_SYMLINK: return WALK_SYMLINK;
	case BALE_TAR_HARDLINK: return WALK_HARDLINK;
	case BALE_TAR_SPECIAL: return WALK_SPECIAL;
	default: return WALK_OTHER;
	}
}

int bale_arc_keep_entry(struct arc_scan *s, const char *name,
    enum walk_member_kind kind, uint64_t offset, uint64_t size)
{
	struct arc_entry *e;

	if (bale_walk_stopped(s->w))
		return BALE_EINTR;
	if (bale_grow_array((void **)&s->ents, &s->capents, s->nents + 1,
	    sizeof(*s->ents)) != 0)
		return bale_walk_nomem(s->w);
	e = &s->ents[s->nents++];
	memset(e, 0, sizeof(*e));
	e->name = s->names.len;
	bale_buf_puts(&s->names, name);
	bale_buf_add(&s->names, "", 1);
	e->kind = kind;
	e->offset = offset;
	e->size = size;
	return s->names.failed ? bale_walk_nomem(s->w) : BALE_OK;
}

int bale_arc_take_member(struct arc_scan *s, const char *name,
    enum walk_member_kind kind, char type, uint64_t offset, uint64_t size)
{
	struct walk_member m;

	memset(&m, 0, sizeof(m));
	m.name = name;
	m.prefix = s->prefix;
	m.nested = s->prefix != NULL;
	m.kind = kind;
	m.type = type;
	m.loc.kind = s->kind;
	m.loc.fd = s->fd;
	m.loc.method = BALE_WALK_STORED;
	m.loc.offset = offset;
	m.loc.size = size;
	m.loc.csize = size;
	return bale_walk_take_member(s->w, &m);
}

static int arc_take_entry(struct arc_scan *s, const struct arc_entry *e)
{
	return bale_arc_take_member(s, s->names.data + e->name, e->kind,
	    e->type, e->offset, e->size);
}

/* bale_tar_scan callback for an inner tar: take the member at once. */
static int arc_take_inner(void *ctx, const struct bale_tar_member *m)
{
	return bale_arc_take_member(ctx, m->name, bale_arc_tar_kind(m->kind),
	    m->type, m->offset, m->size);
}

/* A scan that stopped on damage keeps what it found before, noted. */
int bale_arc_damaged(struct bale_walk *w, const char *where, int rc,
    int found_any, struct bale_errbuf *err)
{
	char why[sizeof(err->msg) + 64];

	if (rc != BALE_EINPUT)
		return bale_errbuf_copy(&w->err, err);
	if (!found_any)
		return bale_errbuf_set(&w->err, BALE_EINPUT, "'%s': %s",
		    where, err->msg);
	snprintf(why, sizeof(why), "%s; nothing after it is read",
	    err->msg);
	if (!w->damaged++)
		w->first_damage = w->notes.n;
	return bale_walk_add_note(w, BALE_NOTE_SKIPPED, where, why);
}

/* An inner tar in place: scanned with pread where it lies. */
static int arc_scan_inner(struct arc_scan *s, const struct arc_entry *e,
    struct bale_errbuf *err)
{
	return bale_tar_scan(s->fd, e->offset, e->offset + e->size,
	    arc_take_inner, s, err);
}

/* A streamed inner tar: its members were listed with the outer ones. */
static int arc_take_listed_inner(struct arc_scan *s, size_t tar,
    struct bale_errbuf *err)
{
	const struct arc_entry *e = &s->ents[tar];
	size_t i;
	int rc = BALE_OK;

	for (i = tar + 1; rc == BALE_OK && i < s->nents &&
	    s->ents[i].inner_of == tar + 1; i++)
		rc = arc_take_entry(s, &s->ents[i]);
	if (rc != BALE_OK || !e->damage)
		return rc;
	return bale_errbuf_set(err, BALE_EINPUT, "%s",
	    s->names.data + e->damage - 1);
}

/* Each inner tar of a tar of tars is the class its file name says. */
static int arc_inner_tar(struct arc_scan *s, size_t tar)
{
	const char *name = s->names.data + s->ents[tar].name;
	const char *base = strrchr(name, '/');
	struct bale_errbuf err;
	char *class;
	size_t before = s->w->nadded + s->w->notes.n;
	int rc;

	base = base ? base + 1 : name;
	class = strndup(base, strlen(base) - 4);
	if (!class)
		return bale_walk_nomem(s->w);
	if (!*class || strcmp(class, ".") == 0 || strcmp(class, "..") == 0) {
		free(class);
		return bale_walk_add_note(s->w, BALE_NOTE_SKIPPED, name,
		    "an inner tar's name must name its class");
	}
	s->prefix = class;
	if (bale_source_streams(s->kind))
		rc = arc_take_listed_inner(s, tar, &err);
	else
		rc = arc_scan_inner(s, &s->ents[tar], &err);
	s->prefix = NULL;
	free(class);
	if (rc == BALE_OK || s->w->err.rc)	/* a callback failed */
		return rc;
	return bale_arc_damaged(s->w, name, rc,
	    s->w->nadded + s->w->notes.n > before, &err);
}

/* A tar of tars: tars among its files, and no image outside them. */
static int arc_is_tar_of_tars(const struct arc_scan *s)
{
	const char *name;
	int tars = 0;
	size_t i;

	for (i = 0; i < s->nents; i++) {
		if (s->ents[i].kind != WALK_FILE || s->ents[i].inner_of)
			continue;
		name = s->names.data + s->ents[i].name;
		if (bale_walk_is_image(name))
			return 0;
		tars += bale_tar_is_tar_name(name);
	}
	return tars > 0;
}

int bale_arc_take_entries(struct arc_scan *s)
{
	const struct arc_entry *e;
	int nested;
	size_t i;
	int rc = BALE_OK;

	if (s->wds || bale_walk_wds_is_shard(s)) {
		s->w->keyed = 1;
		return bale_walk_wds_take_entries(s);
	}
	nested = arc_is_tar_of_tars(s);
	for (i = 0; rc == BALE_OK && i < s->nents; i++) {
		e = &s->ents[i];
		if (e->inner_of)
			continue;	/* taken with its tar, if at all */
		if (!nested)
			rc = arc_take_entry(s, e);
		else if (e->kind == WALK_FILE && bale_tar_is_tar_name(
		    s->names.data + e->name))
			rc = arc_inner_tar(s, i);
		else if (e->kind != WALK_DIR)
			rc = bale_walk_add_note(s->w, BALE_NOTE_IGNORED,
			    s->names.data + e->name,
			    "not a class tar (in a tar of tars)");
	}
	return rc;
}

/* List the archive open at @s->fd by its kind, found from its first
 * bytes. */
static int arc_list(struct arc_scan *s, uint64_t size, const char *path)
{
	unsigned char head[1];
	struct bale_errbuf why;
	size_t got;

	s->kind = bale_source_archive_kind(s->w->kinds, s->fd, size);
	if (s->kind)
		return s->kind->list(s, size, path);
	/* no kind took it: say whether it could be read at all */
	if (bale_store_fd_scan(s->fd, head, sizeof(head), 0, &got, &why) !=
	    BALE_OK)
		return bale_errbuf_set(&s->w->err, why.rc,
		    "walk: cannot read '%s': %s", path, why.msg);
	return bale_errbuf_set(&s->w->err, BALE_EINPUT, "walk: '%s' "
	    "is not an archive bale reads", path);
}

/* Open @path and keep it open: the samples are read from it later. */
int bale_walk_open_file(struct bale_walk *w, const char *path, uint64_t *size)
{
	struct bale_errbuf why;
	int fd = bale_store_fd_open(path, size, &why);

	if (fd < 0)
		return bale_errbuf_set(&w->err, fd, "walk: %s", why.msg);
	if (bale_grow_array((void **)&w->archives, &w->caparchives,
	    w->narchives + 1, sizeof(int)) != 0) {
		bale_store_fd_close(fd);
		return bale_walk_nomem(w);
	}
	w->archives[w->narchives++] = fd;
	return BALE_OK;
}

/* List archive @path and take its members (as WebDataset samples when
 * @wds, or when it holds them); the walk is finished by the caller. */
static int arc_walk_one(struct bale_walk *w, const char *path, int wds)
{
	struct arc_scan s;
	uint64_t size = 0;
	int rc;

	rc = bale_walk_open_file(w, path, &size);
	if (rc != BALE_OK)
		return rc;
	memset(&s, 0, sizeof(s));
	s.w = w;
	s.fd = w->archives[w->narchives - 1];
	s.wds = wds;
	rc = arc_list(&s, size, path);
	free(s.ents);
	bale_buf_release(&s.names);
	return rc;
}

/* WebDataset samples keep their order; their classes are what the
 * samples said. A list file picks the samples itself. */
static int arc_finish(struct bale_walk *w, const char *src,
    const char *list)
{
	if (list && w->keyed)
		return bale_errbuf_set(&w->err, BALE_EINVAL, "walk: '%s' holds "
		    "WebDataset samples: a list file cannot select from them",
		    src);
	if (list)
		return bale_walk_list_members(w, list);
	return w->keyed ? bale_walk_wds_note_dropped(w) :
	    bale_walk_members_finish(w, src);
}

int bale_walk_archive(struct bale_walk *w, const char *path)
{
	return bale_walk_archives(w, &path, 1, NULL);
}

int bale_walk_archives(struct bale_walk *w, const char *const *paths,
    size_t n, const char *list)
{
	size_t i;
	int keyed = 0;
	int rc = BALE_OK;

	bale_errbuf_clear(&w->err);
	w->listed = list != NULL;
	if (list)
		rc = bale_walk_listed_start(w);
	for (i = 0; rc == BALE_OK && i < n; i++) {
		rc = arc_walk_one(w, paths[i], 0);
		if (i == 0)
			keyed = w->keyed;
		if (rc == BALE_OK && keyed != w->keyed)
			rc = bale_errbuf_set(&w->err, BALE_EINVAL, "walk: '%s' "
			    "and '%s': WebDataset shards and ImageFolder "
			    "archives cannot make one dataset", paths[0],
			    paths[i]);
		if (rc == BALE_OK && keyed && !list)
			rc = bale_walk_seal(w);	/* kept in their order */
	}
	if (rc == BALE_OK)
		rc = arc_finish(w, paths[0], list);
	return rc == BALE_OK ? bale_walk_seal_all(w) : rc;
}

int bale_walk_shards(struct bale_walk *w, const char *const *paths,
    size_t n)
{
	size_t i;
	int rc = BALE_OK;

	bale_errbuf_clear(&w->err);
	w->keyed = 1;
	for (i = 0; rc == BALE_OK && i < n; i++) {
		rc = arc_walk_one(w, paths[i], 1);
		if (rc == BALE_OK)	/* samples keep the shards' order: each
					 * shard's are sealed as it ends */
			rc = bale_walk_seal(w);
	}
	if (rc == BALE_OK)
		rc = bale_walk_wds_note_dropped(w);
	return rc == BALE_OK ? bale_walk_seal_all(w) : rc;
}

const struct bale_source_kind *bale_source_archive_kind(
    const struct bale_source_kind *const *kinds, int fd, uint64_t size)
{
	unsigned char head[BALE_TAR_BLOCK];
	struct bale_errbuf why;
	size_t i, n;

	if (bale_store_fd_scan(fd, head, sizeof(head), 0, &n, &why) !=
	    BALE_OK)
		return NULL;
	for (i = 0; kinds && kinds[i]; i++)
		if (kinds[i]->sniff && kinds[i]->sniff(fd, size, head, n))
			return kinds[i];
	return NULL;
}
