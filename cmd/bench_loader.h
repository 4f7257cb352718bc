/* bench_loader.h - bale bench --loader: training batches per second
 * (bale_loader: crop decode, flip, batch) from the folder and from each
 * output, side by side. */
#ifndef BALE_BENCH_LOADER_H
#define BALE_BENCH_LOADER_H

#include <stdint.h>

struct bench_loader_args {
	const char *against;		/* the raw folder */
	const char *const *outs;	/* outputs, or folders of them */
	unsigned nouts;
	const unsigned *threads;
	unsigned nthreads;
	uint64_t samples;		/* per run (0: an epoch, at most
					 * 10 000) */
	unsigned runs;
	int size;			/* output side */
	unsigned batch;
};

/** Run it and print the table. @return a CLI exit code */
int bench_loader(const struct bench_loader_args *a);

#endif
