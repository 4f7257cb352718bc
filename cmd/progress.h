/* progress.h - the progress line of long commands, on stderr. */
#ifndef BALE_PROGRESS_H
#define BALE_PROGRESS_H

#include "bale.h"

struct cli_progress {
	int tty;		/* redraw one line in place */
	double last;		/* seconds at the last line, for non-ttys */
};

/** Progress is shown on a terminal, or anywhere when @verbose. Returns
 *  1 when it should be shown. */
int cli_progress_init(struct cli_progress *cp, int verbose, int quiet);

/** A bale_progress_fn; @arg is the struct cli_progress. */
void cli_progress_show(const struct bale_progress *p, void *arg);

#endif
