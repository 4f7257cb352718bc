/* pipe_tune.c - how many reader threads work (see pipe_tune.h). */
#include "pipe_tune.h"

#include <sys/resource.h>
#include <time.h>

#define TUNE_SECONDS 0.25	/* between decisions */
#define TUNE_STARVED 0.2	/* the writer waited this share: readers
				 * are what holds the run back */
#define TUNE_IDLE 0.6		/* CPUs this busy or less: reads wait */
#define TUNE_BUSY_DISK 0.8	/* busy, but reads do hit the disk */
#define TUNE_SATURATED 0.9	/* more readers would only queue */

static double tune_cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Blocks of 512 bytes this process has read from storage (a warm run
 * reads none: its data comes from the page cache). */
static long tune_inblock(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_inblock : 0;
}

void bale_pipe_tune_init(struct pipe_tune *t, unsigned min, unsigned max,
    unsigned cpus)
{
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->woken, NULL);
	t->min = min;
	t->max = max < min ? min : max;
	t->active = min;
	t->peak = min;
	t->cpus = cpus ? cpus : 1;
	t->closed = 0;
	t->at = 0;
	t->cpu_at = tune_cpu_seconds();
	t->inblock_at = tune_inblock();
	t->waited = 0;
}

int bale_pipe_tune_wait(struct pipe_tune *t, unsigned index)
{
	int rc;

	pthread_mutex_lock(&t->lock);
	while (!t->closed && index >= t->active)
		pthread_cond_wait(&t->woken, &t->lock);
	rc = t->closed ? -1 : 0;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

void bale_pipe_tune_waited(struct pipe_tune *t, double seconds)
{
	t->waited += seconds;	/* the writer's own field: no lock */
}

/* How many readers should work, from the last interval's measures. */
static unsigned tune_decide(const struct pipe_tune *t, double starved,
    double busy, int from_disk)
{
	unsigned n = t->active;

	if (starved >= TUNE_STARVED && (busy <= TUNE_IDLE ||
	    (from_disk && busy <= TUNE_BUSY_DISK)))
		n = 2 * n > t->max ? t->max : 2 * n;
	else if (busy >= TUNE_SATURATED)
		n = t->min;
	return n;
}

void bale_pipe_tune_step(struct pipe_tune *t, double now)
{
	double span = now - t->at;
	double cpu;
	long inblock;
	unsigned n;

	if (t->min == t->max || span < TUNE_SECONDS)
		return;
	cpu = tune_cpu_seconds();
	inblock = tune_inblock();
	n = tune_decide(t, t->waited / span, (cpu - t->cpu_at) / span /
	    t->cpus, inblock > t->inblock_at);
	t->at = now;
	t->cpu_at = cpu;
	t->inblock_at = inblock;
	t->waited = 0;
	if (n == t->active)
		return;
	pthread_mutex_lock(&t->lock);
	t->active = n;
	t->peak = n > t->peak ? n : t->peak;
	pthread_cond_broadcast(&t->woken);
	pthread_mutex_unlock(&t->lock);
}

void bale_pipe_tune_close(struct pipe_tune *t)
{
	pthread_mutex_lock(&t->lock);
	t->closed = 1;
	pthread_cond_broadcast(&t->woken);
	pthread_mutex_unlock(&t->lock);
}

void bale_pipe_tune_release(struct pipe_tune *t)
{
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->woken);
}
