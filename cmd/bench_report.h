/* bench_report.h - bale bench's results as a table and an SVG chart
 * (the JSON comes from the library: bale_bench_write_json). */
#ifndef BALE_BENCH_REPORT_H
#define BALE_BENCH_REPORT_H

#include "bale_tools.h"

#include <stdio.h>

/** The method line, then one line per row with its medians. */
void bench_print_table(FILE *f, const struct bale_bench *b);

/** A bar chart of the median rates. @return 0, or -1 (cannot write) */
int bench_write_svg(const char *path, const struct bale_bench *b);

#endif
