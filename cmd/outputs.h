/* outputs.h - the packed outputs an OUT argument names. */
#ifndef BALE_OUTPUTS_H
#define BALE_OUTPUTS_H

#include "bale.h"

#include <stddef.h>

/** @arg is one output or a folder holding some, recognised by content
 *  (bale_output_format), whatever they are named; @format, if not NULL,
 *  keeps only that format. Fills
 *  @paths (malloc'd strings, *n of them, sorted).
 *  @return 0, or -1 with a message printed for @cmd */
int cli_find_outputs(const char *cmd, const char *arg, const char *format,
    char ***paths, size_t *n);

void cli_free_outputs(char **paths, size_t n);

/** Open the one output @arg names (see above), printing why not.
 *  @return an open reader, or NULL */
struct bale_reader *cli_open_one(const char *cmd, const char *arg,
    const char *format);

#endif
