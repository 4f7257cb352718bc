/* pipe_journal.c - the resume journal of a run: read (with --resume)
 * and checked against the run's fingerprint, rewritten as the writers'
 * checkpoints move, removed when the run is done or kept when there is
 * something to resume from. */
#include "pipeline.h"

#include "bale_store.h"

#include "resume.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static int pipe_journal_write(struct bale_pipeline *p, struct pipe_run *run)
{
	int rc = bale_journal_write(&run->jr.j, run->jr.path, run->out.sync,
	    &p->err);

	if (rc != BALE_OK)
		return rc;
	run->jr.written = 1;
	run->jr.dirty = 0;
	run->jr.at = pipe_since(&run->t0);
	return BALE_OK;
}

/* After each sample: note moved checkpoints, rewrite the journal now and
 * then (a kill resumes from an older one, which is as correct). */
int bale_pipe_journal_follow(struct bale_pipeline *p, struct pipe_run *run)
{
	if (bale_resume_follow(&run->jr.j, run->out.writers, run->out.nwriters))
		run->jr.dirty = 1;
	if (!run->jr.dirty ||
	    pipe_since(&run->t0) - run->jr.at < PIPE_JOURNAL_SECONDS)
		return BALE_OK;
	return pipe_journal_write(p, run);
}

/* Has any writer kept something a resumed run could start from? */
int bale_pipe_journal_has_progress(const struct pipe_run *run)
{
	size_t i;

	for (i = 0; i < run->jr.j.nwriters; i++)
		if (run->jr.j.writers[i].next > 0)
			return 1;
	return 0;
}

/* Done: the journal goes. Failed: it stays if it has something to
 * resume from (the writers kept the same), else it goes too.
 * @return 1 when it stays */
int bale_pipe_journal_end(struct pipe_run *run, int rc)
{
	struct bale_errbuf err;

	if (!run->jr.written)
		return 0;
	if (rc != BALE_OK && bale_pipe_journal_has_progress(run)) {
		if (run->jr.dirty)	/* best effort: resume from later */
			bale_journal_write(&run->jr.j, run->jr.path, 0, &err);
		return 1;
	}
	(void)bale_store_remove(run->jr.path, &err);
	return 0;
}

/* With --resume, the journal of the run to carry on; without one, or
 * without --resume, an empty one (every writer starts afresh). */
static int pipe_read_journal(struct bale_pipeline *p, struct pipe_run *run)
{
	char fp[17];
	int rc = BALE_ENOENT;	/* without resume: as if there were none */

	bale_resume_fingerprint(run->opts, run->in.walk, run->plan.content,
	    1, fp);
	if (run->opts->resume)
		rc = bale_journal_read(&run->jr.j, run->jr.path,
		    &p->err);
	if (rc != BALE_OK && rc != BALE_ENOENT)
		return rc;
	if (rc == BALE_OK && strcmp(run->jr.j.fingerprint, fp) != 0) {
		rc = bale_errbuf_set(&p->err, BALE_EINVAL, "'%s' is from a "
		    "run with other inputs or settings: it cannot be resumed",
		    run->jr.path);
		p->err.remedy = BALE_REMEDY_START_OVER;
		return rc;
	}
	memcpy(run->jr.j.fingerprint, fp, sizeof(fp));
	run->jr.none = rc == BALE_ENOENT;
	return BALE_OK;
}

int bale_pipe_journal_start(struct bale_pipeline *p, struct pipe_run *run,
    const char *name)
{
	run->jr.path = bale_journal_path(run->out.dir, name);
	if (!run->jr.path)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	return pipe_read_journal(p, run);
}

int bale_pipe_journal_begin(struct bale_pipeline *p, struct pipe_run *run)
{
	int rc = pipe_journal_write(p, run);

	run->jr.at = -PIPE_JOURNAL_SECONDS;	/* the first checkpoint is
						 * journaled at once */
	return rc;
}
