/* writer.c - the state machine around one backend's writer ops; which
 * backend writes a format is core/open.c's business. */
#include "handle.h"

#include "bale_store.h"

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum writer_state {
	WRITER_NEW, WRITER_OPEN, WRITER_FINISHED, WRITER_PUBLISHED,
	WRITER_FAILED
};

struct bale_writer {
	const struct bale_backend *be;
	void *priv;
	enum writer_state state;
	struct bale_errbuf err;
	uint64_t skip_below;	/* resumed: samples already kept */
	int complete;		/* resumed: published before, nothing to do */
	uint64_t ckpt_next;	/* the last checkpoint */
	char *ckpt_state;	/* its state, our copy */
	int ckpt_moved;		/* since bale_writer_checkpoint() asked */
	int holding;		/* put() may refer to bytes until settle() */
};

int bale_writer_new(struct bale_writer **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? BALE_OK : BALE_ENOMEM;
}

int bale_writer_seterr(struct bale_writer *w, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bale_errbuf_setv_named(&w->err, w->be ? w->be->name : NULL, rc, fmt,
	    ap);
	va_end(ap);
	return rc;
}

/* Every op's failure is sticky: later calls repeat the first error. */
static int writer_check(struct bale_writer *w, enum writer_state want,
    const char *call)
{
	if (w->state == WRITER_FAILED)
		return w->err.rc;
	bale_errbuf_clear(&w->err);	/* messages describe the last call */
	if (!w->be)
		return bale_writer_seterr(w, BALE_ESTATE,
		    "%s: no format chosen", call);
	if (w->state != want)
		return bale_errbuf_set(&w->err, BALE_ESTATE,
		    "%s: called in the wrong state", call);
	return BALE_OK;
}

static int writer_result(struct bale_writer *w, int rc,
    enum writer_state next)
{
	if (rc != BALE_OK) {
		if (w->err.rc == 0)
			bale_writer_seterr(w, rc, "%s: %s", w->be->name,
			    bale_strerror(rc));
		w->state = WRITER_FAILED;
		return rc;
	}
	w->state = next;
	return BALE_OK;
}

int bale_writer_publish_file(struct bale_writer *w, const char *final,
    int sync)
{
	if (bale_file_publish(final, sync) != 0)
		return bale_writer_seterr(w, BALE_EIO, "cannot rename "
		    "'%s%s': %s", final, BALE_PARTIAL, strerror(errno));
	return BALE_OK;
}

int bale_writer_use(struct bale_writer *w, const struct bale_backend *be)
{
	if (w->be)
		return bale_errbuf_set(&w->err, BALE_ESTATE,
		    "format already chosen");
	w->priv = calloc(1, be->writer_priv ? be->writer_priv : 1);
	if (!w->priv)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	w->be = be;
	return BALE_OK;
}

int bale_writer_option(struct bale_writer *w, const char *key,
    const char *value)
{
	int rc = writer_check(w, WRITER_NEW, "option");

	if (rc != BALE_OK)
		return rc;
	rc = w->be->writer->option(w, w->priv, key, value);
	if (rc == BALE_ENOOPT)	/* not sticky: the key may suit another */
		return bale_writer_seterr(w, rc, "%s: unknown option '%s'",
		    w->be->name, key);
	return rc == BALE_OK ? rc : writer_result(w, rc, WRITER_NEW);
}

int bale_writer_open(struct bale_writer *w, const char *dir,
    const struct bale_dataset *ds)
{
	int rc = writer_check(w, WRITER_NEW, "open");

	if (rc != BALE_OK)
		return rc;
	rc = w->be->writer->open(w, w->priv, dir, ds);
	return writer_result(w, rc, WRITER_OPEN);
}

/* A backend that cannot resume writes its output again from the start. */
static int writer_start_over(struct bale_writer *w, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs)
{
	snprintf(rs->note, sizeof(rs->note), "%s: cannot resume; "
	    "writing it again", w->be->name);
	rs->next = 0;
	return w->be->writer->open(w, w->priv, dir, ds);
}

/* The checkpoint we resume from is our last one until the next. */
static int writer_keep_checkpoint(struct bale_writer *w,
    const struct bale_resume *rs)
{
	w->skip_below = rs->next;
	w->complete = rs->complete;
	/* what the backend reached while cutting back is this one */
	free(w->ckpt_state);
	w->ckpt_state = NULL;
	w->ckpt_moved = 0;
	w->ckpt_next = rs->next;
	if (!rs->state || rs->next == 0)
		return BALE_OK;
	w->ckpt_state = strdup(rs->state);
	return w->ckpt_state ? BALE_OK :
	    bale_writer_seterr(w, BALE_ENOMEM, "no memory");
}

/* 1 when the output in @dir is published: its file (NAME + the
 * backend's suffix) is there, which a backend makes last. In an object
 * store a replacing run writes beside the old output (no staging
 * folder): the one there is the old, to be replaced. */
static int writer_published(const struct bale_writer *w, const char *dir,
    const struct bale_dataset *ds)
{
	char *path = bale_strfmt("%s/%s%s", dir, ds->name ? ds->name : "data",
	    w->be->suffix ? w->be->suffix : "");
	struct bale_store_stat st;
	struct bale_errbuf err;
	int there;

	if (!path || bale_store_is_local(path))
		there = path && access(path, F_OK) == 0;
	else
		there = !ds->replace &&
		    bale_store_stat(path, &st, &err) == BALE_OK;
	free(path);
	return there;
}

int bale_writer_resume(struct bale_writer *w, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs)
{
	int rc = writer_check(w, WRITER_NEW, "resume");

	if (rc != BALE_OK)
		return rc;
	rs->complete = 0;
	rs->note[0] = '\0';
	/* published: nothing to resume, and the backend's writer is never
	 * opened (its release gets the zeroed state) */
	if (w->be->suffix && writer_published(w, dir, ds))
		rs->complete = 1;
	else if (w->be->writer->resume)
		rc = w->be->writer->resume(w, w->priv, dir, ds, rs);
	else
		rc = writer_start_over(w, dir, ds, rs);
	if (rc == BALE_OK)
		rc = writer_keep_checkpoint(w, rs);
	return writer_result(w, rc, WRITER_OPEN);
}

void bale_writer_reached(struct bale_writer *w, uint64_t next,
    const char *state)
{
	char *copy;

	if (next <= w->ckpt_next)
		return;
	copy = state ? strdup(state) : NULL;
	if (state && !copy)
		return;		/* without memory: keep the older one */
	free(w->ckpt_state);
	w->ckpt_state = copy;
	w->ckpt_next = next;
	w->ckpt_moved = 1;
}

int bale_writer_checkpoint(struct bale_writer *w, uint64_t *next,
    const char **state)
{
	int moved = w->ckpt_moved;

	w->ckpt_moved = 0;
	*next = w->ckpt_next;
	*state = w->ckpt_state;
	return moved;
}

int bale_writer_put(struct bale_writer *w, const struct bale_sample *s)
{
	int rc = writer_check(w, WRITER_OPEN, "put");

	if (rc != BALE_OK)
		return rc;
	if (w->complete || s->index < w->skip_below)
		return BALE_OK;		/* kept by the run we resume */
	if (s->size == 0 && !(w->be->caps & BALE_CAP_EMPTY))
		return bale_writer_seterr(w, BALE_EINVAL, "%s: cannot store "
		    "an empty sample (key %s)", w->be->name, s->key);
	rc = w->be->writer->put(w, w->priv, s);
	return writer_result(w, rc, WRITER_OPEN);
}

void bale_writer_hold(struct bale_writer *w)
{
	w->holding = w->be && w->be->writer->settle != NULL;
}

int bale_writer_holding(const struct bale_writer *w)
{
	return w->holding;
}

int bale_writer_settle(struct bale_writer *w)
{
	int rc = writer_check(w, WRITER_OPEN, "settle");

	if (rc != BALE_OK || !w->holding || w->complete)
		return rc;
	rc = w->be->writer->settle(w, w->priv);
	return writer_result(w, rc, WRITER_OPEN);
}

int bale_writer_finish(struct bale_writer *w)
{
	int rc = writer_check(w, WRITER_OPEN, "finish");

	if (rc != BALE_OK)
		return rc;
	rc = w->complete ? BALE_OK : w->be->writer->finish(w, w->priv);
	return writer_result(w, rc, WRITER_FINISHED);
}

int bale_writer_publish(struct bale_writer *w)
{
	int rc = writer_check(w, WRITER_FINISHED, "publish");

	if (rc != BALE_OK)
		return rc;
	rc = w->complete ? BALE_OK : w->be->writer->publish(w, w->priv);
	return writer_result(w, rc, WRITER_PUBLISHED);
}

const char *bale_writer_name(const struct bale_writer *w)
{
	return w->be ? w->be->name : "";
}

const char *bale_writer_errmsg(const struct bale_writer *w)
{
	return w->err.msg;
}

void bale_writer_free(struct bale_writer *w)
{
	if (!w)
		return;
	if (w->be)
		w->be->writer->release(w->priv);
	free(w->ckpt_state);
	free(w->priv);
	free(w);
}
