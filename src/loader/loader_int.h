/* loader_int.h - what the loader's files share: one loader's state
 * (loader.c: the threads and the caller's side; loader_open.c: options,
 * opening, the ring, freeing). */
#ifndef BALE_LOADER_INT_H
#define BALE_LOADER_INT_H

#include "bale.h"
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "crop_decode.h"
#include "loader_box.h"
#include "loader_store.h"
#include "shuffle.h"

#include <pthread.h>
#include <stdint.h>

#define LOADER_MAX_BAD 1000	/* bad samples listed (all are counted) */
#define LOADER_MAX_TRIES 64	/* in a row, before the loader gives up */
#define LOADER_NONE UINT64_MAX
#define LOADER_IO_REQUESTS 64
#define LOADER_IO_BYTES ((size_t)128 << 20)
#define LOADER_MAX_IO_REQUESTS 1024
#define LOADER_RUN_WINDOW 16
#define LOADER_MAX_RUN 65536

struct loader_bad {
	uint64_t sample;
	char *why;
};

struct loader_slot {
	unsigned char *images;
	int64_t *labels;
	int owned;		/* allocated here, not the caller's */
	uint64_t batch;		/* the batch it holds, or LOADER_NONE */
	unsigned done;		/* its samples made */
	unsigned char *left_out;	/* batch_size flags: a position whose
					 * sample did not decode (skip) */
	unsigned nleft_out;
};

struct loader_worker {
	struct bale_loader *l;
	struct bale_reader *r;
	struct bale_cropper *c;
	unsigned char *scratch;	/* a crop as rows of RGB, before the store */
	size_t scratchcap;
	pthread_t thread;
	int started;
};

struct bale_loader {
	struct bale_loader_opts o;
	char *path;		/* the output the readers opened */
	struct bale_loader_box_cfg box;
	uint64_t count;		/* samples in the output */
	uint64_t nbatches;	/* this rank's, per epoch */
	uint64_t end;		/* this rank's positions per epoch */
	int rows_wh[2];		/* bare pixel rows: their shape */
	int has_rows;
	size_t sample_bytes;
	struct bale_loader_store store;	/* crops into the batch */
	pthread_mutex_t lock;
	pthread_cond_t work;	/* threads wait on it */
	pthread_cond_t ready;	/* the caller waits on it */
	uint64_t epoch;
	int seeked;		/* the first seek (the open's) was made */
	struct bale_permutation order;	/* the epoch's, when @permuted */
	int permuted;		/* else the output's order */
	uint64_t claim;		/* the next position to make */
	int remote;		/* the output is in an object store (and
				 * bale_store_prefetch_begin() was called) */
	uint64_t ahead;		/* remote: positions below it were asked
				 * for ahead */
	uint64_t released;	/* batches below it: not the caller's */
	uint64_t next;		/* the batch next() returns */
	unsigned busy;		/* positions being made */
	int paused;
	int stop;
	int failed;		/* sticky until a seek: a code */
	uint64_t failed_pos;	/* the position whose failure it is */
	struct bale_errbuf err;
	struct loader_slot *ring;
	unsigned nring;
	struct loader_worker *workers;
	unsigned nworkers;
	struct loader_bad *bad;
	size_t nbad_kept;
	uint64_t nbad;
	uint64_t nbad_epoch;
	struct loader_seen {	/* the bad samples met: each noted once */
		uint64_t *slots;	/* sample + 1; 0: free */
		size_t cap;
	} seen;
};

/* A sample left out of its batch (on_bad BALE_BAD_SKIP): not a code. */
#define LOADER_LEFT_OUT 1

/** A loader thread's life: claim positions, make them, until stopped. */
void *bale_loader_thread(void *arg);

/* loader_bad.c - samples that do not decode */

/** Note that @sample did not decode (@why); @own: at its own position
 *  of the epoch (else as a replacement), counted for the epoch. Takes
 *  the lock. */
void bale_loader_note_bad(struct bale_loader *l, uint64_t sample, int own,
    const char *why);
/** What a position does after its @sample failed with @err (@read: the
 *  reader gave its bytes, which did not decode): LOADER_LEFT_OUT,
 *  BALE_OK to try a replacement, or a failure naming the sample. */
int bale_loader_bad_outcome(struct bale_loader *l, uint64_t sample,
    int read, struct bale_errbuf *err);
/** Close the gaps that left-out samples made in @slot's first @n
 *  places. @return the samples it then holds */
unsigned bale_loader_compact(const struct bale_loader *l,
    struct loader_slot *slot, unsigned n);
void bale_loader_bad_release(struct bale_loader *l);

/* loader_runs.c: the run order (o.run_samples > 0, when permuted) */

/** The whole runs of the output, which l->order permutes. */
uint64_t bale_loader_runs_count(const struct bale_loader *l);
/** The sample at epoch-order position @g. */
uint64_t bale_loader_run_sample(const struct bale_loader *l, uint64_t g);

#endif
