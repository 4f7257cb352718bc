/* clock.h - the monotonic clock, as seconds (clock.c): what the timers
 * of bench, the feed, the store's wait count and the remote listing
 * read. */
#ifndef BALE_CLOCK_H
#define BALE_CLOCK_H

/** Seconds on CLOCK_MONOTONIC: differences are elapsed times. */
double bale_clock_now(void);

#endif
