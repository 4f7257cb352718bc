/* pipe_tune.h - how many of a run's reader threads work at a time.
 *
 * With -j N, all N. By default a run starts one reader per CPU and
 * doubles the working readers, up to four per CPU, while the writer
 * waits for samples and the CPUs have time to spare (reads are waiting
 * on a disk or a network); it drops back to one per CPU when the CPUs
 * are saturated. Measured on the 1 GB bench tree (2 CPUs,
 * bench/pack_threads.sh): warm, more readers than CPUs only cost (8
 * readers 1.35x the time of 2); cold, they pay (8 readers 0.70x).
 */
#ifndef BALE_PIPE_TUNE_H
#define BALE_PIPE_TUNE_H

#include <pthread.h>
#include <stdint.h>

struct pipe_tune {
	pthread_mutex_t lock;
	pthread_cond_t woken;
	unsigned active;	/* readers with a lower index may work */
	unsigned min;
	unsigned max;
	unsigned cpus;
	unsigned peak;		/* most readers that worked at once */
	int closed;
	double at;		/* when the last decision was made */
	double cpu_at;		/* process CPU seconds then */
	long inblock_at;	/* blocks read from storage by then */
	double waited;		/* writer's seconds waiting since then */
};

/** @min readers work at first, at most @max, on @cpus CPUs. */
void bale_pipe_tune_init(struct pipe_tune *t, unsigned min, unsigned max,
    unsigned cpus);

/** Reader @index: wait while it is not among the working ones.
 *  @return 0 to work, -1 when the run is over */
int bale_pipe_tune_wait(struct pipe_tune *t, unsigned index);

/** The writer waited @seconds for the next sample. */
void bale_pipe_tune_waited(struct pipe_tune *t, double seconds);

/** The writer, after each sample, @now seconds into the run: every
 *  quarter second, decide how many readers work. */
void bale_pipe_tune_step(struct pipe_tune *t, double now);

/** Wake every parked reader to end (before joining them). */
void bale_pipe_tune_close(struct pipe_tune *t);

void bale_pipe_tune_release(struct pipe_tune *t);

#endif
