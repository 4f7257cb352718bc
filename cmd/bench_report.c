/* bench_report.c - render bale bench's rows: a table and an SVG chart. */
#include "bench_report.h"

#include <string.h>

void bench_print_table(FILE *f, const struct bale_bench *b)
{
	const struct bale_bench_row *r;
	struct bale_bench_method m;
	size_t i;

	bale_bench_method(b, &m);
	fprintf(f, "method: %llu samples per run, %s order (seed %llu), "
	    "%u runs each, rotating target order; every byte read is "
	    "checksummed%s; cold runs: %s\n", (unsigned long long)m.samples,
	    m.sequential ? "sequential" : "random",
	    (unsigned long long)m.seed, m.runs,
	    m.decode ? ", every JPEG decoded" : "", m.eviction);
	fprintf(f, "%-10s %-5s %3s %11s %19s %8s %8s %8s %9s\n", "target",
	    "cache", "thr", "samples/s", "(min..max)", "MB/s", "p50 ms",
	    "p99 ms", "x folder");
	for (i = 0; (r = bale_bench_row(b, i)); i++)
		fprintf(f, "%-10s %-5s %3u %11.0f %9.0f..%-9.0f %8.1f %8.3f "
		    "%8.3f %9.2f\n", r->label, r->cache, r->threads,
		    r->median_rate, r->min_rate, r->max_rate, r->median_mbps,
		    r->median_p50_ms, r->median_p99_ms, r->ratio);
}

/* @s as SVG text: the markup characters escaped. */
static void svg_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static int svg_new_group(const struct bale_bench *b, size_t i)
{
	const struct bale_bench_row *r = bale_bench_row(b, i);
	const struct bale_bench_row *prev = i ? bale_bench_row(b, i - 1) :
	    NULL;

	return !prev || strcmp(r->cache, prev->cache) != 0 ||
	    r->threads != prev->threads;
}

/* The scale of every panel: the fastest run of any row, so that warm
 * and cold bars compare by length and every spread fits. */
static double svg_top(const struct bale_bench *b)
{
	const struct bale_bench_row *o;
	double top = 1;
	size_t i;

	for (i = 0; (o = bale_bench_row(b, i)); i++)
		top = o->max_rate > top ? o->max_rate : top;
	return top;
}

static void svg_head(FILE *f, const struct bale_bench *b)
{
	struct bale_bench_method m;
	size_t groups = 0;
	size_t n = bale_bench_nrows(b);
	size_t i;

	bale_bench_method(b, &m);
	for (i = 0; i < n; i++)
		groups += svg_new_group(b, i);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" "
	    "height=\"%zu\" font-family=\"sans-serif\" font-size=\"13\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	    "<text x=\"10\" y=\"22\" font-size=\"15\">bale bench: median "
	    "samples/s, %llu %s reads, %u runs%s</text>\n"
	    "<text x=\"10\" y=\"40\" font-size=\"11\">one scale for every "
	    "panel; the line across a bar spans the runs' min..max</text>\n",
	    68 + n * 24 + groups * 30, (unsigned long long)m.samples,
	    m.sequential ? "sequential" : "random", m.runs,
	    m.decode ? ", with JPEG decode" : "");
}

#define SVG_BAR_X 110.0
#define SVG_BAR_MAX 400.0	/* the fastest run's length */

/* The runs' spread: a line from min to max across the bar, with ends. */
static void svg_spread(FILE *f, const struct bale_bench_row *r, double top,
    int y)
{
	double lo = SVG_BAR_X + SVG_BAR_MAX * r->min_rate / top;
	double hi = SVG_BAR_X + SVG_BAR_MAX * r->max_rate / top;

	fprintf(f, "<path d=\"M%.1f %d V%d M%.1f %d H%.1f M%.1f %d V%d\" "
	    "stroke=\"black\" fill=\"none\"/>\n", lo, y + 4, y + 14, lo,
	    y + 9, hi, hi, y + 4, y + 14);
}

/* One bar at the common scale @top, its spread across it; the first row
 * of the table (the folder) is grey. */
static void svg_bar(FILE *f, const struct bale_bench *b,
    const struct bale_bench_row *r, double top, int y)
{
	double w = SVG_BAR_MAX * r->median_rate / top;
	double end = SVG_BAR_X + SVG_BAR_MAX * r->max_rate / top;

	fprintf(f, "<text x=\"20\" y=\"%d\">", y + 14);
	svg_text(f, r->label);
	fprintf(f, "</text>\n<rect x=\"%.0f\" y=\"%d\" width=\"%.1f\" "
	    "height=\"18\" fill=\"%s\"/>\n", SVG_BAR_X, y, w,
	    r->label == bale_bench_row(b, 0)->label ? "#999" : "#3a7bd5");
	svg_spread(f, r, top, y);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.0f (%.0f..%.0f), %.2fx "
	    "folder</text>\n", (end > SVG_BAR_X + w ? end : SVG_BAR_X + w) +
	    6, y + 14, r->median_rate, r->min_rate, r->max_rate, r->ratio);
}

/* One horizontal bar per row, each group (cache state, threads) under a
 * heading, all at one scale: warm and cold differ by what they measure,
 * and bars on scales of their own looked alike. */
int bench_write_svg(const char *path, const struct bale_bench *b)
{
	const struct bale_bench_row *r;
	FILE *f = fopen(path, "w");
	double top = svg_top(b);
	int y = 58;
	size_t i;

	if (!f)
		return -1;
	svg_head(f, b);
	for (i = 0; (r = bale_bench_row(b, i)); i++, y += 24) {
		if (svg_new_group(b, i)) {
			y += 8;
			fprintf(f, "<text x=\"10\" y=\"%d\" "
			    "font-weight=\"bold\">%s cache, %u thread%s"
			    "</text>\n", y + 10, r->cache,
			    r->threads, r->threads == 1 ? "" : "s");
			y += 22;
		}
		svg_bar(f, b, r, top, y);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) == 0 ? 0 : -1;
}
