/* cmd_bench.c - bale bench: random reads of outputs against the folder. */
#include "cli.h"
#include "bench_loader.h"
#include "bench_report.h"
#include "outputs.h"

#include "bale.h"
#include "bale_backend.h"
#include "bale_store.h"
#include "bale_tools.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_TARGETS 16
#define BENCH_MAX_THREADS 8

/* The lines the formats add (their reader options with BALE_OPTION_BENCH),
 * for --help. */
static void bench_help_lines(void)
{
	const char *const *names = bale_backend_names();
	const struct bale_option *o;
	size_t k;

	for (k = 0; names[k]; k++)
		for (o = bale_backend_find(names[k])->reader_options; o &&
		    o->key; o++)
			if (o->flags & BALE_OPTION_BENCH)
				printf("With a %s output, '%s' reads the first "
				    "with %s=1:\n  %s.\n", names[k], o->cli,
				    o->key, o->help);
	fputs("\n", stdout);
}

static const char bench_help[] =
"usage: bale bench OUT... --against SRC [options]\n"
"\n"
"Read the same seeded random sample order from the folder SRC and from\n"
"every output in OUT (folders of outputs, or outputs), and compare.\n";

static const char bench_help_options[] =
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
"      --svg FILE        a bar chart of the medians\n"
"\n"
"  --loader             instead: training batches per second through\n"
"                       bale's loader (crop decode, flip, batch), warm\n"
"      --size N         crop side (default 224)\n"
"      --batch B        batch size (default 256)\n"
"\nExample: bale bench out/ --against train/ -t 1,2 --cache both\n";

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
	int loader;
	int size;
	unsigned batch;
};

enum { OPT_AGAINST = 256, OPT_SEED, OPT_CACHE, OPT_DROP, OPT_DECODE,
	OPT_SEQ, OPT_JSON, OPT_SVG, OPT_LOADER, OPT_SIZE, OPT_BATCH };

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
	{ "loader", no_argument, NULL, OPT_LOADER },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "batch", required_argument, NULL, OPT_BATCH },
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
		if (cli_parse_u64(arg, &n) || n == 0 || n > BALE_BENCH_MAX_RUNS)
			return cli_usage_error("bench", "-r wants 1..%d",
			    BALE_BENCH_MAX_RUNS);
		a->runs = (unsigned)n;
		return 0;
	case OPT_JSON: a->json = arg; return 0;
	case OPT_SVG: a->svg = arg; return 0;
	case OPT_LOADER: a->loader = 1; return 0;
	case OPT_SIZE:
		if (cli_parse_u64(arg, &n) || n == 0 || n > 4096)
			return cli_usage_error("bench", "--size wants 1..4096");
		a->size = (int)n;
		return 0;
	case OPT_BATCH:
		if (cli_parse_u64(arg, &n) || n == 0 || n > 65536)
			return cli_usage_error("bench", "--batch wants "
			    "1..65536");
		a->batch = (unsigned)n;
		return 0;
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
	a->size = 224;
	a->batch = 256;
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:k:r:h", bench_longopts,
	    NULL)) != -1) {
		if (c == 'h') {
			fputs(bench_help, stdout);
			bench_help_lines();
			fputs(bench_help_options, stdout);
			exit(CLI_OK);
		}
		if (c == '?')
			return cli_bad_option("bench", argv, "t:k:r:h");
		if (bench_flag(a, c, optarg) != 0)
			return CLI_USAGE;
	}
	for (; optind < argc && a->nouts < BENCH_MAX_TARGETS - 3; optind++)
		a->outs[a->nouts++] = argv[optind];
	if (!a->against)
		return cli_usage_error("bench",
		    "name the folder with --against");
	if (a->nouts == 0 || optind < argc)
		return cli_usage_error("bench", "expected 1..%d outputs",
		    BENCH_MAX_TARGETS - 3);
	return 0;
}

static void bench_notice(const char *text, void *arg)
{
	(void)arg;
	fprintf(stderr, "bale bench: %s\n", text);
}

static int bench_add(struct bale_bench *b, const char *label,
    const char *format, const char *path, const char *option)
{
	if (bale_bench_add(b, label, format, path, option) == BALE_OK)
		return 0;
	fprintf(stderr, "bale bench: %s\n", bale_bench_errmsg(b));
	return -1;
}

/* The first output of each format among the targets, as recognised
 * once when it was added. */
struct bench_first {
	const char *format;
	const char *path;
};

/* Note @path as its format's first unless one was seen already. */
static void bench_note_first(struct bench_first *first, size_t *n,
    size_t cap, const char *format, const char *path)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(first[i].format, format) == 0)
			return;
	if (*n < cap)
		first[(*n)++] = (struct bench_first){ format, path };
}

/* A line more for each reader option a format offers to be measured
 * (BALE_OPTION_BENCH: wds's pread reference, LMDB read through its map),
 * over the first output of that format. */
static int bench_option_lines(struct bale_bench *b,
    const struct bench_first *first, size_t n)
{
	const struct bale_option *opt;
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < n; i++)
		for (opt = bale_backend_find(first[i].format)->reader_options;
		    rc == 0 && opt && opt->key; opt++)
			if (opt->flags & BALE_OPTION_BENCH)
				rc = bench_add(b, opt->cli, first[i].format,
				    first[i].path, opt->key);
	return rc;
}

/* Can format @f's reader read @path where it is? In an object store,
 * an output of a format that reads local files only is left out, said
 * so. */
static int bench_readable(const char *f, const char *path)
{
	const struct bale_backend *be = bale_backend_find(f);

	if (bale_store_is_local(path) || (be->caps & BALE_CAP_REMOTE))
		return 1;
	fprintf(stderr, "bale bench: '%s' left out: %s outputs are not read "
	    "from object stores\n", path, f);
	return 0;
}

/* A folder of small objects in an object store: what listing it took
 * (a loader of such a tree pays it each time it starts), and what a cold
 * run there means. */
static void bench_remote_folder(const struct bench_args *a)
{
	struct bale_reader *r = NULL;
	const char *json = NULL, *at;
	double secs = -1;
	uint64_t n = 0;

	if (bale_store_is_local(a->against))
		return;
	if (bale_reader_new(&r) == BALE_OK &&
	    bale_reader_open(r, "folder", a->against) == BALE_OK &&
	    bale_reader_count(r, &n) == BALE_OK &&
	    bale_reader_info(r, &json) == BALE_OK &&
	    (at = strstr(json, "\"listed_in_s\":")))
		secs = strtod(at + strlen("\"listed_in_s\":"), NULL);
	if (secs >= 0)
		fprintf(stderr, "bale bench: listing '%s' (%" PRIu64
		    " objects) took %.3f s\n", a->against, n, secs);
	bale_reader_free(r);
	if (a->cold)
		fprintf(stderr, "bale bench: note: a cold run drops this "
		    "machine's page cache; an object store's own caches stay "
		    "as they are\n");
}

/* The folder, every output, and the formats' measured reader options. */
static int bench_targets(const struct bench_args *a, struct bale_bench *b)
{
	char **paths[BENCH_MAX_TARGETS];
	size_t n[BENCH_MAX_TARGETS];
	struct bench_first first[16];
	size_t nfirst = 0;
	const char *f;
	unsigned o;
	size_t i;
	int rc = bench_add(b, "folder", "folder", a->against, NULL);

	if (rc == 0)
		bench_remote_folder(a);
	for (o = 0; rc == 0 && o < a->nouts; o++) {
		rc = cli_find_outputs("bench", a->outs[o], NULL, &paths[o],
		    &n[o]);
		for (i = 0; rc == 0 && i < n[o]; i++) {
			f = bale_output_format(paths[o][i]);
			if (!bench_readable(f, paths[o][i]))
				continue;
			rc = bench_add(b, f, f, paths[o][i], NULL);
			bench_note_first(first, &nfirst, sizeof(first) /
			    sizeof(first[0]), f, paths[o][i]);
		}
	}
	if (rc == 0)
		rc = bench_option_lines(b, first, nfirst);
	while (o-- > 0)
		cli_free_outputs(paths[o], n[o]);
	return rc;
}

static void bench_opts(const struct bench_args *a, struct bale_bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threads = a->threads;
	o->nthreads = a->nthreads;
	o->samples = a->k;
	o->seed = a->seed;
	o->sequential = a->sequential;
	o->warm = a->warm;
	o->cold = a->cold;
	o->drop_caches = a->drop;
	o->decode = a->decode;
	o->runs = a->runs;
	o->notice = bench_notice;
}

static int bench_report(const struct bench_args *a, struct bale_bench *b)
{
	int rc = CLI_OK;

	bench_print_table(stdout, b);
	if (a->json && bale_bench_write_json(b, a->json) != BALE_OK)
		rc = CLI_FAILED, fprintf(stderr, "bale bench: %s\n",
		    bale_bench_errmsg(b));
	if (a->svg && bench_write_svg(a->svg, b) != 0)
		rc = CLI_FAILED, fprintf(stderr, "bale bench: cannot write "
		    "'%s'\n", a->svg);
	return rc;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_args a;
	struct bale_bench_opts o;
	struct bale_bench *b = NULL;
	int rc = CLI_FAILED;

	memset(&a, 0, sizeof(a));
	if (bench_parse(argc, argv, &a) != 0)
		return CLI_USAGE;
	if (a.loader)
		return bench_loader(&(struct bench_loader_args){ a.against,
		    a.outs, a.nouts, a.threads, a.nthreads, a.k, a.runs,
		    a.size, a.batch });
	if (bale_bench_new(&b) != BALE_OK) {
		cli_error("bench", BALE_ENOMEM, "");
		return CLI_FAILED;
	}
	if (bench_targets(&a, b) == 0) {
		bench_opts(&a, &o);
		if (bale_bench_run(b, &o) == BALE_OK)
			rc = bench_report(&a, b);
		else
			fprintf(stderr, "bale bench: %s\n",
			    bale_bench_errmsg(b));
	}
	bale_bench_free(b);
	return rc;
}
