/* pipe_plan.c - the plan of a run that packs the whole source: every
 * sample of the walk, in its order or shuffled, a part's slice of them,
 * and the run's identity (what its journal and its part file name). */
#include "pipeline.h"

#include "resume.h"
#include "shuffle.h"

#include <stdlib.h>

/* A part's slice of @n positions: [n*i/count, n*(i+1)/count), so the
 * parts in order are the whole run, balanced by count. */
static void plan_slice(struct pipe_run *run, uint64_t n)
{
	const struct bale_pack_opts *o = run->opts;
	uint64_t hi;

	run->plan.count = n;
	if (o->part_count) {
		run->plan.key_base = n * o->part_index / o->part_count;
		hi = n * (o->part_index + 1) / o->part_count;
		run->plan.count = hi - run->plan.key_base;
	}
	run->plan.order.perm = run->plan.order_all ?
	    run->plan.order_all + run->plan.key_base : NULL;
	run->plan.order.base = run->plan.key_base;
}

int bale_pipe_plan_fits(struct bale_pipeline *p, const struct pipe_run *run)
{
	size_t n = bale_walk_count(run->in.walk);

	if (n > BALE_ORDER_MAX)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "%zu samples: "
		    "bale packs at most %lu in one run", n,
		    (unsigned long)BALE_ORDER_MAX);
	return BALE_OK;
}

int bale_pipe_plan_whole(struct bale_pipeline *p, struct pipe_run *run)
{
	size_t n = bale_walk_count(run->in.walk);
	struct bale_order whole = { NULL, 0 };
	int rc = bale_pipe_plan_fits(p, run);

	if (rc != BALE_OK)
		return rc;
	if (run->opts->shuffle) {
		run->plan.order_all = malloc((n ? n : 1) *
		    sizeof(*run->plan.order_all));
		if (!run->plan.order_all)
			return bale_errbuf_set(&p->err, BALE_ENOMEM,
			    "no memory");
		bale_shuffle(run->plan.order_all, n, run->opts->seed);
		whole.perm = run->plan.order_all;
	}
	run->plan.content = bale_resume_content(run->in.walk, &whole, n);
	bale_resume_fingerprint(run->opts, run->in.walk, run->plan.content,
	    0, run->plan.run_fp);
	plan_slice(run, n);
	p->stats.found = run->plan.count;
	return BALE_OK;
}

void bale_pipe_drop_samples(struct pipe_run *run)
{
	free(run->plan.order_all);
	run->plan.order_all = NULL;
	run->plan.order = (struct bale_order){ NULL, 0 };
	bale_walk_drop_samples(run->in.walk);
}

/* Relabeling renumbers an output's classes: only an update does that. */
static int plan_whole_start(struct bale_pipeline *p, struct pipe_run *run)
{
	return run->opts->relabel ? bale_errbuf_set(&p->err, BALE_EINVAL,
	    "relabeling is a kind of update: it needs update set") : BALE_OK;
}

const struct pipe_planner bale_pipe_whole = {
	.start = plan_whole_start,
	.plan = bale_pipe_plan_whole,
	.resumes = 1,
};
