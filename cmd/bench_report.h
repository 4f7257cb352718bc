/* bench_report.h - bale bench's results, as a table, JSON and SVG. */
#ifndef BALE_BENCH_REPORT_H
#define BALE_BENCH_REPORT_H

#include <stdint.h>
#include <stdio.h>

#define BENCH_MAX_RUNS 32

/* The runs of one target under one cache state and thread count. */
struct bench_row {
	const char *label;
	const char *cache;	/* "warm" or "cold" */
	unsigned threads;
	unsigned nruns;
	double rate[BENCH_MAX_RUNS];	/* samples/s per run */
	double mbps[BENCH_MAX_RUNS];
	double p50[BENCH_MAX_RUNS];
	double p99[BENCH_MAX_RUNS];
	double resident[BENCH_MAX_RUNS];	/* share before the run */
};

struct bench_method {
	uint64_t k;
	uint64_t seed;
	unsigned runs;
	int decode;
	int sequential;
	const char *eviction;	/* how cold runs were made cold */
};

double bench_median(const double *v, unsigned n);
void bench_print_table(FILE *f, const struct bench_method *m,
    const struct bench_row *rows, unsigned nrows);
int bench_write_json(const char *path, const struct bench_method *m,
    const struct bench_row *rows, unsigned nrows);
int bench_write_svg(const char *path, const struct bench_method *m,
    const struct bench_row *rows, unsigned nrows);

#endif
