/* loader_runs.c - the run order: an epoch that reads runs of
 * run_samples consecutive samples, so that an output in an object store
 * costs one GET a run, not one a sample. The whole runs are taken in a
 * seeded order, run_window of them at a time; the samples of those
 * runs are shuffled among themselves; the samples after the last whole
 * run come last, shuffled among themselves. Every position's sample is
 * a function of (seed, epoch, position), as in the sample order, so any
 * thread count and a resumed state_dict give the same batches.
 */
#include "loader_int.h"

/* The window's own seeded permutation of its @n samples. */
static void runs_window_order(const struct bale_loader *l, uint64_t w,
    uint64_t n, struct bale_permutation *p)
{
	struct bale_loader_rng r;

	bale_loader_rng_init(&r, l->o.seed, l->epoch, LOADER_NONE - 1 - w);
	bale_permutation_init(p, n, r.s);
}

uint64_t bale_loader_runs_count(const struct bale_loader *l)
{
	return l->count / l->o.run_samples;
}

uint64_t bale_loader_run_sample(const struct bale_loader *l, uint64_t g)
{
	uint64_t len = l->o.run_samples, width = l->o.run_window;
	uint64_t whole = bale_loader_runs_count(l);
	struct bale_permutation p;
	uint64_t w, runs, k;

	if (g >= whole * len) {		/* the samples after the whole runs */
		runs_window_order(l, whole / width + 1, l->count - whole * len,
		    &p);
		return whole * len + bale_permutation_at(&p, g - whole * len);
	}
	w = g / (len * width);
	runs = whole - w * width < width ? whole - w * width : width;
	runs_window_order(l, w, runs * len, &p);
	k = bale_permutation_at(&p, g - w * width * len);
	return bale_permutation_at(&l->order, w * width + k / len) * len +
	    k % len;
}
