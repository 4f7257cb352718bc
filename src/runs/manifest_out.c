/* manifest_out.c - NAME-manifest.jsonl written a line at a time, or
 * from a manifest held whole (manifest.h). */
#include "manifest.h"

#include "walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MANIFEST_FLUSH (1 << 20)

static void manifest_flush(struct bale_manifest_out *out)
{
	if (!out->err && out->buf.failed)
		out->err = ENOMEM;
	if (!out->err && bale_file_write_all(out->fd, out->buf.data,
	    out->buf.len) != 0)
		out->err = errno ? errno : EIO;
	bale_buf_reset(&out->buf);
}

static void manifest_put_head(struct bale_buf *b,
    const struct bale_manifest *m)
{
	bale_buf_puts(b, "{");
	bale_json_kv_u64(b, "bale_manifest", 1, 1);
	bale_json_kv_u64(b, "version", m->version, 0);
	bale_json_kv_u64(b, "next_key", m->next_key, 0);
	bale_json_kv_u64(b, "count", m->count, 0);
	bale_json_kv_str(b, "order", "path", 0);
	bale_json_kv_str(b, "formats", m->formats, 0);
	bale_json_kv_str(b, "settings", m->settings, 0);
	bale_json_key(b, "classes", 0);
	bale_json_str_array(b, (const char *const *)m->classes, m->nclasses);
	bale_buf_puts(b, "}\n");
}

static void manifest_put_skips(struct bale_buf *b,
    const struct bale_manifest *m)
{
	size_t i;

	for (i = 0; i < m->nskip; i++) {
		bale_buf_puts(b, "{");
		bale_json_kv_str(b, "skipped", bale_manifest_skip_why(m, i),
		    1);
		bale_json_kv_u64(b, "size", m->skip[i].size, 0);
		bale_json_kv_u64(b, "ctime_ns", (uint64_t)m->skip[i].ctime_ns,
		    0);
		bale_json_kv_str(b, "path", bale_manifest_skip_path(m, i), 0);
		bale_buf_puts(b, "}\n");
	}
}

int bale_manifest_begin(struct bale_manifest_out *out,
    const struct bale_manifest *head, const char *path)
{
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	out->path = bale_strfmt("%s%s", path, BALE_PARTIAL);
	if (!out->path) {
		errno = ENOMEM;
		return -1;
	}
	out->fd = open(out->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644);
	if (out->fd < 0) {
		free(out->path);
		out->path = NULL;
		return -1;
	}
	manifest_put_head(&out->buf, head);
	manifest_put_skips(&out->buf, head);
	return 0;
}

void bale_manifest_put(struct bale_manifest_out *out, uint64_t key,
    int64_t label, uint64_t size, int64_t mtime_ns, const char *path)
{
	struct bale_buf *b = &out->buf;

	bale_buf_puts(b, "{");
	bale_json_kv_u64(b, "key", key, 1);
	if (label == BALE_LABEL_NONE) {	/* an unlabelled sample's */
		bale_json_key(b, "label", 0);
		bale_buf_puts(b, "-1");
	} else {
		bale_json_kv_u64(b, "label", (uint64_t)label, 0);
	}
	bale_json_kv_u64(b, "size", size, 0);
	bale_json_kv_u64(b, "mtime_ns", (uint64_t)mtime_ns, 0);
	bale_json_kv_str(b, "path", path, 0);
	bale_buf_puts(b, "}\n");
	if (b->len >= MANIFEST_FLUSH || b->failed)
		manifest_flush(out);
}

void bale_manifest_abandon(struct bale_manifest_out *out)
{
	if (out->fd >= 0) {
		close(out->fd);
		unlink(out->path);
	}
	free(out->path);
	bale_buf_release(&out->buf);
	out->fd = -1;
	out->path = NULL;
}

int bale_manifest_end(struct bale_manifest_out *out)
{
	int rc;

	manifest_flush(out);
	if (!out->err && close(out->fd) != 0)
		out->err = errno;
	else if (!out->err)
		out->fd = -1;
	rc = out->err;
	bale_manifest_abandon(out);	/* a partial file only on failure */
	errno = rc;
	return rc ? -1 : 0;
}
