/* test_loader_runs.c - the run order: every sample once an epoch; the
 * positions of a window hold whole runs of consecutive samples and
 * nothing else, so a window costs one GET a run; the samples after the
 * last whole run come last; another epoch or seed, another order; the
 * same (seed, epoch), the same order. */
#include "loader_int.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void setup(struct bale_loader *l, uint64_t count, unsigned len,
    unsigned width, uint64_t seed, uint64_t epoch)
{
	struct bale_loader_rng r;

	memset(l, 0, sizeof(*l));
	l->count = count;
	l->o.run_samples = len;
	l->o.run_window = width;
	l->o.seed = seed;
	l->epoch = epoch;
	l->permuted = 1;
	bale_loader_rng_init(&r, seed, epoch, LOADER_NONE);
	bale_permutation_init(&l->order, bale_loader_runs_count(l), r.s);
}

static void check_order(uint64_t count, unsigned len, unsigned width)
{
	struct bale_loader l;
	uint64_t whole = count / len, span = (uint64_t)len * width;
	unsigned char *seen = calloc(count, 1);
	unsigned char *run_in = calloc(whole + 1, 1);
	uint64_t g, s, w;

	setup(&l, count, len, width, 11, 2);
	for (g = 0; g < count; g++) {
		s = bale_loader_run_sample(&l, g);
		CHECK(s < count);
		if (s >= count)
			break;
		CHECK(!seen[s]);
		seen[s] = 1;
		if (g >= whole * len) {	/* the tail: only the tail's */
			CHECK(s >= whole * len);
			continue;
		}
		CHECK(s < whole * len);
		/* the run is this window's, and no other's */
		w = g / span;
		if (run_in[s / len])
			CHECK_EQ(w + 1, run_in[s / len]);
		run_in[s / len] = (unsigned char)(w + 1);
	}
	for (s = 0; s < count; s++)
		CHECK(seen[s]);
	free(seen);
	free(run_in);
}

static void check_differs(void)
{
	struct bale_loader a, b;
	uint64_t g;
	int same_epoch = 1, other_epoch = 1, other_seed = 1;

	setup(&a, 1000, 10, 4, 5, 0);
	setup(&b, 1000, 10, 4, 5, 0);
	for (g = 0; g < 1000; g++)
		same_epoch &= bale_loader_run_sample(&a, g) ==
		    bale_loader_run_sample(&b, g);
	setup(&b, 1000, 10, 4, 5, 1);
	for (g = 0; g < 1000; g++)
		other_epoch &= bale_loader_run_sample(&a, g) ==
		    bale_loader_run_sample(&b, g);
	setup(&b, 1000, 10, 4, 6, 0);
	for (g = 0; g < 1000; g++)
		other_seed &= bale_loader_run_sample(&a, g) ==
		    bale_loader_run_sample(&b, g);
	CHECK(same_epoch);
	CHECK(!other_epoch);
	CHECK(!other_seed);
}

int main(void)
{
	check_order(1000, 10, 4);	/* 100 runs, 25 windows */
	check_order(1003, 10, 4);	/* a tail of 3 */
	check_order(997, 64, 16);	/* a last window of few runs */
	check_order(50, 64, 16);	/* no whole run: the tail alone */
	check_order(64, 64, 1);
	check_differs();
	return CHECK_DONE();
}
