/* bale_tools.h - what the bale command's tools call that is not the
 * library's API: the read benchmark (bale bench) and the decode check
 * (bale verify --decode, bale pack --validate). Not installed, not
 * exported: the command links the static library for them, so they are
 * no part of libbale.so.0's ABI and may change with the command.
 */
#ifndef BALE_TOOLS_H
#define BALE_TOOLS_H

#include "bale.h"

#include <stddef.h>
#include <stdint.h>

/* ---- bench: random reads of outputs against the raw folder ----------- */

struct bale_bench;

#define BALE_BENCH_MAX_RUNS 32

/** The experiment. Zeroed: warm cache, one thread, 3 runs, every sample
 *  up to 10000, random order with seed 0. */
struct bale_bench_opts {
	const unsigned *threads;	/* reader thread counts, a group of
					 * runs each; NULL: one thread */
	size_t nthreads;
	uint64_t samples;	/* reads per run; 0: all, at most 10000 */
	uint64_t seed;		/* of the random order */
	int sequential;		/* read in stored order instead */
	int warm;		/* run with a warm cache (the default) */
	int cold;		/* run with a cold cache: each target's files
				 * evicted before each run, then checked */
	int drop_caches;	/* cold: drop page cache, dentries and inodes
				 * system-wide when permitted (root) */
	int decode;		/* decode every JPEG too (libjpeg-turbo) */
	unsigned runs;		/* per target and group, at most
				 * BALE_BENCH_MAX_RUNS; 0 means 3 */
	/* Called with a line worth showing (a cold run's residency, a
	 * target shorter than the others); NULL: not told. */
	void (*notice)(const char *text, void *arg);
	void *notice_arg;
};

/** The runs of one target under one cache state and thread count. */
struct bale_bench_row {
	const char *label;	/* as given to bale_bench_add() */
	const char *cache;	/* "warm" or "cold" */
	unsigned threads;
	unsigned nruns;
	/* one value per run */
	double rate[BALE_BENCH_MAX_RUNS];	/* samples/s */
	double mbps[BALE_BENCH_MAX_RUNS];	/* payload MB/s (10^6) */
	double p50_ms[BALE_BENCH_MAX_RUNS];	/* read latency */
	double p99_ms[BALE_BENCH_MAX_RUNS];
	double resident[BALE_BENCH_MAX_RUNS];	/* share of its pages in
						 * the cache before the run */
	/* over the runs */
	double median_rate;
	double min_rate;
	double max_rate;
	double median_mbps;
	double median_p50_ms;
	double median_p99_ms;
	double ratio;		/* median_rate over the baseline's (the first
				 * target's) in the same group; 0 if none */
	uint32_t digest;	/* the crc32 of every sample read, xor-ed:
				 * the same for targets that read the same
				 * images */
};

/** How the results were measured, for a report to state. */
struct bale_bench_method {
	uint64_t samples;	/* reads per run */
	uint64_t seed;
	unsigned runs;
	int decode;
	int sequential;
	const char *eviction;	/* how cold runs were made cold */
};

/** Allocate an experiment with no target. Fails only with BALE_ENOMEM. */
int bale_bench_new(struct bale_bench **out);

/** Add a target: the output (or raw folder) at @path read with backend
 *  @format (NULL: guess), with reader option @option set to "1" unless
 *  NULL. The first target added is the baseline the ratios compare with.
 *  Opens it once (untimed) to learn its size and files. */
int bale_bench_add(struct bale_bench *b, const char *label,
    const char *format, const char *path, const char *option);

/** Run the experiment: for each cache state and thread count, @o->runs
 *  runs of every target, the target order rotating from run to run, all
 *  reading the same order of sample indices (the common prefix when the
 *  targets differ in size). Every byte read is checksummed. */
int bale_bench_run(struct bale_bench *b,
    const struct bale_bench_opts *o);

/** Results of the last run: @i < bale_bench_nrows(); NULL past the end. */
size_t bale_bench_nrows(const struct bale_bench *b);
const struct bale_bench_row *bale_bench_row(const struct bale_bench *b,
    size_t i);
void bale_bench_method(const struct bale_bench *b,
    struct bale_bench_method *out);

/** Write the method and every run as JSON to @path (atomically). */
int bale_bench_write_json(struct bale_bench *b, const char *path);

const char *bale_bench_errmsg(const struct bale_bench *b);
void bale_bench_free(struct bale_bench *b);

/* ---- decode check: does an image decode? ----------------------------
 * What bale pack's validate option and bale verify --decode use: JPEG
 * through libjpeg-turbo (at 1/8 scale: every coded byte is still read,
 * so a cut or corrupt stream fails as a full decode would), PNG through
 * libspng. One handle per thread. */
struct bale_decode_check;

int bale_decode_check_new(struct bale_decode_check **out);
/** Decode @data[0..size).
 *  @return BALE_OK: it decodes; BALE_EINPUT: it does not, or it is no
 *  image (errmsg says why); BALE_ENOTSUP: an image bale does not decode
 *  (GIF, BMP, TIFF, WebP, PNM) or one too large to decode here, left
 *  unchecked (errmsg says which); BALE_ENOMEM */
int bale_decode_check_run(struct bale_decode_check *c,
    const unsigned char *data, size_t size);
const char *bale_decode_check_errmsg(
    const struct bale_decode_check *c);
void bale_decode_check_free(struct bale_decode_check *c);

#endif
