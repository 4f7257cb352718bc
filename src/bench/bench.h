/* bench.h - timed random reads of one output, as a training loader does.
 *
 * The building block of the bench experiment (bench_run.c): a set of
 * reader handles, one per thread, and one timed pass over an order. */
#ifndef BALE_BENCH_H
#define BALE_BENCH_H

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_tools.h"

#include <stddef.h>
#include <stdint.h>

struct bench_target {
	const char *label;	/* what the results call it */
	const char *format;	/* reader backend, or NULL to guess */
	const char *path;
	const char *opt_key;	/* a reader option set to 1, or NULL */
};

struct bench_pass {
	const uint64_t *order;	/* sample indices, read in this order */
	uint64_t k;
	int decode;		/* also decode every JPEG (libjpeg-turbo) */
};

struct bench_pass_result {
	double seconds;
	uint64_t samples;
	uint64_t bytes;
	double p50_ms;
	double p99_ms;
	uint32_t digest;	/* of every byte read: nothing is skipped */
	uint64_t decoded;	/* JPEGs decoded */
};

struct bench_handles;

/** Open @t once for each of @threads threads (not timed); the handles
 *  serve every run of a group, as a loader keeps its files open.
 *  @return BALE_OK, or a failure code with @err set */
int bale_bench_handles_open(const struct bench_target *t, unsigned threads,
    struct bench_handles **out, struct bale_errbuf *err);

/** Read @p->order with one thread per handle, each read timed.
 *  @return BALE_OK, or a failure code with @err set */
int bale_bench_handles_read(struct bench_handles *h, const struct bench_pass *p,
    struct bench_pass_result *out, struct bale_errbuf *err);

/** Close every handle. NULL is fine. */
void bale_bench_handles_close(struct bench_handles *h);

/** What bench learns of a target by opening it once (untimed). */
struct bench_probed {
	uint64_t count;		/* samples */
	char **files;		/* behind it, NULL-ended, new strings (free
				 * with bale_bench_free_files) */
	unsigned caps;		/* its backend's capability bits */
	int folder;		/* read as the raw folder */
};

/** Open @t once to learn what struct bench_probed holds.
 *  @return BALE_OK, or a failure code with @err set */
int bale_bench_probe(const struct bench_target *t, struct bench_probed *out,
    struct bale_errbuf *err);

void bale_bench_free_files(char **files);

/* bench_pair.c */

/** For each of the first @k indices of @order into output @ref, the
 *  index in the raw folder @folder of the image it was packed from (by
 *  source path), in *@out (k of them, malloc'd).
 *  @return BALE_OK; BALE_ENOENT (@err says which sample) when one has no
 *  source path or its path is not in the folder; another code with
 *  @err set on failure */
int bale_bench_pair_folder(const char *folder, const struct bench_target *ref,
    const uint64_t *order, uint64_t k, uint64_t **out,
    struct bale_errbuf *err);

struct bale_bench;

/** Where @b's calls leave their error (bench_json.c writes there). */
struct bale_errbuf *bale_bench_err(struct bale_bench *b);

#endif
