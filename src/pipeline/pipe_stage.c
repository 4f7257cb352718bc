/* pipe_stage.c - a run that replaces an output (replace, bale pack
 * --force) writes its formats and its journal into the staging folder
 * OUT/.NAME-replace (stage.h); once every format is finished and
 * published there, each is moved over the old one. Until then the old
 * output is untouched: a failed or interrupted run leaves it as it was,
 * and its journal in the staging folder, where a resumed run finds it. */
#include "pipeline.h"

#include "bale_store.h"
#include "journal.h"
#include "stage.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *pipe_stage_name(const struct pipe_run *run)
{
	return run->opts->name ? run->opts->name : "data";
}

/* A resumed run carries on in the staging folder when its journal is
 * there: the run it resumes was replacing the output. */
static int pipe_stage_resumes(const char *stage, const char *name)
{
	char *journal = bale_journal_path(stage, name);
	int there = journal && access(journal, F_OK) == 0;

	free(journal);
	return there;
}

int bale_pipe_stage_begin(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;
	const char *name = pipe_stage_name(run);
	char *stage;

	run->out.dir = o->out;
	/* in an object store, the writers write a replacing run's files
	 * under names of their own: nothing to stage */
	if ((!o->replace && !o->resume) || !bale_store_is_local(o->out))
		return BALE_OK;
	stage = bale_stage_dir(o->out, name);
	if (!stage)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	if (o->resume && !pipe_stage_resumes(stage, name)) {
		free(stage);
		return BALE_OK;
	}
	if (!o->resume && bale_file_remove_tree(stage) != 0) {
		bale_errbuf_set(&p->err, BALE_EIO, "cannot remove '%s': %s",
		    stage, strerror(errno));
		free(stage);
		return BALE_EIO;
	}
	run->out.stage = stage;
	run->out.dir = stage;
	return BALE_OK;
}

int bale_pipe_stage_swap(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct bale_backend *be;
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < run->out.nwriters; i++) {
		be = bale_backend_find(bale_writer_name(run->out.writers[i]));
		assert(be);
		rc = bale_stage_swap(be, run->out.stage, run->opts->out,
		    pipe_stage_name(run), run->out.sync, &p->err);
	}
	return rc;
}

void bale_pipe_stage_end(struct pipe_run *run, int kept)
{
	if (run->out.stage && !kept)
		bale_file_remove_tree(run->out.stage);
	free(run->out.stage);
	run->out.stage = NULL;
}
