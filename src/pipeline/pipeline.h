/* pipeline.h - what the files of the pipeline share: one run's state.
 *
 *   pipeline.c        the public calls; setting a run up, tearing it down
 *   pipe_plan.c       the plan of a run of the whole source (the
 *                     planners: struct pipe_planner below)
 *   pipe_update.c     --update's planner
 *   pipe_transfer.c   the workers (read, encode, checksum) and the writing
 *                     side (samples in order to every writer)
 *   pipe_prefetch.c   read-ahead in an archive's order
 *   pipe_writers.c    the writers: the format list, option routing,
 *                     opening or resuming them, finishing and publishing
 *   pipe_journal.c    the resume journal: reading it, following the
 *                     writers' checkpoints, leaving or removing it
 */
#ifndef BALE_PIPELINE_H
#define BALE_PIPELINE_H

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bits.h"
#include "encode.h"
#include "journal.h"
#include "reorder.h"
#include "source.h"
#include "stream_feed.h"
#include "report.h"
#include "walk.h"
#include "pipe_tune.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define PIPE_MAX_WRITERS 8
#define PIPE_MAX_THREADS 256
#define PIPE_FULL_MB 1.0	/* a failed write with less free than this
				 * on the output's filesystem: it is full */
#define PIPE_READERS_PER_CPU 4	/* at most, by default (pipe_tune.h) */
/* Window slots per reader: enough to cover a slow (cold) read, few
 * enough that buffers are reused while still in the CPU's cache (64 made
 * warm packs with 8 readers 17% slower, bench/pack_threads.sh) */
#define PIPE_SLOTS_PER_THREAD 16
/* The journal is rewritten at most this often, so a run with many small
 * checkpoints does not spend its time rewriting it. */
#define PIPE_JOURNAL_SECONDS 0.25

/* The resume journal of a run, pipe_journal.c's own. */
struct pipe_journal {
	struct bale_journal j;
	char *path;
	int none;		/* --resume found none */
	int written;		/* by this run: remove it when done */
	int dirty;		/* a checkpoint moved since the last write */
	double at;		/* when it was last written */
};

/* Read-ahead hints for archive members, pipe_prefetch.c's own. */
struct pipe_prefetch {
	pthread_mutex_t lock;	/* one worker issues a batch */
	uint64_t upto;		/* read ahead up to this position */
	uint64_t expired;	/* blocks of batches before it let go */
	int remote;		/* members are asked for ahead of their
				 * reads (the store's prefetch thread) */
	struct bale_buf path;	/* scratch: a member's path */
};

/* What a run reads: the source, its samples, and how they are read. */
struct pipe_input {
	const char **srcs;	/* the SRC arguments: src, then more_srcs */
	struct bale_source source;	/* their kind (source.h) */
	struct bale_walk *walk;	/* the samples, in the walk's order */
	int rootfd;		/* a folder source's root; else -1 */
	struct bale_stream_feed *feed;	/* a compressed archive's samples */
	uint64_t *known_files;	/* an update of files stamped as a whole:
				 * the stamps its manifest holds, which the
				 * walk leaves unread (bale_walk_set_known_
				 * files) */
	size_t nknown_files;
};

/* Which samples the run packs, in which order: the run's planner makes
 * it (struct pipe_planner), the rest of the run follows it. */
struct pipe_plan {
	struct bale_order order;	/* output position -> walk index
					 * (a part's positions: its slice
					 * of the whole run's) */
	bale_order_t *order_all;	/* the whole run's shuffled order;
					 * NULL: the walk's */
	uint64_t count;		/* positions this run packs */
	uint64_t key_base;	/* the whole run's position of position 0
				 * (a part's first sample): keys are it +
				 * position */
	uint64_t content;	/* bale_resume_content() of the whole run */
	char run_fp[17];	/* the whole run's fingerprint (all parts) */
	int skip;		/* a part found complete: nothing to do */
	uint64_t first;		/* position this run starts at (resume) */
	int pack_nothing;	/* no writer opens: the output changes by
				 * removals alone (an update's) */
	struct bale_bits *written;	/* positions put are noted here
					 * (an update's manifest lists
					 * them), or NULL */
	int written_lost;	/* a position could not be noted: the
				 * run fails */
};

struct bale_pipeline;
struct pipe_run;

/* What decides a run's plan: which samples it packs, in which order,
 * under which keys and labels, and what the output keeps besides. The
 * whole source by default (pipe_plan.c); --update's difference from the
 * output's manifest (pipe_update.c). The run asks it at these points
 * alone, each NULL when the planner has nothing to do there. */
struct pipe_planner {
	/** Before the writers: check the options; may send the writers
	 *  elsewhere (run->opts). */
	int (*start)(struct bale_pipeline *p, struct pipe_run *run);
	/** After the walk: fill run->plan and run->lab. */
	int (*plan)(struct bale_pipeline *p, struct pipe_run *run);
	/** Every sample handed over, the walk still there: note what the
	 *  output will hold (before the samples go). */
	int (*packed)(struct bale_pipeline *p, struct pipe_run *run);
	/** The writers published: make the output what the plan says. */
	int (*finish)(struct bale_pipeline *p, struct pipe_run *run);
	void (*release)(struct pipe_run *run);
	int resumes;		/* a failed run keeps its journal for a
				 * resume (an update is redone instead) */
};

extern const struct pipe_planner bale_pipe_whole;
extern const struct pipe_planner bale_pipe_update;

/* What a run writes, and where (pipe_writers.c, pipe_stage.c). */
struct pipe_outputs {
	const char *dir;	/* where the writers and the journal write:
				 * opts->out, or the staging folder */
	char *stage;		/* replacing: the staging folder, or NULL */
	struct bale_writer *writers[PIPE_MAX_WRITERS];
	size_t nwriters;
	int sync;		/* a sync option was given: the journal is
				 * synced too */
};

/* The run's reader threads (pipe_transfer.c, pipe_tune.c): how many,
 * and the in-order hand-off from them to the writer. */
struct pipe_workers {
	struct bale_reorder *ro;
	unsigned threads;	/* reader threads started */
	unsigned cpus;		/* the CPUs the defaults follow */
	const char *cpus_why;	/* what limits them (cpus.h) */
	struct pipe_tune tune;	/* how many of them work */
};

/* The output's labels where they are not the walk's (an update keeps
 * the old numbering). */
struct pipe_labels {
	const int64_t *map;	/* walk label -> output label; NULL: the
				 * same */
	const char *const *classes;	/* the output's class names (NULL:
					 * the walk's) */
	size_t nclasses;
};

/* What the threads of one run share. */
struct pipe_update;

struct pipe_run {
	const struct bale_pack_opts *opts;
	struct pipe_input in;	/* what the run reads */
	struct pipe_outputs out;	/* what it writes, and where */
	struct pipe_plan plan;	/* which samples, in which order */
	struct pipe_workers wk;	/* the reader threads */
	struct pipe_labels lab;	/* the output's labels */
	struct pipe_prefetch pf;	/* pipe_prefetch.c's own */
	const struct bale_encode_cfg *encode;	/* NULL: bytes as read */
	atomic_int *stop;	/* set by bale_pipeline_stop() */
	struct bale_encode_cfg encode_cfg;
	struct timespec t0;
	struct pipe_journal jr;	/* the journal stage's (pipe_journal.c) */
	const struct pipe_planner *planner;	/* makes the plan */
	struct pipe_update *upd;	/* --update's planner's state */
	atomic_ullong unchecked;	/* --validate: images kept unchecked
					 * (a format bale does not decode) */
};

/* bale_pipeline_stop() must be async-signal-safe */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int is not lock-free");

struct bale_pipeline {
	unsigned threads_peak;	/* of the last run: most readers working */
	unsigned cpus;		/* of the last run: pipe_run's */
	const char *cpus_why;
	const char *source_kind;	/* the source's kind's name, or NULL */
	struct bale_errbuf err;
	atomic_int stop;	/* lock-free, so safe to set from a handler */
	struct bale_report *report;
	struct bale_pack_stats stats;
	double walk_seconds;	/* listing the source */
	uint64_t walk_skipped;	/* inputs skipped while listing it (in
				 * stats.skipped, never in stats.found) */
	struct bale_buf update;	/* --update: the report's "update" */
	struct bale_stream_feed_stats stream;	/* a compressed archive's */
};

static inline double pipe_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	    (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The source path of the input at output position @pos, decoded into
 * @scratch; NULL without memory. */
static inline const char *pipe_path(const struct pipe_run *run, uint64_t pos,
    struct bale_buf *scratch)
{
	return bale_walk_path(run->in.walk, bale_order_at(&run->plan.order,
	    pos), scratch);
}

/* pipe_transfer.c */

/* pipe_made.c */

/** Record how the outputs of the run made with @o were made, beside
 *  them (OUT/NAME-made.json); a failure to is a warning, not the run's.
 *  @return BALE_OK, or BALE_ENOMEM */
int bale_pipe_made(struct bale_pipeline *p, const struct bale_pack_opts *o,
    const struct pipe_run *run);

/* pipe_part.c: a part of a run (--part) */

/** 1 when this part's completion marker is there, from this very run. */
int bale_pipe_part_done(struct pipe_run *run);
/** Remove this part's marker before it is packed (again). */
int bale_pipe_part_unmark(struct bale_pipeline *p, struct pipe_run *run);
/** Leave the marker: every format of this part is published. */
int bale_pipe_part_mark(struct bale_pipeline *p, struct pipe_run *run);

/** Start the workers, hand every sample in order to the writers, stop
 *  the workers. */
int bale_pipe_transfer(struct bale_pipeline *p, struct pipe_run *run);
int bale_pipe_stopped(struct bale_pipeline *p);
/** The error of a run stopped on request after @done inputs. */
int bale_pipe_stop_error(struct bale_pipeline *p, const struct pipe_run *run,
    uint64_t done);

/* pipe_prefetch.c */

/** Before the workers start: set up reading ahead (for a source whose
 *  members are remote: the store's GETs in flight). @return BALE_OK or
 *  BALE_ENOMEM */
int bale_pipe_prefetch_begin(struct pipe_run *run);
/** A worker took output position run->plan.first + @pos: read ahead what
 *  follows, for an archive source read in place, or a remote one. */
void bale_pipe_prefetch(struct pipe_run *run, uint64_t pos);
/** After the workers stopped. */
void bale_pipe_prefetch_end(struct pipe_run *run);

/* pipe_writers.c */

/** One writer per format of the list, each given its options. */
int bale_pipe_writers(struct bale_pipeline *p, struct pipe_run *run);
/** Read (or start) the journal and open or resume every writer. */
int bale_pipe_open_writers(struct bale_pipeline *p, struct pipe_run *run,
    const struct bale_dataset *ds);
/** Finish every writer, then publish every one. */
int bale_pipe_finish(struct bale_pipeline *p, struct pipe_run *run);

/* pipe_plan.c */

/** BALE_OK when the walk's samples can be ordered (at most
 *  BALE_ORDER_MAX), else an error in p->err. */
int bale_pipe_plan_fits(struct bale_pipeline *p, const struct pipe_run *run);
/** The whole source's plan: the walk's order or a shuffled one, a part's
 *  slice of it, and the run's identity for its journal. */
int bale_pipe_plan_whole(struct bale_pipeline *p, struct pipe_run *run);
/** Free the run's samples and order: what it packs was handed over. */
void bale_pipe_drop_samples(struct pipe_run *run);

/* pipe_stage.c: an output replaced once its successor is complete */

/** Before the writers open: where they write (run->out.dir), the staging
 *  folder when the run replaces an output or resumes one that did. */
int bale_pipe_stage_begin(struct bale_pipeline *p, struct pipe_run *run);
/** After every writer published in the staging folder: move each
 *  format over the old output. */
int bale_pipe_stage_swap(struct bale_pipeline *p, struct pipe_run *run);
/** At the end of the run: the staging folder goes, unless the journal
 *  in it is @kept for a resumed run. */
void bale_pipe_stage_end(struct pipe_run *run, int kept);

/* pipe_journal.c */

/** Before the writers open: the journal of dataset @name in the output
 *  folder, read with --resume and checked against this run. */
int bale_pipe_journal_start(struct bale_pipeline *p, struct pipe_run *run,
    const char *name);
/** Once the writers are open: write the journal as they start. */
int bale_pipe_journal_begin(struct bale_pipeline *p, struct pipe_run *run);
/** After each sample: follow the writers' checkpoints. */
int bale_pipe_journal_follow(struct bale_pipeline *p, struct pipe_run *run);
int bale_pipe_journal_has_progress(const struct pipe_run *run);
/** At the end of a run that returns @rc: remove or keep the journal.
 *  @return 1 when it is kept (a resumed run can carry on) */
int bale_pipe_journal_end(struct pipe_run *run, int rc);

#endif
