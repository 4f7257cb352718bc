/* format_flags.h - bale pack's flags for the formats' writer options,
 * made from the formats' own tables (struct bale_option). */
#ifndef BALE_FORMAT_FLAGS_H
#define BALE_FORMAT_FLAGS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#define FORMAT_FLAG_FIRST 1024	/* getopt values: FIRST + the flag's index */
#define FORMAT_FLAGS_MAX 32

/** Append a getopt entry for each flag to @opts[@n...] (room for
 *  FORMAT_FLAGS_MAX more and a terminator); @return the new count. */
size_t format_flags_longopts(struct option *opts, size_t n);

/** The writer option "FORMAT.KEY=VALUE" (a flag several formats declare:
 *  "KEY=VALUE") that getopt value @c with @arg stands for, allocated;
 *  NULL when @c is not one, or without memory. */
char *format_flag_option(int c, const char *arg);

/** The flags for --help: a line or more each, as the tables say. */
void format_flags_help(FILE *f);

#endif
