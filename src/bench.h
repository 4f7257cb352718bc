/* bench.h - timed random reads of one output, as a training loader does. */
#ifndef BALE_BENCH_H
#define BALE_BENCH_H

#include <stddef.h>
#include <stdint.h>

struct bale_bench_target {
	const char *label;	/* what the table calls it */
	const char *format;	/* reader backend, or NULL to guess */
	const char *path;
	const char *opt_key;	/* a reader option set to 1, or NULL */
};

struct bale_bench_opts {
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

struct bale_bench_handles;

/** Open @t once for each of @threads threads (not timed); the handles
 *  serve every run of a group, as a loader keeps its files open.
 *  @return the handles, or NULL with @err set */
struct bale_bench_handles *bale_bench_open(const struct bale_bench_target *t,
    unsigned threads, char *err, size_t errlen);

/** Read @o->order with one thread per handle, each read timed.
 *  @return 0, or -1 with @err set */
int bale_bench_read(struct bale_bench_handles *h,
    const struct bale_bench_opts *o, struct bale_bench_run *out, char *err,
    size_t errlen);

void bale_bench_close(struct bale_bench_handles *h);

/** Open @t once to learn its sample count and the files behind it.
 *  @return those files, NULL-ended, in a new array of new strings; NULL
 *  with @err set */
char **bale_bench_probe(const struct bale_bench_target *t, uint64_t *count,
    char *err, size_t errlen);

#endif
