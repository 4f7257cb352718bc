/* progress.c - rate and ETA on stderr while packing. */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

/* On a non-terminal (with -v), one plain line every few seconds. */
#define PROGRESS_LOG_EVERY 5.0

int cli_progress_init(struct cli_progress *cp, int verbose, int quiet)
{
	cp->tty = isatty(STDERR_FILENO);
	cp->last = 0;
	return !quiet && (cp->tty || verbose);
}

static void progress_eta(char *out, size_t cap, double secs)
{
	unsigned long s = (unsigned long)(secs + 0.5);

	if (secs < 0)
		snprintf(out, cap, "--:--");
	else if (s >= 3600)
		snprintf(out, cap, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60,
		    s % 60);
	else
		snprintf(out, cap, "%lu:%02lu", s / 60, s % 60);
}

void cli_progress_show(const struct bale_progress *p, void *arg)
{
	struct cli_progress *cp = arg;
	double secs = p->seconds > 0 ? p->seconds : 1e-9;
	double rate = (double)p->done / secs;
	double pct = p->total ? 100.0 * (double)p->done / (double)p->total :
	    100.0;
	char eta[32];

	if (!cp->tty && !p->final && p->seconds - cp->last < PROGRESS_LOG_EVERY)
		return;
	cp->last = p->seconds;
	progress_eta(eta, sizeof(eta),
	    rate > 0 ? (double)(p->total - p->done) / rate : -1);
	fprintf(stderr, "%s%llu/%llu (%.0f%%)  %.0f samples/s  %.1f MB/s  "
	    "ETA %s%s", cp->tty ? "\r\033[K" : "",
	    (unsigned long long)p->done, (unsigned long long)p->total, pct,
	    rate, (double)p->bytes / 1e6 / secs, eta,
	    cp->tty && !p->final ? "" : "\n");
}
