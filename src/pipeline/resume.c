/* resume.c - fingerprint a run, open its writers from a journal, follow
 * their checkpoints. */
#include "resume.h"

#include "hash.h"

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return bale_fnv1a(h, s ? s : "", (s ? strlen(s) : 0) + 1);
}

uint64_t bale_resume_content(const struct bale_walk *walk,
    const struct bale_order *order, size_t n)
{
	struct bale_walk_cursor c;	/* steps when in walk order */
	uint64_t h = bale_fnv1a(BALE_FNV_INIT, &n, sizeof(n));
	const char *path;
	int64_t label;
	size_t i;

	bale_walk_cursor_init(&c, walk);
	for (i = 0; i < n; i++) {
		label = bale_walk_cursor_label(&c, bale_order_at(order, i));
		path = bale_walk_cursor_path(&c, bale_order_at(order, i));
		/* without memory the print matches no run's: no resume */
		h = fnv_str(h, path ? path : "\n(no memory)");
		h = bale_fnv1a(h, &label, sizeof(label));
	}
	bale_walk_cursor_release(&c);
	return h;
}

void bale_resume_fingerprint(const struct bale_pack_opts *o,
    const struct bale_walk *walk, uint64_t content, int with_part,
    char out[17])
{
	struct bale_buf enc = BALE_BUF_INIT;
	uint64_t h = BALE_FNV_INIT;
	const char *const *classes = bale_walk_classes(walk);
	size_t i;

	h = fnv_str(h, bale_version());
	h = fnv_str(h, o->formats);
	h = fnv_str(h, o->name ? o->name : "data");
	h = bale_fnv1a(h, &o->validate, sizeof(o->validate));
	if (with_part) {
		h = bale_fnv1a(h, &o->part_index, sizeof(o->part_index));
		h = bale_fnv1a(h, &o->part_count, sizeof(o->part_count));
	}
	for (i = 0; o->options && o->options[i]; i++)
		h = fnv_str(h, o->options[i]);
	bale_report_encode(&enc, o->encode);
	h = fnv_str(h, enc.failed ? "?" : enc.data);
	bale_buf_release(&enc);
	for (i = 0; i < bale_walk_nclasses(walk); i++)
		h = fnv_str(h, classes[i]);
	h = bale_fnv1a(h, &content, sizeof(content));
	snprintf(out, 17, "%016" PRIx64, h);
}

static const struct bale_journal_writer *resume_entry(
    const struct bale_journal *j, const char *name)
{
	size_t i;

	for (i = 0; i < j->nwriters; i++)
		if (strcmp(j->writers[i].name, name) == 0)
			return &j->writers[i];
	return NULL;
}

/* Open writer @w from its journal entry @e (or fresh, without one). */
static int resume_one(struct bale_writer *w, const char *dir,
    const struct bale_dataset *ds, const struct bale_journal_writer *e,
    struct bale_resume *rs, struct bale_report *report)
{
	int rc;

	if (e) {
		rs->next = e->next;
		rs->state = e->state;
	}
	rc = bale_writer_resume(w, dir, ds, rs);
	if (rc == BALE_OK && rs->note[0] &&
	    bale_report_add(report, BALE_NOTE_WARNING, bale_writer_name(w),
	    rs->note) != 0)
		return BALE_ENOMEM;
	return rc;
}

/* Keep the skipped inputs before @first; later ones will be met again. */
static int resume_keep_skipped(struct bale_journal *old,
    struct bale_journal *j, uint64_t first, struct bale_report *report)
{
	struct bale_journal_skip *s;
	size_t i;

	for (i = 0; i < old->nskipped; i++) {
		s = &old->skipped[i];
		if (s->pos >= first)
			continue;
		if (bale_journal_skip(j, s->pos, s->path, s->why) != 0 ||
		    bale_report_add(report, BALE_NOTE_SKIPPED, s->path,
		    s->why) != 0)
			return BALE_ENOMEM;
	}
	return BALE_OK;
}

/* Start @j afresh with one entry per writer. */
static int resume_fresh_entries(struct bale_journal *j,
    struct bale_writer *const *w, const struct bale_resume *rs, size_t n)
{
	const char *state;
	uint64_t next;
	size_t i;

	for (i = 0; i < n; i++) {
		bale_writer_checkpoint(w[i], &next, &state);
		j->writers[i].name = strdup(bale_writer_name(w[i]));
		j->writers[i].next = rs[i].complete ? UINT64_MAX : next;
		j->writers[i].state = state ? strdup(state) : NULL;
		if (!j->writers[i].name || (state && !j->writers[i].state))
			return BALE_ENOMEM;
		j->nwriters++;
	}
	return BALE_OK;
}

int bale_resume_open(struct bale_writer *const *w, size_t n, int resume,
    const char *dir, const struct bale_dataset *ds, struct bale_journal *j,
    uint64_t *first, struct bale_report *report, struct bale_errbuf *err)
{
	struct bale_resume rs[BALE_JOURNAL_MAX_WRITERS];
	struct bale_journal old = *j;
	size_t i;
	int rc = BALE_OK;

	memset(j, 0, sizeof(*j));
	memcpy(j->fingerprint, old.fingerprint, sizeof(j->fingerprint));
	*first = UINT64_MAX;
	for (i = 0; i < n && rc == BALE_OK; i++) {
		memset(&rs[i], 0, sizeof(rs[i]));
		if (resume)
			rc = resume_one(w[i], dir, ds, resume_entry(&old,
			    bale_writer_name(w[i])), &rs[i], report);
		else
			rc = bale_writer_open(w[i], dir, ds);
		if (rc != BALE_OK && rc != BALE_ENOMEM)
			rc = bale_errbuf_set(err, rc, "%s",
			    bale_writer_errmsg(w[i]));
		if (rc == BALE_OK && !rs[i].complete && rs[i].next < *first)
			*first = rs[i].next;
	}
	if (*first == UINT64_MAX)	/* every output was published */
		*first = ds->nitems;
	if (rc == BALE_OK)
		rc = resume_fresh_entries(j, w, rs, n);
	if (rc == BALE_OK)
		rc = resume_keep_skipped(&old, j, *first, report);
	bale_journal_release(&old);
	if (rc == BALE_ENOMEM)
		bale_errbuf_set(err, rc, "no memory");
	return rc;
}

int bale_resume_follow(struct bale_journal *j, struct bale_writer *const *w,
    size_t n)
{
	struct bale_journal_writer *e;
	const char *state;
	uint64_t next;
	char *copy;
	int moved = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!bale_writer_checkpoint(w[i], &next, &state))
			continue;
		e = &j->writers[i];
		copy = state ? strdup(state) : NULL;
		if (state && !copy)
			continue;	/* the journal keeps the older one */
		free(e->state);
		e->state = copy;
		e->next = next;
		moved = 1;
	}
	return moved;
}
