/* bench.h - timed random reads of one output, as a training loader does. */
#ifndef BALE_BENCH_H
#define BALE_BENCH_H

#include <stddef.h>
#include <stdint.h>

struct bale_bench_target {
	const char *label;	/* what the table calls it */
	const char *format;	/* reader backend, or NULL to guess */
	const char *path;
	const char *opt_key;	/* one reader option, or NULL */
	const char *opt_value;
};

struct bale_bench_opts {
	unsigned threads;
	const uint64_t *order;	/* sample indices, read in this order */
	uint64_t k;
	int decode;		/* also decode every JPEG (libjpeg-turbo) */
};

struct bale_bench_run {
	double seconds;
	uint64_t samples;
	uint64_t bytes;
	double p50_ms;
	double p99_ms;
	uint32_t digest;	/* of every byte read: nothing is skipped */
	uint64_t decoded;	/* JPEGs decoded */
};

/** Open @t once per thread (not timed), then read @o->order with
 *  @o->threads threads, each read timed. @return 0, or -1 with @err set */
int bale_bench_read(const struct bale_bench_target *t,
    const struct bale_bench_opts *o, struct bale_bench_run *out, char *err,
    size_t errlen);

/** The files behind @t, NULL-ended, in a new array of new strings. */
char **bale_bench_files(const struct bale_bench_target *t, char *err,
    size_t errlen);

#endif
