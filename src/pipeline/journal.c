/* journal.c - read and write the resume journal (NAME-resume.json).
 *
 * {"bale_resume":1,"fingerprint":"...",
 *  "writers":[{"name":"wds","next":N,"state":{...}}, ...],
 *  "skipped":[{"pos":N,"path":"...","reason":"..."}, ...]}
 */
#include "journal.h"

#include "bale_store.h"

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


char *bale_journal_path(const char *dir, const char *name)
{
	return bale_strfmt("%s/%s-resume.json", dir, name);
}

int bale_journal_skip(struct bale_journal *j, uint64_t pos, const char *path,
    const char *why)
{
	struct bale_journal_skip *s;
	size_t cap;

	if (j->nskipped == j->capskipped) {
		cap = j->capskipped ? 2 * j->capskipped : 16;
		s = realloc(j->skipped, cap * sizeof(*s));
		if (!s)
			return -1;
		j->skipped = s;
		j->capskipped = cap;
	}
	s = &j->skipped[j->nskipped];
	s->pos = pos;
	s->path = strdup(path);
	s->why = strdup(why);
	if (!s->path || !s->why) {
		free(s->path);
		free(s->why);
		return -1;
	}
	j->nskipped++;
	return 0;
}

static void journal_render(const struct bale_journal *j, struct bale_buf *b)
{
	const struct bale_journal_writer *w;
	size_t i;

	bale_buf_puts(b, "{\"bale_resume\":1");
	bale_json_kv_str(b, "fingerprint", j->fingerprint, 0);
	bale_json_key(b, "writers", 0);
	bale_buf_puts(b, "[");
	for (i = 0; i < j->nwriters; i++) {
		w = &j->writers[i];
		bale_buf_puts(b, i ? ",\n{" : "\n{");
		bale_json_kv_str(b, "name", w->name, 1);
		bale_json_kv_u64(b, "next", w->next, 0);
		bale_json_key(b, "state", 0);
		bale_buf_puts(b, w->state ? w->state : "null");
		bale_buf_puts(b, "}");
	}
	bale_buf_puts(b, "],\"skipped\":[");
	for (i = 0; i < j->nskipped; i++) {
		bale_buf_puts(b, i ? ",\n{" : "\n{");
		bale_json_kv_u64(b, "pos", j->skipped[i].pos, 1);
		bale_json_kv_str(b, "path", j->skipped[i].path, 0);
		bale_json_kv_str(b, "reason", j->skipped[i].why, 0);
		bale_buf_puts(b, "}");
	}
	bale_buf_puts(b, "]}\n");
}

/* @b's bytes as the file at @path, whole: atomically on this machine,
 * in one PUT in an object store. */
static int journal_put(const char *path, const struct bale_buf *b, int sync,
    struct bale_errbuf *err)
{
	if (!bale_store_is_local(path))
		return bale_store_put(path, b->data, b->len, err);
	if (bale_file_write_atomic(path, b->data, b->len, sync) == 0)
		return BALE_OK;
	return bale_errbuf_set(err, BALE_EIO, "cannot write the resume "
	    "journal '%s': %s", path, strerror(errno));
}

int bale_journal_write(const struct bale_journal *j, const char *path,
    int sync, struct bale_errbuf *err)
{
	struct bale_buf b = BALE_BUF_INIT;
	int rc;

	journal_render(j, &b);
	rc = b.failed ? bale_errbuf_set(err, BALE_ENOMEM, "no memory") :
	    journal_put(path, &b, sync, err);
	bale_buf_release(&b);
	return rc;
}

/* A writer's entry: its name, checkpoint and state object (kept as
 * text: only the backend reads it). */
static int journal_read_writer(struct bale_journal *j, const char *e,
    const char *eend)
{
	struct bale_journal_writer *w = &j->writers[j->nwriters];
	const char *v;
	const char *vend;

	if (j->nwriters == BALE_JOURNAL_MAX_WRITERS)
		return -1;
	v = bale_jsonr_find(e, eend, "name", &vend);
	w->name = v ? bale_jsonr_string(v, vend) : NULL;
	v = bale_jsonr_find(e, eend, "next", &vend);
	if (!w->name || !v || bale_jsonr_u64(v, vend, &w->next) != 0)
		return -1;
	j->nwriters++;
	v = bale_jsonr_find(e, eend, "state", &vend);
	if (!v)
		return -1;
	if (*v != '{')
		return 0;
	w->state = bale_strfmt("%.*s", (int)(vend - v), v);
	return w->state ? 0 : -1;
}

static int journal_read_skip(struct bale_journal *j, const char *e,
    const char *eend)
{
	const char *v;
	const char *vend;
	char *path = NULL;
	char *why = NULL;
	uint64_t pos;
	int rc = -1;

	v = bale_jsonr_find(e, eend, "pos", &vend);
	if (!v || bale_jsonr_u64(v, vend, &pos) != 0)
		return -1;
	v = bale_jsonr_find(e, eend, "path", &vend);
	path = v ? bale_jsonr_string(v, vend) : NULL;
	v = bale_jsonr_find(e, eend, "reason", &vend);
	why = v ? bale_jsonr_string(v, vend) : NULL;
	if (path && why)
		rc = bale_journal_skip(j, pos, path, why);
	free(path);
	free(why);
	return rc;
}

static int journal_parse(struct bale_journal *j, const char *text,
    const char *end)
{
	const char *v;
	const char *vend;
	const char *cur;
	const char *e;
	const char *eend;
	char *fp;

	v = bale_jsonr_find(text, end, "fingerprint", &vend);
	fp = v ? bale_jsonr_string(v, vend) : NULL;
	if (!fp || strlen(fp) != 16) {
		free(fp);
		return -1;
	}
	memcpy(j->fingerprint, fp, 17);
	free(fp);
	cur = bale_jsonr_find(text, end, "writers", &vend);
	if (!cur)
		return -1;
	while ((e = bale_jsonr_next(&cur, vend, &eend)))
		if (journal_read_writer(j, e, eend) != 0)
			return -1;
	cur = bale_jsonr_find(text, end, "skipped", &vend);
	if (!cur)
		return -1;
	while ((e = bale_jsonr_next(&cur, vend, &eend)))
		if (journal_read_skip(j, e, eend) != 0)
			return -1;
	return 0;
}

int bale_journal_read(struct bale_journal *j, const char *path,
    struct bale_errbuf *err)
{
	char *text;
	size_t n;
	int rc;

	memset(j, 0, sizeof(*j));
	if (!bale_store_is_local(path)) {
		rc = bale_store_read_all(path, &text, &n, err);
		if (rc != BALE_OK)
			return rc;
	} else if (!(text = bale_file_read_all(path, &n))) {
		if (errno == ENOENT)
			return BALE_ENOENT;
		return bale_errbuf_set(err, BALE_EIO, "cannot read '%s': %s",
		    path, strerror(errno));
	}
	rc = journal_parse(j, text, text + n);
	free(text);
	if (rc == 0)
		return BALE_OK;
	bale_journal_release(j);
	return bale_errbuf_set(err, BALE_EINVAL, "'%s' is not a bale resume "
	    "journal", path);
}

void bale_journal_release(struct bale_journal *j)
{
	size_t i;

	for (i = 0; i < j->nwriters; i++) {
		free(j->writers[i].name);
		free(j->writers[i].state);
	}
	for (i = 0; i < j->nskipped; i++) {
		free(j->skipped[i].path);
		free(j->skipped[i].why);
	}
	free(j->skipped);
	memset(j, 0, sizeof(*j));
}
