/* bench_run.c - the bench experiment: every target, warm and cold, for
 * each thread count, runs rotating, results per group of runs. */
#include "bench.h"
#include "cache.h"
#include "shuffle.h"

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_DEFAULT_RUNS 3
#define BENCH_DEFAULT_SAMPLES 10000

struct bench_slot {
	struct bench_target t;	/* points into the strings below */
	char *label;
	char *format;
	char *path;
	char *option;
	struct bench_probed p;	/* size, files (for eviction), caps */
	uint64_t *order;	/* a folder's own, paired with an output's by
				 * path; NULL: the run's order */
};

struct bale_bench {
	struct bench_slot *slots;
	size_t nslots;
	struct bale_bench_row *rows;
	size_t nrows;
	struct bale_bench_method method;
	const struct bale_bench_opts *o;	/* during a run */
	struct bench_pass pass;
	struct bale_errbuf err;
};

int bale_bench_new(struct bale_bench **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? BALE_OK : BALE_ENOMEM;
}

static void bench_notice(const struct bale_bench *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void bench_notice(const struct bale_bench *b, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!b->o || !b->o->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	b->o->notice(line, b->o->notice_arg);
}

static char *bench_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void bench_slot_release(struct bench_slot *s)
{
	free(s->label);
	free(s->format);
	free(s->path);
	free(s->option);
	free(s->order);
	bale_bench_free_files(s->p.files);
}

int bale_bench_add(struct bale_bench *b, const char *label,
    const char *format, const char *path, const char *option)
{
	struct bench_slot *slots;
	struct bench_slot *s;

	slots = realloc(b->slots, (b->nslots + 1) * sizeof(*slots));
	if (!slots)
		return bale_errbuf_set(&b->err, BALE_ENOMEM, "no memory");
	b->slots = slots;
	s = memset(&slots[b->nslots], 0, sizeof(*s));
	s->label = strdup(label);
	s->format = bench_strdup(format);
	s->path = strdup(path);
	s->option = bench_strdup(option);
	if (!s->label || !s->path || (format && !s->format) ||
	    (option && !s->option)) {
		bench_slot_release(s);
		return bale_errbuf_set(&b->err, BALE_ENOMEM, "no memory");
	}
	s->t = (struct bench_target){ s->label, s->format, s->path,
	    s->option };
	b->nslots++;
	return bale_bench_probe(&s->t, &s->p, &b->err);
}

/* The smallest sample count over the targets, so every index exists. */
static uint64_t bench_common_count(const struct bale_bench *b)
{
	uint64_t n = b->slots[0].p.count;
	size_t i;

	for (i = 1; i < b->nslots; i++)
		n = b->slots[i].p.count < n ? b->slots[i].p.count : n;
	return n;
}

/* A raw folder is read image for image as the first output holds them,
 * paired by source path: a pack that skipped files of the tree, or
 * shuffled it, still compares the same images. Where that cannot be
 * (an output without source paths, another tree), by index. */
static int bench_pair(struct bale_bench *b, const uint64_t *order)
{
	const struct bench_slot *ref = NULL;
	struct bench_slot *s;
	size_t i;
	int rc = BALE_OK;

	for (i = 0; !ref && i < b->nslots; i++)
		ref = b->slots[i].p.folder ? NULL : &b->slots[i];
	for (i = 0; rc == BALE_OK && i < b->nslots; i++) {
		s = &b->slots[i];
		free(s->order);
		s->order = NULL;
		if (!ref || !s->p.folder)
			continue;
		rc = bale_bench_pair_folder(s->path, &ref->t, order,
		    b->method.samples, &s->order, &b->err);
		if (rc == BALE_OK)
			bench_notice(b, "note: '%s' is read image for image as "
			    "'%s' holds them (paired by source path)",
			    s->label, ref->label);
		else if (rc == BALE_ENOENT)
			bench_notice(b, "note: '%s' is read by index, not "
			    "paired with '%s': %s", s->label, ref->label,
			    b->err.msg);
		rc = rc == BALE_ENOENT ? BALE_OK : rc;
	}
	return rc;
}

/* Targets of different sizes that are not paired: said. */
static void bench_note_counts(const struct bale_bench *b)
{
	const struct bench_slot *s;
	size_t i;

	for (i = 1; i < b->nslots; i++) {
		s = &b->slots[i];
		if (s->p.count != b->slots[0].p.count && !s->order &&
		    !b->slots[0].order)
			bench_notice(b, "note: '%s' holds %llu samples, '%s' "
			    "%llu; reading the common prefix", s->path,
			    (unsigned long long)s->p.count,
			    b->slots[0].path,
			    (unsigned long long)b->slots[0].p.count);
	}
}

/* The order every run reads: the first @k of a permutation of all @n,
 * computed an index at a time, so a sample of ten million costs only
 * what is read. */
static uint64_t *bench_order(const struct bale_bench_opts *o, uint64_t n,
    uint64_t *k)
{
	struct bale_permutation perm;
	uint64_t *order;
	uint64_t i;

	*k = o->samples ? o->samples : BENCH_DEFAULT_SAMPLES;
	*k = *k < n ? *k : n;
	order = malloc((*k ? *k : 1) * sizeof(uint64_t));
	if (!order)
		return NULL;
	bale_permutation_init(&perm, n, o->seed);
	for (i = 0; i < *k; i++)
		order[i] = o->sequential ? i : bale_permutation_at(&perm, i);
	return order;
}

/* Make slot @s cold: drop everything if asked and allowed, else evict
 * its files. Returns the share of its pages still resident. */
static double bench_make_cold(struct bale_bench *b, const struct bench_slot
    *s)
{
	const char *const *files = (const char *const *)s->p.files;

	if (b->o->drop_caches && bale_cache_drop_all() == 0)
		b->method.eviction = "drop_caches=3 (page cache, dentries "
		    "and inodes)";
	else {
		bale_cache_evict(files);
		b->method.eviction = b->o->drop_caches ? "posix_fadvise "
		    "DONTNEED (drop_caches refused)" : "posix_fadvise "
		    "DONTNEED (data pages only)";
	}
	return bale_cache_resident(files);
}

static void bench_record(struct bale_bench_row *row,
    const struct bench_pass_result *run, double resident)
{
	unsigned n = row->nruns++;

	row->rate[n] = (double)run->samples / run->seconds;
	row->mbps[n] = (double)run->bytes / 1e6 / run->seconds;
	row->p50_ms[n] = run->p50_ms;
	row->p99_ms[n] = run->p99_ms;
	row->resident[n] = resident;
	row->digest = run->digest;
}

/* One timed run of slot @s. Cold: no handle of any target is open (a
 * mapped page cannot be evicted, and LMDB targets of one file share their
 * map); the cache is dropped, residency measured, the handles opened for
 * this run only (opening may read an index, as a loader does before its
 * epoch). Warm: one untimed pass before the first run. */
static int bench_one(struct bale_bench *b, const struct bench_slot *s,
    struct bench_handles **h, struct bale_bench_row *row)
{
	struct bench_pass_result run;
	struct bench_pass pass = b->pass;
	int cold = row->cache[0] == 'c';
	double resident = 1;
	int rc = BALE_OK;

	if (s->order)
		pass.order = s->order;
	if (cold) {
		resident = bench_make_cold(b, s);
		rc = bale_bench_handles_open(&s->t, row->threads, h, &b->err);
	} else if (row->nruns == 0) {
		rc = bale_bench_handles_read(*h, &pass, &run, &b->err);
	}
	if (rc == BALE_OK)
		rc = bale_bench_handles_read(*h, &pass, &run, &b->err);
	if (cold) {
		bale_bench_handles_close(*h);
		*h = NULL;
	}
	if (rc != BALE_OK)
		return rc;
	bench_record(row, &run, resident);
	return BALE_OK;
}

/* A cold run that starts with more than this share of its target's
 * pages cached is not cold: said. */
#define BENCH_NOT_COLD 0.05

/* What the cold runs' residency checks found, in a line (each run's is
 * in the JSON), and every run the eviction did not take for. */
static void bench_note_cold(const struct bale_bench *b)
{
	const struct bale_bench_row *r;
	const char *worst_label = NULL;
	double worst = 0;
	unsigned n, measured = 0, unmeasured = 0;
	size_t i;

	for (i = 0; i < b->nrows; i++) {
		r = &b->rows[i];
		for (n = 0; r->cache[0] == 'c' && n < r->nruns; n++) {
			if (r->resident[n] < 0) {
				unmeasured++;
				continue;
			}
			measured++;
			if (r->resident[n] > BENCH_NOT_COLD)
				bench_notice(b, "warning: %s cold run %u began "
				    "with %.1f%% of its pages cached: the "
				    "eviction did not take", r->label, n + 1,
				    r->resident[n] * 100);
			if (!worst_label || r->resident[n] > worst) {
				worst = r->resident[n];
				worst_label = r->label;
			}
		}
	}
	if (measured)
		bench_notice(b, "cold runs: at most %.1f%% of a target's pages "
		    "were cached when a run began (%s; mincore, %u runs)",
		    worst * 100, worst_label, measured);
	if (unmeasured)
		bench_notice(b, "cold runs: %u runs' residency not measured "
		    "(no file of the target could be mapped)", unmeasured);
}

/* Runs rotate the target order, so no target always goes first. Warm,
 * each target's handles stay open across the group's runs. */
static int bench_group(struct bale_bench *b, struct bale_bench_row *rows)
{
	struct bench_handles **h = calloc(b->nslots, sizeof(*h));
	unsigned run;
	size_t j;
	size_t i;
	int rc = h ? BALE_OK : BALE_ENOMEM;

	for (i = 0; rc == BALE_OK && rows[0].cache[0] == 'w' &&
	    i < b->nslots; i++)
		rc = bale_bench_handles_open(&b->slots[i].t, rows[0].threads,
		    &h[i], &b->err);
	for (run = 0; rc == BALE_OK && run < b->method.runs; run++)
		for (j = 0; rc == BALE_OK && j < b->nslots; j++) {
			i = (j + run) % b->nslots;
			rc = bench_one(b, &b->slots[i], &h[i], &rows[i]);
		}
	for (i = 0; h && i < b->nslots; i++)
		bale_bench_handles_close(h[i]);
	free(h);
	if (rc == BALE_ENOMEM && !b->err.msg[0])
		bale_errbuf_set(&b->err, rc, "no memory");
	return rc;
}

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double bench_median(const double *v, unsigned n)
{
	double s[BALE_BENCH_MAX_RUNS];

	if (n == 0)
		return 0;
	memcpy(s, v, n * sizeof(double));
	qsort(s, n, sizeof(double), bench_cmp);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void bench_range(const double *v, unsigned n, double *lo,
    double *hi)
{
	unsigned i;

	*lo = *hi = n ? v[0] : 0;
	for (i = 1; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

/* Medians, and each row against the baseline of its group (the rows of
 * a group are in slot order, so the baseline is its first row). */
static void bench_summarise(struct bale_bench *b)
{
	struct bale_bench_row *r;
	size_t i;
	double base;

	for (i = 0; i < b->nrows; i++) {
		r = &b->rows[i];
		r->median_rate = bench_median(r->rate, r->nruns);
		r->median_mbps = bench_median(r->mbps, r->nruns);
		r->median_p50_ms = bench_median(r->p50_ms, r->nruns);
		r->median_p99_ms = bench_median(r->p99_ms, r->nruns);
		bench_range(r->rate, r->nruns, &r->min_rate, &r->max_rate);
		base = b->rows[i - i % b->nslots].median_rate;
		r->ratio = base > 0 ? r->median_rate / base : 0;
	}
}

/* Lay out the rows: cache state, then thread count, then slot. */
static int bench_rows(struct bale_bench *b, const unsigned *threads,
    size_t nthreads)
{
	static const char *const states[] = { "warm", "cold" };
	const int want[] = { b->o->warm || !b->o->cold, b->o->cold };
	struct bale_bench_row *r;
	size_t c;
	size_t t;
	size_t i;

	free(b->rows);
	b->nrows = 0;
	b->rows = calloc(2 * nthreads * b->nslots, sizeof(*b->rows));
	if (!b->rows)
		return bale_errbuf_set(&b->err, BALE_ENOMEM, "no memory");
	for (c = 0; c < 2; c++)
		for (t = 0; want[c] && t < nthreads; t++)
			for (i = 0; i < b->nslots; i++) {
				r = &b->rows[b->nrows++];
				r->label = b->slots[i].label;
				r->cache = states[c];
				r->threads = threads[t];
			}
	return BALE_OK;
}

/* What each target's backend says it can do, against the experiment. */
static int bench_check_caps(struct bale_bench *b,
    const struct bale_bench_opts *o)
{
	const struct bench_slot *s;
	unsigned most = 1;
	size_t i;

	for (i = 0; i < o->nthreads; i++)
		most = o->threads[i] > most ? o->threads[i] : most;
	for (i = 0; i < b->nslots; i++) {
		s = &b->slots[i];
		if (most > 1 && !(s->p.caps & BALE_CAP_THREADS))
			return bale_errbuf_set(&b->err, BALE_EINVAL, "bench: "
			    "'%s' cannot be read by several threads at once",
			    s->label);
		if (!o->sequential && !(s->p.caps & BALE_CAP_RANDOM))
			bench_notice(b, "note: '%s' is not made for random "
			    "access; its random reads cost more", s->label);
	}
	return BALE_OK;
}

static int bench_check_opts(struct bale_bench *b,
    const struct bale_bench_opts *o)
{
	size_t i;

	if (b->nslots == 0)
		return bale_errbuf_set(&b->err, BALE_ESTATE, "bench: no "
		    "target to read");
	if (o->runs > BALE_BENCH_MAX_RUNS)
		return bale_errbuf_set(&b->err, BALE_EINVAL, "bench: at most "
		    "%d runs", BALE_BENCH_MAX_RUNS);
	for (i = 0; i < o->nthreads; i++)
		if (o->threads[i] == 0 || o->threads[i] > 256)
			return bale_errbuf_set(&b->err, BALE_EINVAL, "bench: "
			    "%u threads (1..256)", o->threads[i]);
	return bench_check_caps(b, o);
}

int bale_bench_run(struct bale_bench *b, const struct bale_bench_opts *o)
{
	static const unsigned one_thread = 1;
	const unsigned *threads = o->threads ? o->threads : &one_thread;
	size_t nthreads = o->threads ? o->nthreads : 1;
	uint64_t *order;
	size_t g;
	int rc;

	b->o = o;		/* for the notices, until we return */
	rc = bench_check_opts(b, o);
	if (rc != BALE_OK) {
		b->o = NULL;
		return rc;
	}
	b->method = (struct bale_bench_method){ .seed = o->seed,
	    .runs = o->runs ? o->runs : BENCH_DEFAULT_RUNS,
	    .decode = o->decode, .sequential = o->sequential,
	    .eviction = "none (warm only)" };
	order = bench_order(o, bench_common_count(b), &b->method.samples);
	rc = order ? bench_rows(b, threads, nthreads) :
	    bale_errbuf_set(&b->err, BALE_ENOMEM, "no memory");
	b->pass = (struct bench_pass){ order, b->method.samples, o->decode };
	if (rc == BALE_OK)
		rc = bench_pair(b, order);
	if (rc == BALE_OK)
		bench_note_counts(b);
	for (g = 0; rc == BALE_OK && g < b->nrows; g += b->nslots)
		rc = bench_group(b, b->rows + g);
	if (rc == BALE_OK) {
		bench_summarise(b);
		bench_note_cold(b);
	} else {
		b->nrows = 0;
	}
	free(order);
	b->o = NULL;
	return rc;
}

struct bale_errbuf *bale_bench_err(struct bale_bench *b)
{
	return &b->err;
}

size_t bale_bench_nrows(const struct bale_bench *b)
{
	return b->nrows;
}

const struct bale_bench_row *bale_bench_row(const struct bale_bench *b,
    size_t i)
{
	return i < b->nrows ? &b->rows[i] : NULL;
}

void bale_bench_method(const struct bale_bench *b,
    struct bale_bench_method *out)
{
	*out = b->method;
}

const char *bale_bench_errmsg(const struct bale_bench *b)
{
	return b->err.msg;
}

void bale_bench_free(struct bale_bench *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nslots; i++)
		bench_slot_release(&b->slots[i]);
	free(b->slots);
	free(b->rows);
	free(b);
}
