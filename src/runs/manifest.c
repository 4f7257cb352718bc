/* manifest.c - NAME-manifest.jsonl, read and written (manifest.h). */
#include "manifest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bale_manifest_add(struct bale_manifest *m, uint64_t key, int64_t label,
    uint64_t size, int64_t mtime_ns, const char *path)
{
	struct bale_manifest_entry *e;
	size_t at = m->arena.len;

	if (m->n == m->cap) {
		e = realloc(m->e, (m->cap ? 2 * m->cap : 1024) * sizeof(*e));
		if (!e)
			return -1;
		m->e = e;
		m->cap = m->cap ? 2 * m->cap : 1024;
	}
	bale_buf_add(&m->arena, path, strlen(path) + 1);
	if (m->arena.failed)
		return -1;
	e = &m->e[m->n++];
	e->key = key;
	e->label = label;
	e->size = size;
	e->mtime_ns = mtime_ns;
	e->path = at;
	return 0;
}

int bale_manifest_add_skip(struct bale_manifest *m, uint64_t size,
    int64_t ctime_ns, const char *path, const char *why)
{
	struct bale_manifest_skip *k;
	size_t at = m->arena.len;

	if (m->nskip == m->capskip) {
		k = realloc(m->skip, (m->capskip ? 2 * m->capskip : 16) *
		    sizeof(*k));
		if (!k)
			return -1;
		m->skip = k;
		m->capskip = m->capskip ? 2 * m->capskip : 16;
	}
	bale_buf_add(&m->arena, path, strlen(path) + 1);
	bale_buf_add(&m->arena, why, strlen(why) + 1);
	if (m->arena.failed)
		return -1;
	k = &m->skip[m->nskip++];
	k->size = size;
	k->ctime_ns = ctime_ns;
	k->path = at;
	k->why = at + strlen(path) + 1;
	return 0;
}

static int manifest_classes(struct bale_manifest *m, const char *s,
    const char *end)
{
	const char *vend, *cur, *e, *eend;
	const char *v = bale_jsonr_find(s, end, "classes", &vend);
	char **names;

	if (!v || *v != '[')
		return -1;
	for (cur = v; (e = bale_jsonr_next(&cur, vend, &eend));) {
		names = realloc(m->classes, (m->nclasses + 1) * sizeof(char *));
		if (!names)
			return -1;
		m->classes = names;
		if (!(m->classes[m->nclasses] = bale_jsonr_string(e, eend)))
			return -1;
		m->nclasses++;
	}
	return 0;
}

/* The first line: the dataset. */
static int manifest_head(struct bale_manifest *m, const char *s,
    const char *end)
{
	uint64_t kind;

	if (bale_jsonr_key_u64(s, end, "bale_manifest", &kind) || kind != 1 ||
	    bale_jsonr_key_u64(s, end, "version", &m->version) ||
	    bale_jsonr_key_u64(s, end, "next_key", &m->next_key))
		return -1;
	m->formats = bale_jsonr_key_string(s, end, "formats");
	m->settings = bale_jsonr_key_string(s, end, "settings");
	if (!m->formats || !m->settings)
		return -1;
	return manifest_classes(m, s, end);
}

/* A skipped file's line. */
static int manifest_skip_line(struct bale_manifest *m, const char *s,
    const char *end, char *path)
{
	uint64_t size, ctime;
	char *why = bale_jsonr_key_string(s, end, "skipped");
	int rc = -1;

	if (why && !bale_jsonr_key_u64(s, end, "size", &size) &&
	    !bale_jsonr_key_u64(s, end, "ctime_ns", &ctime))
		rc = bale_manifest_add_skip(m, size, (int64_t)ctime, path, why);
	free(why);
	free(path);
	return rc;
}

/* A sample's line, or a skipped file's. */
static int manifest_line(struct bale_manifest *m, const char *s,
    const char *end)
{
	uint64_t key, label, size, mtime;
	char *path = bale_jsonr_key_string(s, end, "path");
	const char *vend;
	int rc = -1;

	if (path && bale_jsonr_find(s, end, "skipped", &vend))
		return manifest_skip_line(m, s, end, path);
	if (path && !bale_jsonr_key_u64(s, end, "key", &key) &&
	    !bale_jsonr_key_u64(s, end, "label", &label) &&
	    !bale_jsonr_key_u64(s, end, "size", &size) &&
	    !bale_jsonr_key_u64(s, end, "mtime_ns", &mtime) &&
	    label < m->nclasses && key < m->next_key)
		rc = bale_manifest_add(m, key, (int64_t)label, size,
		    (int64_t)mtime, path);
	free(path);
	return rc;
}

int bale_manifest_read(struct bale_manifest *m, const char *path,
    struct bale_errbuf *err)
{
	size_t len = 0, line = 1;
	char *text = bale_file_read_all(path, &len);
	char *s, *nl, *end;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	if (!text && errno == ENOENT)
		return BALE_ENOENT;
	if (!text)
		return bale_errbuf_set(err, BALE_EIO, "cannot read '%s': %s",
		    path, strerror(errno));
	end = text + len;
	for (s = text; rc == 0 && s < end; s = nl + 1, line++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		rc = line == 1 ? manifest_head(m, s, nl) :
		    manifest_line(m, s, nl);
	}
	free(text);
	if (rc != 0 || line == 1)
		return bale_errbuf_set(err, BALE_EINVAL, "'%s' is not a "
		    "manifest bale wrote (line %zu)", path, line - 1);
	return BALE_OK;
}

static void manifest_put_head(const struct bale_manifest *m,
    struct bale_buf *b)
{
	bale_json_kv_u64(b, "bale_manifest", 1, 1);
	bale_json_kv_u64(b, "version", m->version, 0);
	bale_json_kv_u64(b, "next_key", m->next_key, 0);
	bale_json_kv_u64(b, "count", m->n, 0);
	bale_json_kv_str(b, "formats", m->formats, 0);
	bale_json_kv_str(b, "settings", m->settings, 0);
	bale_json_key(b, "classes", 0);
	bale_json_str_array(b, (const char *const *)m->classes, m->nclasses);
}

int bale_manifest_write(const struct bale_manifest *m, const char *path)
{
	struct bale_buf b = BALE_BUF_INIT;
	const struct bale_manifest_entry *e;
	size_t i;
	int rc;

	bale_buf_puts(&b, "{");
	manifest_put_head(m, &b);
	bale_buf_puts(&b, "}\n");
	for (i = 0; i < m->n; i++) {
		e = &m->e[i];
		bale_buf_puts(&b, "{");
		bale_json_kv_u64(&b, "key", e->key, 1);
		bale_json_kv_u64(&b, "label", (uint64_t)e->label, 0);
		bale_json_kv_u64(&b, "size", e->size, 0);
		bale_json_kv_u64(&b, "mtime_ns", (uint64_t)e->mtime_ns, 0);
		bale_json_kv_str(&b, "path", bale_manifest_path_of(m, i), 0);
		bale_buf_puts(&b, "}\n");
	}
	for (i = 0; i < m->nskip; i++) {
		bale_buf_puts(&b, "{");
		bale_json_kv_str(&b, "skipped", bale_manifest_skip_why(m, i),
		    1);
		bale_json_kv_u64(&b, "size", m->skip[i].size, 0);
		bale_json_kv_u64(&b, "ctime_ns", (uint64_t)m->skip[i].ctime_ns,
		    0);
		bale_json_kv_str(&b, "path", bale_manifest_skip_path(m, i), 0);
		bale_buf_puts(&b, "}\n");
	}
	if (b.failed) {
		bale_buf_release(&b);
		errno = ENOMEM;
		return -1;
	}
	rc = bale_file_write_atomic(path, b.data, b.len, 0);
	bale_buf_release(&b);
	return rc;
}

void bale_manifest_release(struct bale_manifest *m)
{
	size_t i;

	for (i = 0; i < m->nclasses; i++)
		free(m->classes[i]);
	free(m->classes);
	free(m->formats);
	free(m->settings);
	free(m->e);
	free(m->skip);
	bale_buf_release(&m->arena);
	memset(m, 0, sizeof(*m));
}
