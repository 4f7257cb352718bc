/* bench_report.c - render bale bench's rows: table, JSON, SVG chart. */
#include "bench_report.h"

#include <stdlib.h>
#include <string.h>

static int report_cmp(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(const double *v, unsigned n)
{
	double s[BENCH_MAX_RUNS];

	if (n == 0)
		return 0;
	memcpy(s, v, n * sizeof(double));
	qsort(s, n, sizeof(double), report_cmp);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double report_min(const double *v, unsigned n)
{
	double m = v[0];
	unsigned i;

	for (i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static double report_max(const double *v, unsigned n)
{
	double m = v[0];
	unsigned i;

	for (i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* The folder's median rate in the same cache state and thread count. */
static double report_baseline(const struct bench_row *rows, unsigned n,
    const struct bench_row *r)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (strcmp(rows[i].label, "folder") == 0 &&
		    strcmp(rows[i].cache, r->cache) == 0 &&
		    rows[i].threads == r->threads)
			return bench_median(rows[i].rate, rows[i].nruns);
	return 0;
}

void bench_print_table(FILE *f, const struct bench_method *m,
    const struct bench_row *rows, unsigned nrows)
{
	double base;
	unsigned i;

	fprintf(f, "method: %llu samples per run, %s order (seed %llu), "
	    "%u runs each, rotating target order; every byte read is "
	    "checksummed%s; cold runs: %s\n", (unsigned long long)m->k,
	    m->sequential ? "sequential" : "random",
	    (unsigned long long)m->seed, m->runs,
	    m->decode ? ", every JPEG decoded" : "", m->eviction);
	fprintf(f, "%-10s %-5s %3s %11s %19s %8s %8s %8s %9s\n", "target",
	    "cache", "thr", "samples/s", "(min..max)", "MB/s", "p50 ms",
	    "p99 ms", "x folder");
	for (i = 0; i < nrows; i++) {
		const struct bench_row *r = &rows[i];
		double rate = bench_median(r->rate, r->nruns);

		base = report_baseline(rows, nrows, r);
		fprintf(f, "%-10s %-5s %3u %11.0f %9.0f..%-9.0f %8.1f %8.3f "
		    "%8.3f %9.2f\n", r->label, r->cache, r->threads, rate,
		    report_min(r->rate, r->nruns), report_max(r->rate,
		    r->nruns), bench_median(r->mbps, r->nruns),
		    bench_median(r->p50, r->nruns),
		    bench_median(r->p99, r->nruns), base > 0 ? rate / base : 0);
	}
}

static void json_array(FILE *f, const char *key, const double *v,
    unsigned n)
{
	unsigned i;

	fprintf(f, ",\"%s\":[", key);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.6g", i ? "," : "", v[i]);
	fprintf(f, "]");
}

int bench_write_json(const char *path, const struct bench_method *m,
    const struct bench_row *rows, unsigned nrows)
{
	FILE *f = fopen(path, "w");
	unsigned i;

	if (!f)
		return -1;
	fprintf(f, "{\"method\":{\"samples\":%llu,\"seed\":%llu,\"runs\":%u,"
	    "\"decode\":%s,\"order\":\"%s\",\"eviction\":\"%s\"},\"results\":[",
	    (unsigned long long)m->k, (unsigned long long)m->seed, m->runs,
	    m->decode ? "true" : "false", m->sequential ? "sequential" :
	    "random", m->eviction);
	for (i = 0; i < nrows; i++) {
		const struct bench_row *r = &rows[i];
		double base = report_baseline(rows, nrows, r);
		double rate = bench_median(r->rate, r->nruns);

		fprintf(f, "%s\n{\"target\":\"%s\",\"cache\":\"%s\","
		    "\"threads\":%u,\"median_samples_per_s\":%.1f,"
		    "\"ratio_to_folder\":%.4f", i ? "," : "", r->label,
		    r->cache, r->threads, rate, base > 0 ? rate / base : 0);
		json_array(f, "samples_per_s", r->rate, r->nruns);
		json_array(f, "mb_per_s", r->mbps, r->nruns);
		json_array(f, "p50_ms", r->p50, r->nruns);
		json_array(f, "p99_ms", r->p99, r->nruns);
		json_array(f, "resident_before", r->resident, r->nruns);
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
	return fclose(f) == 0 ? 0 : -1;
}

/* The largest median rate among the rows of @r's group. */
static double svg_group_top(const struct bench_row *rows, unsigned n,
    const struct bench_row *r)
{
	double top = 1;
	double rate;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (strcmp(rows[i].cache, r->cache) != 0 ||
		    rows[i].threads != r->threads)
			continue;
		rate = bench_median(rows[i].rate, rows[i].nruns);
		top = rate > top ? rate : top;
	}
	return top;
}

/* One horizontal bar per row; each group (cache state, threads) has a
 * heading and its own scale, so cold bars are as readable as warm. */
int bench_write_svg(const char *path, const struct bench_method *m,
    const struct bench_row *rows, unsigned nrows)
{
	FILE *f = fopen(path, "w");
	unsigned groups = 0;
	double rate;
	double base;
	double w;
	unsigned i;
	int y = 40;

	if (!f)
		return -1;
	for (i = 0; i < nrows; i++)
		groups += i == 0 || strcmp(rows[i].cache, rows[i - 1].cache) ||
		    rows[i].threads != rows[i - 1].threads;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" "
	    "height=\"%u\" font-family=\"sans-serif\" font-size=\"13\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	    "<text x=\"10\" y=\"22\" font-size=\"15\">bale bench: median "
	    "samples/s, %llu %s reads, %u runs%s</text>\n", 50 + nrows * 24 +
	    groups * 30, (unsigned long long)m->k,
	    m->sequential ? "sequential" : "random", m->runs,
	    m->decode ? ", with JPEG decode" : "");
	for (i = 0; i < nrows; i++, y += 24) {
		if (i == 0 || strcmp(rows[i].cache, rows[i - 1].cache) != 0 ||
		    rows[i].threads != rows[i - 1].threads) {
			y += 8;
			fprintf(f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">"
			    "%s cache, %u thread%s</text>\n", y + 10,
			    rows[i].cache, rows[i].threads,
			    rows[i].threads == 1 ? "" : "s");
			y += 22;
		}
		rate = bench_median(rows[i].rate, rows[i].nruns);
		base = report_baseline(rows, nrows, &rows[i]);
		w = 430.0 * rate / svg_group_top(rows, nrows, &rows[i]);
		fprintf(f, "<text x=\"20\" y=\"%d\">%s</text>\n"
		    "<rect x=\"110\" y=\"%d\" width=\"%.1f\" height=\"18\" "
		    "fill=\"%s\"/>\n<text x=\"%.1f\" y=\"%d\">%.0f "
		    "(%.2fx folder)</text>\n", y + 14, rows[i].label, y, w,
		    strcmp(rows[i].label, "folder") == 0 ? "#999" : "#3a7bd5",
		    115 + w, y + 14, rate, base > 0 ? rate / base : 0);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) == 0 ? 0 : -1;
}
