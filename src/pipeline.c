/* pipeline.c - walk a source, read samples in parallel, write them in order.
 *
 * Everything downstream of the walk is a function of its sorted (or seeded
 * shuffled) list, so the output is the same whatever the thread count:
 * workers may finish in any order, the reorder window restores it.
 */
#include "bale.h"

#include "bale_backend.h"
#include "bale.h"
#include "encode.h"
#include "errbuf.h"
#include "input.h"
#include "journal.h"
#include "reorder.h"
#include "report.h"
#include "resume.h"
#include "shuffle.h"
#include "walk.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PIPE_MAX_WRITERS 8
#define PIPE_MAX_THREADS 256
#define PIPE_SLOTS_PER_THREAD 64
#define PIPE_JOURNAL_SECONDS 0.25	/* at most this often, so a run
					 * with many small checkpoints does not
					 * spend its time rewriting the journal */

/* One input after a worker is done with it. */
struct pipe_sample {
	unsigned char *data;
	size_t size;
	size_t held;		/* bytes reserved in the window */
	uint32_t crc;
	const char *ext;	/* set by the encode stage, else NULL */
	int skipped;
	char why[256];
};

/* What the threads of one run share. */
struct pipe_run {
	const struct bale_pack_opts *opts;
	struct bale_walk *walk;
	uint64_t *order;	/* output position -> walk index */
	uint64_t first;		/* position this run starts at (resume) */
	int rootfd;
	struct bale_reorder *ro;
	struct bale_writer *writers[PIPE_MAX_WRITERS];
	size_t nwriters;
	unsigned threads;
	const struct bale_encode_cfg *encode;	/* NULL: bytes as read */
	atomic_int *stop;	/* set by bale_pipeline_stop() */
	struct bale_encode_cfg encode_cfg;
	struct timespec t0;
	struct bale_journal journal;
	char *journal_path;
	int sync;		/* fsync=1 was given: sync the journal too */
	int no_journal;		/* --resume found none */
	int journal_written;	/* by this run: remove it when done */
	int journal_dirty;	/* a checkpoint moved since the last write */
	double journal_at;	/* when it was last written */
};

/* bale_pipeline_stop() must be async-signal-safe */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int is not lock-free");

struct bale_pipeline {
	struct bale_errbuf err;
	atomic_int stop;	/* lock-free, so safe to set from a handler */
	struct bale_report *report;
	struct bale_pack_stats stats;
};

int bale_pipeline_new(struct bale_pipeline **out)
{
	struct bale_pipeline *p = calloc(1, sizeof(*p));

	if (!p)
		return BALE_ENOMEM;
	*out = p;
	return BALE_OK;
}

static double pipe_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	    (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static const char *pipe_path(const struct pipe_run *run, uint64_t pos)
{
	return bale_walk_path(run->walk, (size_t)run->order[pos]);
}

/* ---- workers ------------------------------------------------------------ */

static void pipe_sample_free(struct pipe_sample *s)
{
	if (!s)
		return;
	free(s->data);
	free(s);
}

/* Replace the bytes read by the encode stage's output. A larger output
 * reserves its extra room in the window first.
 * @return 0, 1 when the sample is skipped, -1 on abort or no memory */
static int pipe_encode(struct pipe_run *run, struct bale_encoder *enc,
    uint64_t pos, struct pipe_sample *s)
{
	struct bale_encoded e;
	int rc = bale_encoder_run(enc, s->data, s->size, &e);

	if (rc != 0) {
		memcpy(s->why, e.why, sizeof(s->why));
		return rc;
	}
	if (e.kept)
		return 0;
	free(s->data);
	s->data = e.data;
	s->size = e.size;
	s->ext = e.ext;
	if (e.size <= s->held)
		return 0;
	if (bale_reorder_reserve(run->ro, pos, e.size - s->held) != 0)
		return -1;
	s->held = e.size;
	return 0;
}

/* Read, encode and checksum the input at window slot @pos (the input at
 * run->first + @pos). NULL: abort (or no memory). */
static struct pipe_sample *pipe_make(struct pipe_run *run,
    struct bale_encoder *enc, uint64_t pos)
{
	struct pipe_sample *s = calloc(1, sizeof(*s));
	struct bale_input in;
	int rc;

	if (!s)
		return NULL;
	if (bale_input_open(&in, run->rootfd,
	    pipe_path(run, run->first + pos)) != 0)
		goto out_skip;
	if (bale_reorder_reserve(run->ro, pos, in.size) != 0) {
		bale_input_close(&in);
		free(s);
		return NULL;
	}
	s->held = in.size;
	s->data = malloc(in.size);
	if (!s->data) {
		bale_input_close(&in);
		free(s);
		return NULL;
	}
	if (bale_input_read(&in, s->data) != 0)
		goto out_skip;
	s->size = in.size;
	if (enc) {
		rc = pipe_encode(run, enc, pos, s);
		if (rc < 0) {
			pipe_sample_free(s);
			return NULL;
		}
		if (rc > 0)
			goto out_skip_encode;
	}
	s->crc = bale_crc32(s->data, s->size);
	return s;
out_skip:
	memcpy(s->why, in.why, sizeof(s->why));
out_skip_encode:
	free(s->data);
	s->data = NULL;
	s->skipped = 1;
	return s;
}

static void *pipe_worker(void *arg)
{
	struct pipe_run *run = arg;
	struct bale_encoder *enc = NULL;
	struct pipe_sample *s;
	uint64_t pos;

	if (run->encode && bale_encoder_new(&enc, run->encode) != 0) {
		bale_reorder_abort(run->ro);
		return NULL;
	}
	while (bale_reorder_claim(run->ro, &pos) == 0) {
		if (atomic_load_explicit(run->stop, memory_order_relaxed)) {
			bale_reorder_abort(run->ro);	/* wakes the writer */
			break;
		}
		s = pipe_make(run, enc, pos);
		if (!s) {
			/* no memory, or the run was stopped: stop everyone */
			bale_reorder_abort(run->ro);
			break;
		}
		bale_reorder_deliver(run->ro, pos, s);
	}
	bale_encoder_free(enc);
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

/* ---- the resume journal ------------------------------------------------ */

static int pipe_journal_write(struct bale_pipeline *p, struct pipe_run *run)
{
	if (bale_journal_write(&run->journal, run->journal_path,
	    run->sync) != 0)
		return bale_errbuf_set(&p->err, BALE_EIO,
		    "cannot write the resume journal '%s': %s",
		    run->journal_path, strerror(errno));
	run->journal_written = 1;
	run->journal_dirty = 0;
	run->journal_at = pipe_since(&run->t0);
	return BALE_OK;
}

/* After each sample: note moved checkpoints, rewrite the journal now and
 * then (a kill resumes from an older one, which is as correct). */
static int pipe_journal_follow(struct bale_pipeline *p, struct pipe_run *run)
{
	if (bale_resume_follow(&run->journal, run->writers, run->nwriters))
		run->journal_dirty = 1;
	if (!run->journal_dirty ||
	    pipe_since(&run->t0) - run->journal_at < PIPE_JOURNAL_SECONDS)
		return BALE_OK;
	return pipe_journal_write(p, run);
}

/* Has any writer kept something a resumed run could start from? */
static int pipe_journal_has_progress(const struct pipe_run *run)
{
	size_t i;

	for (i = 0; i < run->journal.nwriters; i++)
		if (run->journal.writers[i].next > 0)
			return 1;
	return 0;
}

/* Done: the journal goes. Failed: it stays if it has something to
 * resume from (the writers kept the same), else it goes too. */
static void pipe_journal_end(struct pipe_run *run, int rc)
{
	if (!run->journal_written)
		return;
	if (rc != BALE_OK && pipe_journal_has_progress(run)) {
		if (run->journal_dirty)	/* best effort: resume from later */
			bale_journal_write(&run->journal, run->journal_path, 0);
		return;
	}
	unlink(run->journal_path);
}

static int pipe_put(struct bale_pipeline *p, struct pipe_run *run,
    uint64_t pos, const struct pipe_sample *ps)
{
	size_t wi = (size_t)run->order[pos];
	const char *const *classes = bale_walk_classes(run->walk);
	struct bale_sample s;
	char key[32];
	char ext[16];
	size_t i;

	snprintf(key, sizeof(key), "%010" PRIu64, pos);
	if (ps->ext)
		snprintf(ext, sizeof(ext), "%s", ps->ext);
	else
		pipe_ext(pipe_path(run, pos), ext, sizeof(ext));
	memset(&s, 0, sizeof(s));
	s.index = pos;
	s.key = key;
	s.relpath = pipe_path(run, pos);
	s.ext = ext;
	s.label = bale_walk_label(run->walk, wi);
	s.label_name = classes[s.label];
	s.data = ps->data;
	s.size = ps->size;
	s.crc32 = ps->crc;
	for (i = 0; i < run->nwriters; i++)
		if (bale_writer_put(run->writers[i], &s) != BALE_OK)
			return bale_errbuf_set(&p->err, BALE_EBACKEND, "%s",
			    bale_writer_errmsg(run->writers[i]));
	p->stats.packed++;
	p->stats.bytes += ps->size;
	return pipe_journal_follow(p, run);
}

static int pipe_emit(struct bale_pipeline *p, struct pipe_run *run,
    uint64_t pos, const struct pipe_sample *ps)
{
	const char *path = pipe_path(run, pos);

	if (!ps->skipped)
		return pipe_put(p, run, pos, ps);
	p->stats.skipped++;
	if (bale_report_add(p->report, BALE_NOTE_SKIPPED, path, ps->why) != 0 ||
	    bale_journal_skip(&run->journal, pos, path, ps->why) != 0)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	if (run->opts->strict)
		return bale_errbuf_set(&p->err, BALE_EINPUT,
		    "strict: '%s': %s", path, ps->why);
	return BALE_OK;
}

static void pipe_progress(const struct bale_pipeline *p,
    const struct pipe_run *run, uint64_t done, int final)
{
	struct bale_progress pr;

	if (!run->opts->progress)
		return;
	pr.done = done;
	pr.total = bale_walk_count(run->walk);
	pr.bytes = p->stats.bytes;
	pr.seconds = pipe_since(&run->t0);
	pr.final = final;
	run->opts->progress(&pr, run->opts->progress_arg);
}

static int pipe_stopped(struct bale_pipeline *p)
{
	return atomic_load_explicit(&p->stop, memory_order_relaxed) != 0;
}

static int pipe_stop_error(struct bale_pipeline *p,
    const struct pipe_run *run, uint64_t done)
{
	uint64_t total = bale_walk_count(run->walk);

	if (!pipe_journal_has_progress(run))
		return bale_errbuf_set(&p->err, BALE_EINTR, "stopped on "
		    "request after %" PRIu64 " of %" PRIu64 " inputs; no "
		    "output was kept", done, total);
	return bale_errbuf_set(&p->err, BALE_EINTR, "stopped on request "
	    "after %" PRIu64 " of %" PRIu64 " inputs; what is checkpointed "
	    "is kept: run again with --resume to carry on", done, total);
}

/* Take samples in order and hand each to every writer. */
static int pipe_consume(struct bale_pipeline *p, struct pipe_run *run)
{
	uint64_t n = bale_walk_count(run->walk);
	double last = 0;
	double now;
	struct pipe_sample *s;
	uint64_t pos;
	int rc = BALE_OK;

	for (pos = run->first; pos < n && rc == BALE_OK; pos++) {
		if (pipe_stopped(p))
			return pipe_stop_error(p, run, pos);
		s = bale_reorder_take(run->ro);
		if (!s && pipe_stopped(p))
			return pipe_stop_error(p, run, pos);
		if (!s)
			return bale_errbuf_set(&p->err, BALE_ENOMEM,
			    "no memory to read '%s'", pipe_path(run, pos));
		rc = pipe_emit(p, run, pos, s);
		bale_reorder_advance(run->ro, s->held);
		pipe_sample_free(s);
		now = run->opts->progress ? pipe_since(&run->t0) : 0;
		if (now - last > 0.2) {
			last = now;
			pipe_progress(p, run, pos + 1, 0);
		}
	}
	if (rc == BALE_OK)
		pipe_progress(p, run, n, 1);
	return rc;
}

static unsigned pipe_threads(const struct bale_pack_opts *o)
{
	long n = o->threads ? (long)o->threads : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	return n > PIPE_MAX_THREADS ? PIPE_MAX_THREADS : (unsigned)n;
}

/* Start the workers, write everything, stop the workers. */
static int pipe_transfer(struct bale_pipeline *p, struct pipe_run *run)
{
	pthread_t tid[PIPE_MAX_THREADS];
	size_t window = run->opts->window_bytes ? run->opts->window_bytes :
	    BALE_WINDOW_DEFAULT;
	unsigned started = 0;
	size_t i;
	int rc;

	rc = bale_reorder_new(&run->ro,
	    bale_walk_count(run->walk) - run->first, (size_t)run->threads * PIPE_SLOTS_PER_THREAD, window);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "no memory");
	while (started < run->threads &&
	    pthread_create(&tid[started], NULL, pipe_worker, run) == 0)
		started++;
	if (started == 0)
		rc = bale_errbuf_set(&p->err, BALE_ENOMEM,
		    "cannot start a worker thread");
	else
		rc = pipe_consume(p, run);
	bale_reorder_abort(run->ro);	/* wakes any worker still waiting */
	while (started > 0)
		pthread_join(tid[--started], NULL);
	for (i = 0; i < bale_reorder_slots(run->ro); i++)
		pipe_sample_free(bale_reorder_leftover(run->ro, i));
	bale_reorder_free(run->ro);
	run->ro = NULL;
	return rc;
}

/* ---- setting up --------------------------------------------------------- */

static int pipe_walk(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;
	enum bale_walk_note_kind kind;
	const char *path;
	const char *why;
	size_t i;
	int rc;

	rc = bale_walk_new(&run->walk);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "no memory");
	rc = o->list ? bale_walk_list(run->walk, o->src, o->list) :
	    bale_walk_folder(run->walk, o->src);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "%s",
		    bale_walk_errmsg(run->walk));
	for (i = 0; i < bale_walk_nnotes(run->walk); i++) {
		bale_walk_note(run->walk, i, &kind, &path, &why);
		if (bale_report_add(p->report, kind, path, why) != 0)
			return bale_errbuf_set(&p->err, BALE_ENOMEM,
			    "no memory");
		p->stats.ignored += kind == BALE_NOTE_IGNORED;
		p->stats.skipped += kind == BALE_NOTE_SKIPPED;
	}
	p->stats.found = bale_walk_count(run->walk);
	return BALE_OK;
}

static int pipe_order(struct bale_pipeline *p, struct pipe_run *run)
{
	size_t n = bale_walk_count(run->walk);
	size_t i;

	run->order = malloc((n ? n : 1) * sizeof(*run->order));
	if (!run->order)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	if (run->opts->shuffle)
		bale_shuffle(run->order, n, run->opts->seed);
	else
		for (i = 0; i < n; i++)
			run->order[i] = i;
	return BALE_OK;
}

/* Offer "[fmt.]key=value" to the writers it names (all when unprefixed). */
static int pipe_option(struct bale_pipeline *p, struct pipe_run *run,
    const char *opt)
{
	const char *eq = strchr(opt, '=');
	const char *dot = memchr(opt, '.', eq ? (size_t)(eq - opt) : 0);
	char key[128];
	size_t i;
	int taken = 0;
	int rc;

	if (!eq || eq == opt || (size_t)(eq - opt) >= sizeof(key))
		return bale_errbuf_set(&p->err, BALE_EINVAL,
		    "option '%s': expected [FORMAT.]KEY=VALUE", opt);
	for (i = 0; i < run->nwriters; i++) {
		const char *name = bale_writer_name(run->writers[i]);
		const char *k = dot ? dot + 1 : opt;

		if (dot && (strlen(name) != (size_t)(dot - opt) ||
		    strncmp(opt, name, (size_t)(dot - opt)) != 0))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - k), k);
		rc = bale_writer_option(run->writers[i], key, eq + 1);
		if (rc == BALE_OK && strcmp(key, "fsync") == 0)
			run->sync |= strcmp(eq + 1, "0") != 0;
		if (rc == BALE_OK)
			taken = 1;
		else if (rc != BALE_ENOOPT)
			return bale_errbuf_set(&p->err, rc, "%s",
			    bale_writer_errmsg(run->writers[i]));
	}
	if (!taken)
		return bale_errbuf_set(&p->err, BALE_ENOOPT,
		    "option '%s': no chosen format knows it", opt);
	return BALE_OK;
}

static int pipe_add_writer(struct bale_pipeline *p, struct pipe_run *run,
    const char *name)
{
	struct bale_writer *w = NULL;
	int rc;

	if (run->nwriters == PIPE_MAX_WRITERS)
		return bale_errbuf_set(&p->err, BALE_EINVAL,
		    "too many formats");
	rc = bale_writer_new(&w);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "no memory");
	run->writers[run->nwriters++] = w;
	rc = bale_writer_set_backend(w, name);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "%s",
		    bale_writer_errmsg(w));
	return BALE_OK;
}

static int pipe_writers(struct bale_pipeline *p, struct pipe_run *run)
{
	const char *f = run->opts->formats;
	char name[64];
	size_t len;
	size_t i;
	int rc = BALE_OK;

	while (rc == BALE_OK && f && *f) {
		len = strcspn(f, ",");
		if (len == 0 || len >= sizeof(name))
			return bale_errbuf_set(&p->err, BALE_EINVAL,
			    "bad format list '%s'", run->opts->formats);
		snprintf(name, sizeof(name), "%.*s", (int)len, f);
		rc = pipe_add_writer(p, run, name);
		f += len + (f[len] == ',');
	}
	if (rc == BALE_OK && run->nwriters == 0)
		rc = bale_errbuf_set(&p->err, BALE_EINVAL, "no format chosen");
	for (i = 0; rc == BALE_OK && run->opts->options &&
	    run->opts->options[i]; i++)
		rc = pipe_option(p, run, run->opts->options[i]);
	return rc;
}

/* With --resume, the journal of the run to carry on; without one, or
 * without --resume, an empty one (every writer starts afresh). */
static int pipe_read_journal(struct bale_pipeline *p, struct pipe_run *run)
{
	char fp[17];
	char why[512];
	int rc = 1;

	bale_resume_fingerprint(run->opts, run->walk, run->order, fp);
	if (run->opts->resume)
		rc = bale_journal_read(&run->journal, run->journal_path, why,
		    sizeof(why));
	if (rc < 0)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "%s", why);
	if (rc == 0 && strcmp(run->journal.fingerprint, fp) != 0)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "'%s' is from a "
		    "run with other inputs or settings; run without "
		    "--resume to start over", run->journal_path);
	memcpy(run->journal.fingerprint, fp, sizeof(fp));
	run->no_journal = rc == 1;
	return BALE_OK;
}

static int pipe_open_writers(struct bale_pipeline *p, struct pipe_run *run,
    const struct bale_dataset *ds)
{
	int rc;

	run->journal_path = bale_journal_path(run->opts->out, ds->name);
	if (!run->journal_path)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	rc = pipe_read_journal(p, run);
	if (rc != BALE_OK)
		return rc;
	rc = bale_resume_open(run->writers, run->nwriters, run->opts->resume,
	    run->opts->out, ds, &run->journal, &run->first, p->report,
	    &p->err);
	if (rc != BALE_OK)
		return rc;
	if (run->opts->resume && run->no_journal &&
	    bale_report_add(p->report, BALE_NOTE_WARNING, run->journal_path,
	    run->first == ds->nitems ? "nothing to resume: every output is "
	    "complete already" : "nothing to resume: starting from the "
	    "beginning") != 0)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	p->stats.resumed_at = run->first;
	p->stats.skipped += run->journal.nskipped;
	rc = pipe_journal_write(p, run);
	run->journal_at = -PIPE_JOURNAL_SECONDS;  /* the first checkpoint
						   * is journaled at once */
	return rc;
}

static int pipe_open(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;
	struct bale_dataset ds;
	int rc;

	if (bale_file_mkdirs(o->out) != 0)
		return bale_errbuf_set(&p->err, BALE_EIO,
		    "cannot create output folder '%s': %s", o->out,
		    strerror(errno));
	memset(&ds, 0, sizeof(ds));
	ds.name = o->name ? o->name : "data";
	ds.classes = bale_walk_classes(run->walk);
	ds.nclasses = bale_walk_nclasses(run->walk);
	ds.nitems = bale_walk_count(run->walk);
	ds.replace = o->replace;
	if (run->encode) {
		ds.pixels_w = run->encode->pixels_w;
		ds.pixels_h = run->encode->pixels_h;
	}
	rc = pipe_open_writers(p, run, &ds);
	if (rc != BALE_OK)
		return rc;
	run->rootfd = open(o->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (run->rootfd < 0)
		return bale_errbuf_set(&p->err, BALE_EIO,
		    "cannot open '%s': %s", o->src, strerror(errno));
	return BALE_OK;
}

/* Finish every writer before publishing any, so a failure in one leaves
 * no other output looking complete. */
static int pipe_finish(struct bale_pipeline *p, struct pipe_run *run)
{
	size_t i;

	for (i = 0; i < run->nwriters; i++)
		if (bale_writer_finish(run->writers[i]) != BALE_OK)
			return bale_errbuf_set(&p->err, BALE_EBACKEND, "%s",
			    bale_writer_errmsg(run->writers[i]));
	for (i = 0; i < run->nwriters; i++)
		if (bale_writer_publish(run->writers[i]) != BALE_OK)
			return bale_errbuf_set(&p->err, BALE_EIO, "%s",
			    bale_writer_errmsg(run->writers[i]));
	return BALE_OK;
}

static void pipe_release(struct pipe_run *run)
{
	size_t i;

	for (i = 0; i < run->nwriters; i++)
		bale_writer_free(run->writers[i]);
	if (run->rootfd >= 0)
		close(run->rootfd);
	bale_journal_release(&run->journal);
	free(run->journal_path);
	free(run->order);
	bale_walk_free(run->walk);
}

static int pipe_check_opts(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;
	char why[256];

	if (!o->src || !o->out || !o->formats)
		return bale_errbuf_set(&p->err, BALE_EINVAL,
		    "source, output and format are required");
	if (o->name && (!*o->name || strchr(o->name, '/')))
		return bale_errbuf_set(&p->err, BALE_EINVAL,
		    "name '%s' must be a plain file name", o->name);
	if (!o->encode)
		return BALE_OK;
	if (bale_encode_cfg_parse(&run->encode_cfg, o->encode, why,
	    sizeof(why)) != 0)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "%s", why);
	run->encode = &run->encode_cfg;
	return BALE_OK;
}

static void pipe_reset(struct bale_pipeline *p)
{
	bale_report_free(p->report);
	p->report = NULL;
	memset(&p->stats, 0, sizeof(p->stats));
	bale_errbuf_clear(&p->err);
}

int bale_pipeline_run(struct bale_pipeline *p, const struct bale_pack_opts *o)
{
	struct pipe_run run;
	int rc;

	pipe_reset(p);
	memset(&run, 0, sizeof(run));
	run.opts = o;
	run.stop = &p->stop;
	run.rootfd = -1;
	run.threads = pipe_threads(o);
	clock_gettime(CLOCK_MONOTONIC, &run.t0);
	/* the report exists first, so even a refused run can be reported */
	if (bale_report_new(&p->report) != BALE_OK)
		rc = bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	else
		rc = pipe_check_opts(p, &run);
	if (rc == BALE_OK)
		rc = pipe_writers(p, &run);
	if (rc == BALE_OK)
		rc = pipe_walk(p, &run);
	if (rc == BALE_OK)
		rc = pipe_order(p, &run);
	if (rc == BALE_OK)
		rc = pipe_open(p, &run);
	if (rc == BALE_OK && pipe_stopped(p))
		rc = pipe_stop_error(p, &run, run.first);
	if (rc == BALE_OK)
		rc = pipe_transfer(p, &run);
	if (rc == BALE_OK)
		rc = pipe_finish(p, &run);
	pipe_journal_end(&run, rc);
	pipe_release(&run);
	p->stats.seconds = pipe_since(&run.t0);
	p->err.rc = rc;
	return rc;
}

void bale_pipeline_stats(const struct bale_pipeline *p,
    struct bale_pack_stats *out)
{
	*out = p->stats;
}

int bale_pipeline_skipped(const struct bale_pipeline *p, size_t i,
    const char **path, const char **reason)
{
	if (!p->report || i >= bale_report_count(p->report, BALE_NOTE_SKIPPED))
		return BALE_ENOENT;
	bale_report_get(p->report, BALE_NOTE_SKIPPED, i, path, reason);
	return BALE_OK;
}

int bale_pipeline_warning(const struct bale_pipeline *p, size_t i,
    const char **what, const char **text)
{
	if (!p->report || i >= bale_report_count(p->report, BALE_NOTE_WARNING))
		return BALE_ENOENT;
	bale_report_get(p->report, BALE_NOTE_WARNING, i, what, text);
	return BALE_OK;
}

int bale_pipeline_write_report(struct bale_pipeline *p,
    const struct bale_pack_opts *o, const char *path)
{
	struct bale_buf b = BALE_BUF_INIT;
	struct bale_report_run run;
	int rc = BALE_OK;

	if (!p->report)
		return BALE_ESTATE;
	memset(&run, 0, sizeof(run));
	run.opts = o;
	run.stats = &p->stats;
	run.status = p->err.rc == BALE_OK ? "complete" :
	    p->err.rc == BALE_EINTR ? "interrupted" : "failed";
	run.error = p->err.rc == BALE_OK ? NULL : p->err.msg;
	run.threads = pipe_threads(o);
	bale_report_json(p->report, &run, &b);
	if (b.failed)
		rc = BALE_ENOMEM;
	else if (bale_file_write_atomic(path, b.data, b.len, 0) != 0)
		rc = BALE_EIO;
	bale_buf_release(&b);
	return rc;
}

const char *bale_pipeline_errmsg(const struct bale_pipeline *p)
{
	return p ? p->err.msg : "no memory";
}

void bale_pipeline_stop(struct bale_pipeline *p)
{
	atomic_store_explicit(&p->stop, 1, memory_order_relaxed);
}

void bale_pipeline_free(struct bale_pipeline *p)
{
	if (!p)
		return;
	bale_report_free(p->report);
	free(p);
}
