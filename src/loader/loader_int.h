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
	struct bale_loader_box_cfg box;
	uint64_t count;		/* samples in the output */
	uint64_t nbatches;	/* this rank's, per epoch */
	uint64_t end;		/* this rank's positions per epoch */
	int rows_wh[2];		/* HDF5's pixel rows: their shape */
	int has_rows;
	size_t sample_bytes;
	struct bale_loader_store store;	/* crops into the batch */
	pthread_mutex_t lock;
	pthread_cond_t work;	/* threads wait on it */
	pthread_cond_t ready;	/* the caller waits on it */
	uint64_t epoch;
	struct bale_permutation order;	/* the epoch's, when @permuted */
	int permuted;		/* else the output's order */
	uint64_t claim;		/* the next position to make */
	uint64_t released;	/* batches below it: not the caller's */
	uint64_t next;		/* the batch next() returns */
	unsigned busy;		/* positions being made */
	int paused;
	int stop;
	int failed;		/* sticky until a seek: a code */
	struct bale_errbuf err;
	struct loader_slot *ring;
	unsigned nring;
	struct loader_worker *workers;
	unsigned nworkers;
	struct loader_bad *bad;
	size_t nbad_kept;
	uint64_t nbad;
};

/** A loader thread's life: claim positions, make them, until stopped. */
void *bale_loader_thread(void *arg);

#endif
