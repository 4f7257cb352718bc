/* clock.c - the monotonic clock, as seconds (clock.h). */
#include "clock.h"

#include <time.h>

double bale_clock_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
