/* cmd_bench.c - bale bench: random reads of outputs against the folder. */
#include "cli.h"
#include "bench_report.h"
#include "outputs.h"

#include "bale.h"
#include "bench.h"
#include "cache.h"
#include "shuffle.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_TARGETS 16
#define BENCH_MAX_THREADS 8

static const char bench_help[] =
"usage: bale bench OUT... --against SRC [options]\n"
"\n"
"Read the same seeded random sample order from the folder SRC and from\n"
"every output in OUT (folders of outputs, or outputs), and compare.\n"
"With a wds output, a reference line 'pread-ref' reads only the image\n"
"bytes with one bare pread each: the limit for any packed format.\n"
"With an LMDB output, 'lmdb-map' reads it with map=1: a sample's repeat\n"
"reads come from the memory map (pays off when data stays cached).\n"
"\n"
"  -t, --threads LIST    reader threads, e.g. 1,2 (default 1)\n"
"  -k, --samples K       reads per run (default: all, at most 10000)\n"
"      --seed S          order seed (default 0)\n"
"      --cache MODE      warm, cold or both (default warm)\n"
"      --drop-caches     cold runs also drop dentries and inodes via\n"
"                        /proc/sys/vm/drop_caches (needs root)\n"
"      --decode          decode every JPEG too (libjpeg-turbo)\n"
"      --sequential      read in stored order instead of at random\n"
"  -r, --runs R          runs per target (default 3)\n"
"      --json FILE       all runs as JSON\n"
"      --svg FILE        a bar chart of the medians\n";

struct bench_args {
	const char *against;
	const char *outs[BENCH_MAX_TARGETS];
	unsigned nouts;
	unsigned threads[BENCH_MAX_THREADS];
	unsigned nthreads;
	uint64_t k;
	uint64_t seed;
	int warm;
	int cold;
	int drop;
	int decode;
	int sequential;
	unsigned runs;
	const char *json;
	const char *svg;
};

struct bench_targets {
	struct bale_bench_target t[BENCH_MAX_TARGETS];
	char **files[BENCH_MAX_TARGETS];
	char *paths[BENCH_MAX_TARGETS];
	uint64_t counts[BENCH_MAX_TARGETS];
	unsigned n;
};

enum { OPT_AGAINST = 256, OPT_SEED, OPT_CACHE, OPT_DROP, OPT_DECODE,
	OPT_SEQ, OPT_JSON, OPT_SVG };

static const struct option bench_longopts[] = {
	{ "against", required_argument, NULL, OPT_AGAINST },
	{ "threads", required_argument, NULL, 't' },
	{ "samples", required_argument, NULL, 'k' },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "cache", required_argument, NULL, OPT_CACHE },
	{ "drop-caches", no_argument, NULL, OPT_DROP },
	{ "decode", no_argument, NULL, OPT_DECODE },
	{ "sequential", no_argument, NULL, OPT_SEQ },
	{ "runs", required_argument, NULL, 'r' },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int bench_threads(struct bench_args *a, char *list)
{
	char *save = NULL;
	char *tok;
	uint64_t n;

	a->nthreads = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	    tok = strtok_r(NULL, ",", &save)) {
		if (cli_parse_u64(tok, &n) != 0 || n == 0 || n > 256 ||
		    a->nthreads == BENCH_MAX_THREADS)
			return cli_usage_error("bench", "-t wants 1..256, "
			    "comma-separated");
		a->threads[a->nthreads++] = (unsigned)n;
	}
	return a->nthreads ? 0 : cli_usage_error("bench", "-t is empty");
}

static int bench_flag(struct bench_args *a, int c, char *arg)
{
	uint64_t n;

	switch (c) {
	case OPT_AGAINST: a->against = arg; return 0;
	case 't': return bench_threads(a, arg);
	case 'k': return cli_parse_u64(arg, &a->k) ? cli_usage_error("bench",
	    "-k wants a count") : 0;
	case OPT_SEED: return cli_parse_u64(arg, &a->seed) ?
	    cli_usage_error("bench", "--seed wants a number") : 0;
	case OPT_CACHE:
		a->warm = strcmp(arg, "warm") == 0 || strcmp(arg, "both") == 0;
		a->cold = strcmp(arg, "cold") == 0 || strcmp(arg, "both") == 0;
		return a->warm || a->cold ? 0 : cli_usage_error("bench",
		    "--cache wants warm, cold or both");
	case OPT_DROP: a->drop = 1; return 0;
	case OPT_DECODE: a->decode = 1; return 0;
	case OPT_SEQ: a->sequential = 1; return 0;
	case 'r':
		if (cli_parse_u64(arg, &n) || n == 0 || n > BENCH_MAX_RUNS)
			return cli_usage_error("bench", "-r wants 1..%d",
			    BENCH_MAX_RUNS);
		a->runs = (unsigned)n;
		return 0;
	case OPT_JSON: a->json = arg; return 0;
	case OPT_SVG: a->svg = arg; return 0;
	default: return cli_usage_error("bench", "bad option");
	}
}

static int bench_parse(int argc, char **argv, struct bench_args *a)
{
	int c;

	a->threads[0] = 1;
	a->nthreads = 1;
	a->warm = 1;
	a->runs = 3;
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:k:r:h", bench_longopts,
	    NULL)) != -1) {
		if (c == 'h') {
			fputs(bench_help, stdout);
			exit(CLI_OK);
		}
		if (c == '?' || bench_flag(a, c, optarg) != 0)
			return CLI_USAGE;
	}
	for (; optind < argc && a->nouts < BENCH_MAX_TARGETS - 3; optind++)
		a->outs[a->nouts++] = argv[optind];
	if (!a->against)
		return cli_usage_error("bench", "name the folder with --against");
	if (a->nouts == 0 || optind < argc)
		return cli_usage_error("bench", "expected 1..%d outputs",
		    BENCH_MAX_TARGETS - 3);
	return 0;
}

static int bench_add(struct bench_targets *ts, const char *label,
    const char *format, char *path, const char *key)
{
	struct bale_bench_target *t = &ts->t[ts->n];
	char err[256];

	if (ts->n == BENCH_MAX_TARGETS) {
		free(path);
		fprintf(stderr, "bale bench: too many outputs\n");
		return -1;
	}
	t->label = label;
	t->format = format;
	t->path = path;
	t->opt_key = key;
	ts->paths[ts->n] = path;
	err[0] = '\0';
	ts->files[ts->n] = bale_bench_probe(t, &ts->counts[ts->n], err,
	    sizeof(err));
	ts->n++;
	if (!ts->files[ts->n - 1]) {
		fprintf(stderr, "bale bench: %s\n", err);
		return -1;
	}
	return 0;
}

/* The first target read with @format, or NULL. */
static const char *bench_first(const struct bench_targets *ts,
    const char *format)
{
	unsigned i;

	for (i = 0; i < ts->n; i++)
		if (strcmp(ts->t[i].format, format) == 0)
			return ts->t[i].path;
	return NULL;
}

/* The folder, every output, and two more lines: the pread reference over
 * the first wds output, and the first LMDB output read with map=1. */
static int bench_targets(const struct bench_args *a, struct bench_targets *ts)
{
	const char *f;
	char **paths;
	size_t n;
	size_t i;
	unsigned o;

	if (bench_add(ts, "folder", "folder", strdup(a->against), NULL))
		return -1;
	for (o = 0; o < a->nouts; o++) {
		if (cli_find_outputs("bench", a->outs[o], NULL, &paths, &n))
			return -1;
		for (i = 0; i < n; i++) {
			f = bale_output_format(paths[i]);
			if (bench_add(ts, f, f, strdup(paths[i]), NULL))
				return cli_free_outputs(paths, n), -1;
		}
		cli_free_outputs(paths, n);
	}
	f = bench_first(ts, "wds");
	if (f && bench_add(ts, "pread-ref", "wds", strdup(f), "images_only"))
		return -1;
	f = bench_first(ts, "lmdb");
	if (f && bench_add(ts, "lmdb-map", "lmdb", strdup(f), "map"))
		return -1;
	return 0;
}

static void bench_free_targets(struct bench_targets *ts)
{
	unsigned i;
	size_t j;

	for (i = 0; i < ts->n; i++) {
		for (j = 0; ts->files[i] && ts->files[i][j]; j++)
			free(ts->files[i][j]);
		free(ts->files[i]);
		free(ts->paths[i]);
	}
}

/* The smallest sample count over the targets, so every index exists. */
static uint64_t bench_count(const struct bench_targets *ts)
{
	uint64_t n = ts->counts[0];
	unsigned i;

	for (i = 1; i < ts->n; i++) {
		if (ts->counts[i] != n)
			fprintf(stderr, "bale bench: note: '%s' holds %llu "
			    "samples, '%s' %llu; reading the common prefix\n",
			    ts->t[i].path, (unsigned long long)ts->counts[i],
			    ts->t[0].path, (unsigned long long)n);
		n = ts->counts[i] < n ? ts->counts[i] : n;
	}
	return n;
}

static uint64_t *bench_order(const struct bench_args *a, uint64_t n,
    uint64_t *k)
{
	uint64_t *order = malloc((n ? n : 1) * sizeof(uint64_t));
	uint64_t i;

	*k = a->k ? a->k : 10000;
	*k = *k < n ? *k : n;
	if (!order)
		return NULL;
	if (a->sequential)
		for (i = 0; i < n; i++)
			order[i] = i;
	else
		bale_shuffle(order, (size_t)n, a->seed);
	return order;
}

/* Make target @i cold: drop everything if asked and allowed, else evict
 * its files. Returns the share of its pages still resident. */
static double bench_make_cold(const struct bench_args *a,
    const struct bench_targets *ts, unsigned i, const char **how)
{
	if (a->drop && bale_cache_drop_all() == 0)
		*how = "drop_caches=3 (page cache, dentries and inodes)";
	else {
		bale_cache_evict((const char *const *)ts->files[i]);
		*how = a->drop ? "posix_fadvise DONTNEED (drop_caches refused)"
		    : "posix_fadvise DONTNEED (data pages only)";
	}
	return bale_cache_resident((const char *const *)ts->files[i]);
}

/* One timed run of target @i. Cold: no handle of any target is open (a
 * mapped page cannot be evicted, and LMDB targets of one file share their
 * map); the cache is dropped, residency measured, the handles opened for
 * this run only (opening may read an index, as a loader does before its
 * epoch). Warm: one untimed pass before the first run. */
static int bench_one(const struct bench_args *a, const struct bench_targets
    *ts, unsigned i, struct bale_bench_handles **h,
    const struct bale_bench_opts *o, struct bench_row *row, const char **how)
{
	struct bale_bench_run run;
	double resident = 1;
	char err[256];
	int rc;

	if (row->cache[0] == 'c') {
		resident = bench_make_cold(a, ts, i, how);
		*h = bale_bench_open(&ts->t[i], row->threads, err, sizeof(err));
		if (!*h) {
			fprintf(stderr, "bale bench: %s: %s\n", ts->t[i].label,
			    err);
			return -1;
		}
	} else if (row->nruns == 0) {
		bale_bench_read(*h, o, &run, err, sizeof(err));
	}
	rc = bale_bench_read(*h, o, &run, err, sizeof(err));
	if (row->cache[0] == 'c') {
		bale_bench_close(*h);
		*h = NULL;
	}
	if (rc != 0) {
		fprintf(stderr, "bale bench: %s: %s\n", ts->t[i].label, err);
		return -1;
	}
	row->rate[row->nruns] = (double)run.samples / run.seconds;
	row->mbps[row->nruns] = (double)run.bytes / 1e6 / run.seconds;
	row->p50[row->nruns] = run.p50_ms;
	row->p99[row->nruns] = run.p99_ms;
	row->resident[row->nruns] = resident;
	row->nruns++;
	if (row->cache[0] == 'c')
		fprintf(stderr, "bale bench: %s cold run %u: %.1f%% resident "
		    "before\n", ts->t[i].label, row->nruns, resident * 100);
	return 0;
}

/* Runs rotate the target order, so no target always goes first. Warm,
 * each target's handles stay open across the group's runs. */
static int bench_group(const struct bench_args *a,
    const struct bench_targets *ts, unsigned threads,
    struct bale_bench_opts *o, struct bench_row *rows, const char **how)
{
	struct bale_bench_handles *h[BENCH_MAX_TARGETS] = { NULL };
	char err[256];
	unsigned run;
	unsigned j;
	unsigned i;
	int rc = 0;

	for (i = 0; rc == 0 && rows[0].cache[0] == 'w' && i < ts->n; i++) {
		h[i] = bale_bench_open(&ts->t[i], threads, err, sizeof(err));
		if (!h[i]) {
			fprintf(stderr, "bale bench: %s: %s\n", ts->t[i].label,
			    err);
			rc = -1;
		}
	}
	for (run = 0; rc == 0 && run < a->runs; run++)
		for (j = 0; rc == 0 && j < ts->n; j++) {
			i = (j + run) % ts->n;
			rc = bench_one(a, ts, i, &h[i], o, &rows[i], how);
		}
	for (i = 0; i < ts->n; i++)
		bale_bench_close(h[i]);
	return rc;
}

static int bench_all(const struct bench_args *a, const struct bench_targets
    *ts, struct bale_bench_opts *o, struct bench_method *m)
{
	struct bench_row rows[2 * BENCH_MAX_THREADS * BENCH_MAX_TARGETS];
	unsigned nrows = 0;
	unsigned c;
	unsigned t;
	unsigned i;
	int rc = 0;

	memset(rows, 0, sizeof(rows));
	m->eviction = "none (warm only)";
	for (c = 0; c < 2 && rc == 0; c++) {
		if (!(c == 0 ? a->warm : a->cold))
			continue;
		for (t = 0; t < a->nthreads && rc == 0; t++) {
			for (i = 0; i < ts->n; i++) {
				rows[nrows + i].label = ts->t[i].label;
				rows[nrows + i].cache = c ? "cold" : "warm";
				rows[nrows + i].threads = a->threads[t];
			}
			rc = bench_group(a, ts, a->threads[t], o, rows + nrows,
			    &m->eviction);
			nrows += ts->n;
		}
	}
	if (rc != 0)
		return CLI_FAILED;
	bench_print_table(stdout, m, rows, nrows);
	if (a->json && bench_write_json(a->json, m, rows, nrows) != 0)
		rc = fprintf(stderr, "bale bench: cannot write '%s'\n", a->json);
	if (a->svg && bench_write_svg(a->svg, m, rows, nrows) != 0)
		rc = fprintf(stderr, "bale bench: cannot write '%s'\n", a->svg);
	return rc ? CLI_FAILED : CLI_OK;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_args a;
	struct bench_targets ts;
	struct bale_bench_opts o;
	struct bench_method m;
	uint64_t *order = NULL;
	uint64_t n = 0;
	int rc = CLI_FAILED;

	memset(&a, 0, sizeof(a));
	memset(&ts, 0, sizeof(ts));
	memset(&o, 0, sizeof(o));
	memset(&m, 0, sizeof(m));
	if (bench_parse(argc, argv, &a) != 0)
		return CLI_USAGE;
	if (bench_targets(&a, &ts) == 0) {
		n = bench_count(&ts);
		order = bench_order(&a, n, &o.k);
	}
	if (order) {
		o.order = order;
		o.decode = a.decode;
		m.k = o.k;
		m.seed = a.seed;
		m.runs = a.runs;
		m.decode = a.decode;
		m.sequential = a.sequential;
		rc = bench_all(&a, &ts, &o, &m);
	}
	free(order);
	bench_free_targets(&ts);
	return rc;
}
