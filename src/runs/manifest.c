/* manifest.c - NAME-manifest.jsonl, read whole or a line at a time
 * (manifest.h); manifest_out.c writes it. */
#include "manifest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bale_manifest_add_skip(struct bale_manifest *m, uint64_t size,
    int64_t ctime_ns, const char *path, const char *why)
{
	struct bale_manifest_skip *k;
	size_t at = m->arena.len;

	if (bale_grow_array((void **)&m->skip, &m->capskip, m->nskip + 1,
	    sizeof(*m->skip)) != 0)
		return -1;
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
	char *order;

	if (bale_jsonr_key_u64(s, end, "bale_manifest", &kind) || kind != 1 ||
	    bale_jsonr_key_u64(s, end, "version", &m->version) ||
	    bale_jsonr_key_u64(s, end, "next_key", &m->next_key))
		return -1;
	(void)bale_jsonr_key_u64(s, end, "count", &m->count);
	order = bale_jsonr_key_string(s, end, "order");
	m->path_order = order && strcmp(order, "path") == 0;
	free(order);
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
	return rc;
}

/* A sample's line as bale writes it ({"key":N,"label":N,"size":N,
 * "mtime_ns":N,"path":"..."}), its numbers into @v in one pass: the
 * path value's start, or NULL when the line has another form (read
 * then key by key). */
static const char *manifest_fast_fields(const char *s, const char *end,
    uint64_t v[4])
{
	static const char *const names[] = { "{\"key\":", ",\"label\":",
	    ",\"size\":", ",\"mtime_ns\":", ",\"path\":" };
	unsigned d;
	size_t i, n;

	for (i = 0; i < 5; i++) {
		n = strlen(names[i]);
		if ((size_t)(end - s) < n || memcmp(s, names[i], n) != 0)
			return NULL;
		s += n;
		if (i == 4)
			break;
		if (i == 1 && end - s >= 2 && s[0] == '-' && s[1] == '1') {
			v[i] = (uint64_t)BALE_LABEL_NONE;	/* no label */
			s += 2;
			continue;
		}
		if (s == end || *s < '0' || *s > '9')
			return NULL;
		for (v[i] = 0; s < end && *s >= '0' && *s <= '9'; s++) {
			d = (unsigned)(*s - '0');
			if (v[i] > (UINT64_MAX - d) / 10)
				return NULL;
			v[i] = v[i] * 10 + d;
		}
	}
	return end - s >= 3 && *s == '"' && end[-1] == '}' && end[-2] == '"' ?
	    s : NULL;
}

/* The label of a sample's line, read key by key into *@v: a class, or
 * -1 (BALE_LABEL_NONE as a u64). @return 0, or -1 when it has none */
static int manifest_label(const char *s, const char *end, uint64_t *v)
{
	const char *vend;
	const char *at = bale_jsonr_find(s, end, "label", &vend);

	if (at && vend - at == 2 && memcmp(at, "-1", 2) == 0) {
		*v = (uint64_t)BALE_LABEL_NONE;
		return 0;
	}
	return at && bale_jsonr_u64(at, vend, v) == 0 ? 0 : -1;
}

/* A sample's line into @e. @return its path (to free), or NULL when
 * the line is not a sample's */
static char *manifest_sample_line(const struct bale_manifest *m,
    const char *s, const char *end, struct bale_manifest_entry *e)
{
	uint64_t v[4];
	const char *path = manifest_fast_fields(s, end, v);

	if (!path && (bale_jsonr_key_u64(s, end, "key", &v[0]) ||
	    manifest_label(s, end, &v[1]) ||
	    bale_jsonr_key_u64(s, end, "size", &v[2]) ||
	    bale_jsonr_key_u64(s, end, "mtime_ns", &v[3])))
		return NULL;
	if ((v[1] >= m->nclasses && v[1] != (uint64_t)BALE_LABEL_NONE) ||
	    v[0] >= m->next_key)
		return NULL;
	e->key = v[0];
	e->label = (int64_t)v[1];
	e->size = v[2];
	e->mtime_ns = (int64_t)v[3];
	return path ? bale_jsonr_string(path, end - 1) :
	    bale_jsonr_key_string(s, end, "path");
}

static int manifest_bad(const struct bale_manifest_in *in,
    struct bale_errbuf *err)
{
	return bale_errbuf_set(err, BALE_EINVAL, "'%s' is not a manifest "
	    "bale wrote (line %zu)", in->name, in->lineno);
}

/* The next line, without its newline. @return its length, or -1 at the
 * end (or on a read error: ferror says) */
static ssize_t manifest_getline(struct bale_manifest_in *in)
{
	ssize_t n = getline(&in->line, &in->cap, in->f);

	if (n < 0)
		return -1;
	in->lineno++;
	if (n > 0 && in->line[n - 1] == '\n')
		in->line[--n] = '\0';
	return n;
}

/* Read lines up to the next sample's (left pending): skipped files
 * met on the way go into @head. @return 1 with a sample pending, 0 at
 * the end, or an error */
static int manifest_to_sample(struct bale_manifest_in *in,
    struct bale_manifest *head, struct bale_errbuf *err)
{
	const char *vend;
	char *path;
	ssize_t n;
	int rc;

	while (!in->pending && (n = manifest_getline(in)) >= 0) {
		/* bale puts "skipped" first: a sample's line says "key" */
		if (strncmp(in->line, "{\"key\":", 7) == 0 ||
		    !bale_jsonr_find(in->line, in->line + n, "skipped",
		    &vend)) {
			in->pending = 1;
			break;
		}
		path = bale_jsonr_key_string(in->line, in->line + n, "path");
		rc = path ? manifest_skip_line(head, in->line, in->line + n,
		    path) : -1;
		free(path);
		if (rc != 0)
			return manifest_bad(in, err);
	}
	if (ferror(in->f))
		return bale_errbuf_set(err, BALE_EIO, "cannot read '%s': %s",
		    in->name, strerror(errno));
	return in->pending;
}

int bale_manifest_open(struct bale_manifest_in *in,
    struct bale_manifest *head, const char *path, struct bale_errbuf *err)
{
	ssize_t n;
	int rc;

	memset(in, 0, sizeof(*in));
	memset(head, 0, sizeof(*head));
	in->name = path;
	in->f = fopen(path, "re");
	if (!in->f && errno == ENOENT)
		return BALE_ENOENT;
	if (!in->f)
		return bale_errbuf_set(err, BALE_EIO, "cannot read '%s': %s",
		    path, strerror(errno));
	n = manifest_getline(in);
	if (n < 0 || manifest_head(head, in->line, in->line + n) != 0)
		return manifest_bad(in, err);
	rc = manifest_to_sample(in, head, err);
	return rc < 0 ? rc : BALE_OK;
}

int bale_manifest_next(struct bale_manifest_in *in,
    struct bale_manifest *head, struct bale_manifest_entry *e,
    const char **path, struct bale_errbuf *err)
{
	char *p;
	size_t n;
	int rc = manifest_to_sample(in, head, err);

	if (rc <= 0)
		return rc;
	in->pending = 0;
	n = strlen(in->line);
	p = manifest_sample_line(head, in->line, in->line + n, e);
	if (!p)
		return manifest_bad(in, err);
	bale_buf_reset(&in->path);
	bale_buf_add(&in->path, p, strlen(p) + 1);
	free(p);
	if (in->path.failed)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	*path = in->path.data;
	return 1;
}

void bale_manifest_close(struct bale_manifest_in *in)
{
	if (in->f)
		fclose(in->f);
	free(in->line);
	bale_buf_release(&in->path);
	memset(in, 0, sizeof(*in));
}

int bale_manifest_each(const char *path, bale_manifest_sample_fn *fn,
    void *ctx, struct bale_errbuf *err)
{
	struct bale_manifest_in in;
	struct bale_manifest head;
	struct bale_manifest_entry e;
	const char *sample;
	uint64_t line = 0;
	int rc;

	memset(&in, 0, sizeof(in));
	memset(&head, 0, sizeof(head));
	rc = bale_manifest_open(&in, &head, path, err);
	while (rc == BALE_OK && (rc = bale_manifest_next(&in, &head, &e,
	    &sample, err)) == 1)
		rc = fn(ctx, line++, &e, sample);
	bale_manifest_close(&in);
	bale_manifest_release(&head);
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
	free(m->skip);
	bale_buf_release(&m->arena);
	memset(m, 0, sizeof(*m));
}
