/* bench_loader.c - bale bench --loader (bench_loader.h). */
#include "bench_loader.h"

#include "cli.h"
#include "outputs.h"

#include "bale.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_LOADER_DEFAULT_SAMPLES 10000
#define BENCH_LOADER_MAX_RUNS 16

static double bench_loader_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int bench_loader_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Take batches of epoch @epoch until @samples are made: samples/s. */
static int bench_loader_pass(struct bale_loader *l, uint64_t epoch,
    uint64_t samples, double *rate)
{
	struct bale_batch b;
	uint64_t got = 0;
	double t0;
	int rc = bale_loader_seek(l, epoch, 0);

	t0 = bench_loader_now();
	while (rc == BALE_OK && got < samples &&
	    (rc = bale_loader_next(l, &b)) == BALE_OK)
		got += b.n;
	if (rc == BALE_ENOENT)
		rc = BALE_OK;
	*rate = (double)got / (bench_loader_now() - t0);
	return rc;
}

/* One target, one thread count: a warm-up pass, then the timed runs;
 * the median rate in *@median, the range in @lo, @hi. */
static int bench_loader_target(const struct bench_loader_args *a,
    const char *path, unsigned threads, double out[3])
{
	struct bale_loader_opts o = { .batch_size = a->batch, .width = a->size,
	    .height = a->size, .train = 1, .threads = threads };
	double rates[BENCH_LOADER_MAX_RUNS];
	struct bale_loader *l = NULL;
	uint64_t samples;
	unsigned r;
	int rc = bale_loader_new(&l);

	if (rc == BALE_OK)
		rc = bale_loader_open(l, path, &o);
	samples = a->samples ? a->samples : BENCH_LOADER_DEFAULT_SAMPLES;
	if (rc == BALE_OK)
		rc = bench_loader_pass(l, 0, samples, &rates[0]);
	for (r = 0; rc == BALE_OK && r < a->runs; r++)
		rc = bench_loader_pass(l, r + 1, samples, &rates[r]);
	if (rc != BALE_OK)
		fprintf(stderr, "bale bench: %s: %s\n", path, l ?
		    bale_loader_errmsg(l) : "no memory");
	bale_loader_free(l);
	if (rc != BALE_OK)
		return -1;
	qsort(rates, a->runs, sizeof(double), bench_loader_cmp);
	out[0] = a->runs % 2 ? rates[a->runs / 2] :
	    (rates[a->runs / 2 - 1] + rates[a->runs / 2]) / 2;
	out[1] = rates[0];
	out[2] = rates[a->runs - 1];
	return 0;
}

static int bench_loader_row(const struct bench_loader_args *a,
    const char *label, const char *path, unsigned threads, double *base)
{
	double m[3];

	if (bench_loader_target(a, path, threads, m) != 0)
		return -1;
	if (*base == 0)
		*base = m[0];
	printf("%-10s %3u %11.0f %9.0f..%-9.0f %7.2f\n", label, threads, m[0],
	    m[1], m[2], m[0] / *base);
	fflush(stdout);
	return 0;
}

int bench_loader(const struct bench_loader_args *a)
{
	char **paths;
	double base;
	unsigned t, o;
	size_t n, i;
	int rc = 0;

	if (a->runs > BENCH_LOADER_MAX_RUNS)
		return cli_usage_error("bench", "--loader: -r wants 1..%d",
		    BENCH_LOADER_MAX_RUNS);
	printf("loader: train crops %dx%d (RandomResizedCrop + flip), batches "
	    "of %u, %" PRIu64 " samples per run, %u runs each after a "
	    "warm-up pass, medians; warm cache\n", a->size, a->size, a->batch,
	    a->samples ? a->samples : BENCH_LOADER_DEFAULT_SAMPLES, a->runs);
	printf("target     thr   samples/s     (min..max)       x folder\n");
	for (t = 0; rc == 0 && t < a->nthreads; t++) {
		base = 0;
		rc = bench_loader_row(a, "folder", a->against, a->threads[t],
		    &base);
		for (o = 0; rc == 0 && o < a->nouts; o++) {
			if (cli_find_outputs("bench", a->outs[o], NULL, &paths,
			    &n) != 0)
				return CLI_FAILED;
			for (i = 0; rc == 0 && i < n; i++)
				rc = bench_loader_row(a,
				    bale_output_format(paths[i]), paths[i],
				    a->threads[t], &base);
			cli_free_outputs(paths, n);
		}
	}
	return rc == 0 ? CLI_OK : CLI_FAILED;
}
