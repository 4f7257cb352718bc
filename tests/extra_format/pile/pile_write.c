/* pile_write.c - a pile written front to back into NAME.pile.partial,
 * its index kept in memory and written after the samples. */
#include "pile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pile_io(struct bale_writer *w, struct pile_w *st, const char *what)
{
	return bale_writer_seterr(w, BALE_EIO, "cannot %s '%s': %s",
	    what, st->tmp, strerror(errno));
}

static int pile_write(struct bale_writer *w, struct pile_w *st,
    const void *p, size_t n)
{
	if (bale_file_write_all(st->fd, p, n) != 0)
		return pile_io(w, st, "write");
	st->at += n;
	return BALE_OK;
}

static void pile_u32(struct bale_buf *b, uint32_t v)
{
	unsigned char le[4] = { (unsigned char)v, (unsigned char)(v >> 8),
	    (unsigned char)(v >> 16), (unsigned char)(v >> 24) };

	bale_buf_add(b, le, 4);
}

static void pile_u64(struct bale_buf *b, uint64_t v)
{
	unsigned char le[8];

	pile_put64(le, v);
	bale_buf_add(b, le, 8);
}

/* The head: the magic, then the class names as JSON. */
static int pile_head(struct bale_writer *w, struct pile_w *st,
    const struct bale_dataset *ds)
{
	struct bale_buf json = BALE_BUF_INIT;
	int rc;

	bale_buf_puts(&json, "{\"classes\":");
	bale_meta_classes(&json, ds);
	bale_buf_puts(&json, "}");
	bale_buf_reset(&st->rec);
	bale_buf_add(&st->rec, PILE_MAGIC, PILE_MAGIC_LEN);
	pile_u32(&st->rec, (uint32_t)json.len);
	bale_buf_add(&st->rec, json.data, json.len);
	rc = json.failed || st->rec.failed ? bale_writer_seterr(w,
	    BALE_ENOMEM, "no memory") : pile_write(w, st, st->rec.data,
	    st->rec.len);
	bale_buf_release(&json);
	return rc;
}

static int pile_open(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds)
{
	struct pile_w *st = priv;

	st->fd = -1;
	st->final = bale_strfmt("%s/%s.pile", dir, ds->name);
	st->tmp = bale_strfmt("%s/%s.pile%s", dir, ds->name, BALE_PARTIAL);
	if (!st->final || !st->tmp)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	if (access(st->final, F_OK) == 0 && !ds->replace)
		return bale_writer_seterr(w, BALE_EEXIST, "'%s' exists",
		    st->final);
	st->fd = open(st->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644);
	if (st->fd < 0)
		return pile_io(w, st, "create");
	return pile_head(w, st, ds);
}

static int pile_put(struct bale_writer *w, void *priv,
    const struct bale_sample *s)
{
	struct pile_w *st = priv;
	size_t klen = strlen(s->key);
	size_t plen = s->relpath ? strlen(s->relpath) : 0;

	pile_u64(&st->index, st->at);
	bale_buf_reset(&st->rec);
	pile_u32(&st->rec, (uint32_t)klen);
	bale_buf_add(&st->rec, s->key, klen);
	pile_u64(&st->rec, (uint64_t)s->label);
	pile_u32(&st->rec, (uint32_t)plen);
	bale_buf_add(&st->rec, s->relpath, plen);
	pile_u32(&st->rec, s->crc32);
	pile_u64(&st->rec, s->size);
	if (st->rec.failed || st->index.failed)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	if (pile_write(w, st, st->rec.data, st->rec.len) != BALE_OK)
		return BALE_EIO;
	return pile_write(w, st, s->data, s->size);
}

/* The index and the tail; the file is whole, under its .partial name. */
static int pile_finish(struct bale_writer *w, void *priv)
{
	struct pile_w *st = priv;
	uint64_t count = st->index.len / 8, index_at = st->at;
	int rc = pile_write(w, st, st->index.data, st->index.len);

	bale_buf_reset(&st->rec);
	pile_u64(&st->rec, count);
	pile_u64(&st->rec, index_at);
	bale_buf_add(&st->rec, PILE_MAGIC, PILE_MAGIC_LEN);
	if (rc == BALE_OK)
		rc = pile_write(w, st, st->rec.data, st->rec.len);
	if (rc == BALE_OK && close(st->fd) != 0)
		rc = pile_io(w, st, "close");
	st->fd = -1;
	return rc;
}

static int pile_publish(struct bale_writer *w, void *priv)
{
	struct pile_w *st = priv;

	int rc = bale_writer_publish_file(w, st->final, 0);

	st->published = rc == BALE_OK;
	return rc;
}

static void pile_release(void *priv)
{
	struct pile_w *st = priv;

	if (st->fd >= 0)
		close(st->fd);
	if (!st->published && st->tmp)
		unlink(st->tmp);
	free(st->final);
	free(st->tmp);
	bale_buf_release(&st->index);
	bale_buf_release(&st->rec);
}

static int pile_option(struct bale_writer *w, void *priv, const char *key,
    const char *value)
{
	(void)w;
	(void)priv;
	(void)key;
	(void)value;
	return BALE_ENOOPT;
}

const struct bale_writer_ops bale_pile_writer = {
	.option = pile_option,
	.open = pile_open,
	.put = pile_put,
	.finish = pile_finish,
	.publish = pile_publish,
	.release = pile_release,
};
