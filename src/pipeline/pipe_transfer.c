/* pipe_transfer.c - the workers read, encode and checksum inputs in any
 * order; the writing side takes them in order and hands each to every
 * writer. The reorder window between them bounds the memory. */
#include "pipeline.h"

#include "bale_tools.h"
#include "handle.h"
#include "input.h"
#include "source.h"
#include "stream_feed.h"

#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- workers ------------------------------------------------------------ */

/* One input after a worker is done with it. */
struct pipe_sample {
	unsigned char *data;
	size_t size;
	size_t held;		/* bytes reserved in the window */
	uint32_t crc;
	const char *ext;	/* set by the encode stage, else NULL */
	int reencoded;		/* the encode stage made new bytes */
	int skipped;
	struct bale_errbuf why;	/* when skipped: the reason */
	struct bale_buf path;	/* its source path, decoded once */
};

static void pipe_sample_free(struct pipe_sample *s)
{
	if (!s)
		return;
	free(s->data);
	bale_buf_release(&s->path);
	free(s);
}

/* Replace the bytes read by the encode stage's output. A larger output
 * reserves its extra room in the window first.
 * @return BALE_OK, BALE_EINPUT when the sample is skipped (s->why says
 * why), or BALE_ENOMEM (no memory, or the run was aborted) */
static int pipe_encode(struct pipe_run *run, struct bale_encoder *enc,
    uint64_t pos, struct pipe_sample *s)
{
	struct bale_encoded e;
	int rc = bale_encoder_run(enc, s->data, s->size, &e);

	if (rc == BALE_EINPUT)
		bale_errbuf_copy(&s->why, &e.err);
	if (rc != BALE_OK)
		return rc;
	if (e.kept)
		return BALE_OK;
	s->reencoded = 1;
	free(s->data);
	s->data = e.data;
	s->size = e.size;
	s->ext = e.ext;
	if (e.size <= s->held)
		return BALE_OK;
	if (bale_reorder_reserve(run->wk.ro, pos, e.size - s->held) != 0)
		return BALE_ENOMEM;
	s->held = e.size;
	return BALE_OK;
}

/* A member of a compressed archive or a sample of a packed output: its
 * bytes, once the feed has them, checked against the checksum the
 * output stored. Every fed position is taken, skipped or not, so the
 * feed's window moves on. */
static int pipe_input_fed(struct pipe_run *run, uint64_t pos,
    struct bale_input *in)
{
	struct bale_fed fed;
	int rc;

	in->fd = -1;
	in->data = NULL;
	rc = bale_stream_feed_take(run->in.feed, pos, &fed, &in->err);
	if (rc != BALE_OK)
		return rc;
	if (fed.has_crc && bale_crc32(fed.data, fed.size) != fed.crc) {
		free(fed.data);
		return bale_errbuf_set(&in->err, BALE_EINPUT, "%s",
		    BALE_WHY_DAMAGED);
	}
	rc = bale_input_bytes(in, fed.data, fed.size);
	in->crc_known = fed.has_crc;	/* checked: not computed again */
	in->crc = fed.crc;
	return rc;
}

/* Open the input at output position @pos: a file, or an archive member.
 * @return BALE_OK, BALE_EINPUT (skip it: in->err), BALE_EINTR (abort) */
static int pipe_input_open(struct pipe_run *run, uint64_t pos,
    const char *path, struct bale_input_dir *dir, struct bale_input *in)
{
	size_t wi = bale_order_at(&run->plan.order, pos);
	struct bale_walk_member m;

	if (!bale_walk_member(run->in.walk, wi, &m))
		return bale_input_open_in(in, dir, run->in.rootfd, path);
	if (bale_source_member_fed(&m))
		return pipe_input_fed(run, pos, in);
	return bale_input_member(in, &m, run->opts->src, path);
}

/* What a worker thread turns inputs into samples with. */
struct pipe_tools {
	struct bale_encoder *enc;	/* the encode stage, or NULL */
	struct bale_decode_check *check;	/* --validate, or NULL */
	struct bale_input_dir dir;	/* the folder it reads from */
};

/* --validate: the bytes read must decode. @return BALE_OK (they do, or
 * cannot be checked: counted), BALE_EINPUT (skip: s->why), BALE_ENOMEM */
static int pipe_validate(struct pipe_run *run, struct bale_decode_check *check,
    struct pipe_sample *s)
{
	int rc = bale_decode_check_run(check, s->data, s->size);

	if (rc == BALE_ENOTSUP)
		atomic_fetch_add(&run->unchecked, 1);
	if (rc == BALE_EINPUT)
		bale_errbuf_set(&s->why, rc, "does not decode: %s",
		    bale_decode_check_errmsg(check));
	return rc == BALE_ENOTSUP ? BALE_OK : rc;
}

/* Read, encode (or check) and checksum the input at window slot @pos
 * (the input at run->plan.first + @pos). NULL: abort (or no memory). */
static struct pipe_sample *pipe_make(struct pipe_run *run,
    struct pipe_tools *t, uint64_t pos)
{
	struct bale_encoder *enc = t->enc;
	struct pipe_sample *s = calloc(1, sizeof(*s));
	struct bale_input in;
	int rc;

	if (!s)
		return NULL;
	if (!pipe_path(run, run->plan.first + pos, &s->path)) {
		pipe_sample_free(s);
		return NULL;
	}
	rc = pipe_input_open(run, run->plan.first + pos, s->path.data, &t->dir,
	    &in);
	if (rc == BALE_EINTR) {
		pipe_sample_free(s);
		return NULL;
	}
	if (rc != BALE_OK)
		goto out_skip;
	if (bale_reorder_reserve(run->wk.ro, pos, in.size) != 0) {
		bale_input_close(&in);
		pipe_sample_free(s);
		return NULL;
	}
	s->held = in.size;
	if (in.data) {		/* read already (streamed) */
		s->data = in.data;
		in.data = NULL;
	} else if (!(s->data = malloc(in.size))) {
		bale_input_close(&in);
		pipe_sample_free(s);
		return NULL;
	} else if (bale_input_read(&in, s->data) != 0) {
		goto out_skip;
	}
	s->size = in.size;
	rc = t->check ? pipe_validate(run, t->check, s) : BALE_OK;
	if (rc == BALE_EINPUT)
		goto out_skip_encode;
	if (rc != BALE_OK) {
		pipe_sample_free(s);
		return NULL;
	}
	if (enc) {
		rc = pipe_encode(run, enc, pos, s);
		if (rc == BALE_EINPUT)
			goto out_skip_encode;
		if (rc != BALE_OK) {
			pipe_sample_free(s);
			return NULL;
		}
	}
	s->crc = !enc && in.crc_known ? in.crc : bale_crc32(s->data, s->size);
	return s;
out_skip:
	bale_errbuf_copy(&s->why, &in.err);
out_skip_encode:
	free(s->data);
	s->data = NULL;
	s->skipped = 1;
	return s;
}

/* One reader thread: its index decides whether it works (pipe_tune). */
struct pipe_worker {
	struct pipe_run *run;
	unsigned index;
};

static void *pipe_worker(void *arg)
{
	const struct pipe_worker *me = arg;
	struct pipe_run *run = me->run;
	struct pipe_tools t = { NULL, NULL, BALE_INPUT_DIR_INIT };
	struct pipe_sample *s;
	uint64_t pos;

	/* the encode stage decodes anyway: no check needed beside it */
	if ((run->encode && bale_encoder_new(&t.enc, run->encode) != 0) ||
	    (!run->encode && run->opts->validate &&
	    bale_decode_check_new(&t.check) != BALE_OK)) {
		bale_encoder_free(t.enc);
		bale_reorder_abort(run->wk.ro);
		return NULL;
	}
	while (bale_pipe_tune_wait(&run->wk.tune, me->index) == 0 &&
	    bale_reorder_claim(run->wk.ro, &pos) == 0) {
		if (atomic_load_explicit(run->stop, memory_order_relaxed)) {
			bale_reorder_abort(run->wk.ro);	/* wakes the writer */
			break;
		}
		bale_pipe_prefetch(run, pos);
		s = pipe_make(run, &t, pos);
		if (!s) {
			/* no memory, or the run was stopped: stop everyone */
			bale_reorder_abort(run->wk.ro);
			break;
		}
		bale_reorder_deliver(run->wk.ro, pos, s);
	}
	bale_encoder_free(t.enc);
	bale_decode_check_free(t.check);
	bale_input_dir_release(&t.dir);
	return NULL;
}

/* ---- the writing side --------------------------------------------------- */

/* Lower-case extension of @path's base name, or "bin" if it has none
 * usable as a tar member suffix (letters and digits only). */
static void pipe_ext(const char *path, char *ext, size_t cap)
{
	const char *base = strrchr(path, '/');
	const char *dot;
	size_t i;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || !dot[1] || strlen(dot + 1) >= cap)
		goto out_default;
	for (i = 0; dot[1 + i]; i++) {
		if (!isalnum((unsigned char)dot[1 + i]))
			goto out_default;
		ext[i] = (char)tolower((unsigned char)dot[1 + i]);
	}
	ext[i] = '\0';
	return;
out_default:
	snprintf(ext, cap, "bin");
}

static int pipe_put(struct bale_pipeline *p, struct pipe_run *run,
    uint64_t pos, const struct pipe_sample *ps)
{
	size_t wi = bale_order_at(&run->plan.order, pos);
	const char *const *classes = run->lab.classes ? run->lab.classes :
	    bale_walk_classes(run->in.walk);
	struct bale_sample s;
	char key[BALE_FMT_MAX];
	char ext[16];
	size_t i;

	bale_fmt_u64(key, run->plan.key_base + pos, 10);
	if (ps->ext) {
		strncpy(ext, ps->ext, sizeof(ext) - 1);
		ext[sizeof(ext) - 1] = '\0';
	} else
		pipe_ext(ps->path.data, ext, sizeof(ext));
	memset(&s, 0, sizeof(s));
	s.index = pos;
	s.key = key;
	s.relpath = ps->path.data;
	s.ext = ext;
	s.label = bale_walk_label(run->in.walk, wi);
	if (run->lab.map && s.label >= 0)
		s.label = run->lab.map[s.label];
	s.label_name = s.label >= 0 ? classes[s.label] : NULL;	/* -1: none */
	s.data = ps->data;
	s.size = ps->size;
	s.crc32 = ps->crc;
	for (i = 0; i < run->out.nwriters; i++)
		if (bale_writer_put(run->out.writers[i], &s) != BALE_OK)
			return bale_errbuf_set(&p->err, BALE_EBACKEND, "%s",
			    bale_writer_errmsg(run->out.writers[i]));
	if (run->plan.written && bale_bits_set(run->plan.written, pos) != 0)
		run->plan.written_lost = 1;
	p->stats.packed++;
	p->stats.reencoded += ps->reencoded != 0;
	p->stats.bytes += ps->size;
	return bale_pipe_journal_follow(p, run);
}

static int pipe_emit(struct bale_pipeline *p, struct pipe_run *run,
    uint64_t pos, const struct pipe_sample *ps)
{
	const char *path = ps->path.data;

	if (!ps->skipped)
		return pipe_put(p, run, pos, ps);
	p->stats.skipped++;
	if (bale_report_add(p->report, BALE_NOTE_SKIPPED, path,
	    ps->why.msg) != 0 ||
	    bale_journal_skip(&run->jr.j, pos, path, ps->why.msg) != 0)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	if (run->opts->strict)
		return bale_errbuf_set(&p->err, BALE_EINPUT,
		    "strict: '%s': %s", path, ps->why.msg);
	return BALE_OK;
}

static void pipe_progress(const struct bale_pipeline *p,
    const struct pipe_run *run, uint64_t done, int final)
{
	struct bale_progress pr;

	if (!run->opts->progress)
		return;
	pr.done = done;
	pr.total = run->plan.count;
	pr.bytes = p->stats.bytes;
	pr.seconds = pipe_since(&run->t0);
	pr.final = final;
	run->opts->progress(&pr, run->opts->progress_arg);
}

int bale_pipe_stopped(struct bale_pipeline *p)
{
	return atomic_load_explicit(&p->stop, memory_order_relaxed) != 0;
}

int bale_pipe_stop_error(struct bale_pipeline *p,
    const struct pipe_run *run, uint64_t done)
{
	uint64_t total = run->plan.count;

	if (!bale_pipe_journal_has_progress(run))
		return bale_errbuf_set(&p->err, BALE_EINTR, "stopped on "
		    "request after %" PRIu64 " of %" PRIu64 " inputs; no "
		    "output was kept", done, total);
	return bale_errbuf_set(&p->err, BALE_EINTR, "stopped on request "
	    "after %" PRIu64 " of %" PRIu64 " inputs; what is checkpointed "
	    "is kept", done, total);
}

static int pipe_no_memory(struct bale_pipeline *p, const struct pipe_run *run,
    uint64_t pos)
{
	struct bale_buf b = BALE_BUF_INIT;
	const char *path = pipe_path(run, pos, &b);
	int rc;

	rc = bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory to read '%s'",
	    path ? path : "an input");
	bale_buf_release(&b);
	return rc;
}

/* Samples the writers may still refer to (bale_writer_hold(): a
 * WebDataset shard gathers a megabyte of images into one write), freed
 * once they settle; beyond the window's count, a few megabytes. */
#define PIPE_HELD_MAX 64
#define PIPE_HELD_BYTES ((size_t)2 << 20)

struct pipe_held {
	struct pipe_sample *s[PIPE_HELD_MAX];
	size_t n;
	size_t bytes;
};

/* Have every writer write what it refers to, then free the samples
 * held. @return BALE_OK, or the first writer's error (said in p->err
 * unless an error is there already) */
static int pipe_settle(struct bale_pipeline *p, struct pipe_run *run,
    struct pipe_held *h)
{
	struct bale_writer *failed = NULL;
	size_t i;

	for (i = 0; !failed && i < run->out.nwriters; i++)
		if (bale_writer_settle(run->out.writers[i]) != BALE_OK)
			failed = run->out.writers[i];
	if (failed && !p->err.rc)
		bale_errbuf_set(&p->err, BALE_EBACKEND, "%s",
		    bale_writer_errmsg(failed));
	for (i = 0; i < h->n; i++)
		pipe_sample_free(h->s[i]);
	h->n = 0;
	h->bytes = 0;
	return failed ? BALE_EBACKEND : BALE_OK;
}

/* Sample @s, handed to the writers: held while they may refer to it. */
static int pipe_hold(struct bale_pipeline *p, struct pipe_run *run,
    struct pipe_held *h, struct pipe_sample *s)
{
	if (!s->data) {		/* skipped */
		pipe_sample_free(s);
		return BALE_OK;
	}
	h->s[h->n++] = s;
	h->bytes += s->size;
	if (h->n < PIPE_HELD_MAX && h->bytes < PIPE_HELD_BYTES)
		return BALE_OK;
	return pipe_settle(p, run, h);
}

/* Take samples in order and hand each to every writer. */
static int pipe_consume_all(struct bale_pipeline *p, struct pipe_run *run,
    struct pipe_held *held)
{
	uint64_t n = run->plan.count;
	double last = 0;
	double now = pipe_since(&run->t0);
	double taken;
	struct pipe_sample *s;
	uint64_t pos;
	int rc = BALE_OK;

	for (pos = run->plan.first; pos < n && rc == BALE_OK; pos++) {
		if (bale_pipe_stopped(p))
			return bale_pipe_stop_error(p, run, pos);
		s = bale_reorder_take(run->wk.ro);
		taken = pipe_since(&run->t0);
		/* since the last sample was written: waiting for this one */
		bale_pipe_tune_waited(&run->wk.tune, taken - now);
		if (!s && bale_pipe_stopped(p))
			return bale_pipe_stop_error(p, run, pos);
		if (!s)
			return pipe_no_memory(p, run, pos);
		rc = pipe_emit(p, run, pos, s);
		bale_reorder_advance(run->wk.ro, s->held);
		if (pipe_hold(p, run, held, s) != BALE_OK && rc == BALE_OK)
			rc = p->err.rc;
		now = pipe_since(&run->t0);
		bale_pipe_tune_step(&run->wk.tune, now);
		if (run->opts->progress && now - last > 0.2) {
			last = now;
			pipe_progress(p, run, pos + 1, 0);
		}
	}
	if (rc == BALE_OK)
		pipe_progress(p, run, n, 1);
	return rc;
}

/* pipe_consume_all(), the writers holding samples meanwhile: settled
 * however it ends (a stopped run's journal may write on). */
static int pipe_consume(struct bale_pipeline *p, struct pipe_run *run)
{
	struct pipe_held *held = calloc(1, sizeof(*held));
	size_t i;
	int rc;

	if (!held)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	for (i = 0; i < run->out.nwriters; i++)
		bale_writer_hold(run->out.writers[i]);
	rc = pipe_consume_all(p, run, held);
	if (pipe_settle(p, run, held) != BALE_OK && rc == BALE_OK)
		rc = p->err.rc;
	free(held);
	return rc;
}

/* Start the workers, write everything, stop the workers. */
int bale_pipe_transfer(struct bale_pipeline *p, struct pipe_run *run)
{
	pthread_t tid[PIPE_MAX_THREADS];
	struct pipe_worker me[PIPE_MAX_THREADS];
	size_t window = run->opts->window_bytes ? run->opts->window_bytes :
	    BALE_WINDOW_DEFAULT;
	unsigned started = 0;
	size_t i;
	int rc;

	rc = bale_reorder_new(&run->wk.ro, run->plan.count - run->plan.first,
	    (size_t)run->wk.threads * PIPE_SLOTS_PER_THREAD, window);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "no memory");
	if (bale_pipe_prefetch_begin(run) != BALE_OK) {
		bale_reorder_free(run->wk.ro);
		run->wk.ro = NULL;
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	}
	rc = bale_stream_feed_start(&run->in.feed, run->in.walk,
	    &run->plan.order, run->plan.first, run->plan.count, window,
	    run->wk.tune.min, &p->err);	/* a fed source waits on no disk */
	if (rc != BALE_OK) {
		bale_reorder_free(run->wk.ro);
		run->wk.ro = NULL;
		bale_pipe_prefetch_end(run);
		return rc;
	}
	for (; started < run->wk.threads; started++) {
		me[started] = (struct pipe_worker){ run, started };
		if (pthread_create(&tid[started], NULL, pipe_worker,
		    &me[started]) != 0)
			break;
	}
	if (started == 0)
		rc = bale_errbuf_set(&p->err, BALE_ENOMEM,
		    "cannot start a worker thread");
	else
		rc = pipe_consume(p, run);
	bale_reorder_abort(run->wk.ro);	/* wakes any worker still waiting */
	bale_stream_feed_abort(run->in.feed);	/* or waiting for the feed */
	bale_pipe_tune_close(&run->wk.tune);	/* and any parked one */
	while (started > 0)
		pthread_join(tid[--started], NULL);
	bale_stream_feed_free(run->in.feed, &p->stream);
	run->in.feed = NULL;
	for (i = 0; i < bale_reorder_slots(run->wk.ro); i++)
		pipe_sample_free(bale_reorder_leftover(run->wk.ro, i));
	bale_reorder_free(run->wk.ro);
	run->wk.ro = NULL;
	bale_pipe_prefetch_end(run);
	return rc;
}
