/* loader_open.c - a loader's options checked, its output opened (one
 * reader per thread), its ring allocated and touched, its threads
 * started and, at the end, stopped. */
#include "loader_int.h"

#include "bale_store.h"

#include "cpus.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOADER_MAX_SIDE 16384
#define LOADER_MAX_BATCH 65536
#define LOADER_MAX_THREADS 256
#define LOADER_MAX_PREFETCH 64

int bale_loader_new(struct bale_loader **out)
{
	struct bale_loader *l = calloc(1, sizeof(*l));

	*out = l;
	if (!l)
		return BALE_ENOMEM;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->work, NULL);
	pthread_cond_init(&l->ready, NULL);
	return BALE_OK;
}

static int loader_norm_ok(const struct bale_loader_opts *o)
{
	int c;

	for (c = 0; c < 3; c++)
		if (!isfinite(o->mean[c]) || !isfinite(o->std[c]) ||
		    o->std[c] == 0)
			return 0;
	return 1;
}

/* The options, defaults filled in; why not, when they cannot work. */
static const char *loader_settle(struct bale_loader_opts *o)
{
	if (o->batch_size < 1 || o->batch_size > LOADER_MAX_BATCH)
		return "batch_size must be 1 to 65536";
	if (o->width < 1 || o->height < 1 || o->width > LOADER_MAX_SIDE ||
	    o->height > LOADER_MAX_SIDE)
		return "the output size must be 1 to 16384 a side";
	o->world_size = o->world_size ? o->world_size : 1;
	if (o->rank >= o->world_size)
		return "rank must be below world_size";
	if (o->scale[0] == 0 && o->scale[1] == 0)
		o->scale[0] = 0.08, o->scale[1] = 1.0;
	if (o->ratio[0] == 0 && o->ratio[1] == 0)
		o->ratio[0] = 3.0 / 4, o->ratio[1] = 4.0 / 3;
	if (!(o->scale[0] > 0 && o->scale[0] <= o->scale[1]) ||
	    !(o->ratio[0] > 0 && o->ratio[0] <= o->ratio[1]))
		return "scale and ratio must be ranges of positive numbers";
	o->resize = o->resize ? o->resize : o->width * 256 / 224;
	if (o->resize < 1 || o->resize > LOADER_MAX_SIDE)
		return "resize must be 1 to 16384";
	o->prefetch = o->prefetch ? o->prefetch : 2;
	o->io_requests = o->io_requests ? o->io_requests : LOADER_IO_REQUESTS;
	o->io_bytes = o->io_bytes ? o->io_bytes : LOADER_IO_BYTES;
	if (o->io_requests > LOADER_MAX_IO_REQUESTS)
		return "io_requests must be at most 1024";
	if (o->io_bytes > SIZE_MAX / 2)
		return "io_bytes is more than this machine can hold";
	o->run_window = o->run_window ? o->run_window : LOADER_RUN_WINDOW;
	if (o->run_samples > LOADER_MAX_RUN || o->run_window > LOADER_MAX_RUN)
		return "run_samples and run_window must be at most 65536";
	if (o->prefetch > LOADER_MAX_PREFETCH)
		return "prefetch must be at most 64";
	if (o->threads > LOADER_MAX_THREADS)
		return "threads must be at most 256";
	if (o->normalize && !loader_norm_ok(o))
		return "mean must be finite and std finite and not 0";
	if (o->on_bad < BALE_BAD_AUTO || o->on_bad > BALE_BAD_FAIL)
		return "on_bad must be auto, replace, skip or fail";
	if (o->on_bad == BALE_BAD_REPLACE && !o->train)
		return "on_bad replace is for training: an evaluation would "
		    "score a copy of another sample in a bad one's place";
	if (o->strict)
		o->on_bad = BALE_BAD_FAIL;
	if (o->on_bad == BALE_BAD_AUTO)	/* an evaluation never scores a
					 * copy in a bad sample's place */
		o->on_bad = o->train ? BALE_BAD_REPLACE : BALE_BAD_FAIL;
	if (!o->threads)
		o->threads = (unsigned)bale_cpus_usable(NULL);
	o->threads = o->threads < LOADER_MAX_THREADS ? o->threads :
	    LOADER_MAX_THREADS;
	return NULL;
}

/* An output of bare pixel rows says their shape in its info
 * (bale_reader_info: "shape"), whatever its format. */
static void loader_rows_shape(struct bale_loader *l, struct bale_reader *r)
{
	const char *json, *v, *vend;
	int h, w, ch;

	if (bale_reader_info(r, &json) != BALE_OK)
		return;
	v = bale_jsonr_find(json, json + strlen(json), "shape", &vend);
	if (v && sscanf(v, "[%d,%d,%d]", &h, &w, &ch) == 3 && ch == 3 &&
	    h > 0 && w > 0) {
		l->rows_wh[0] = w;
		l->rows_wh[1] = h;
		l->has_rows = 1;
	}
}

/* This rank's positions per epoch and batches: the ranks' shares are
 * equal, padded (or cut) to a multiple of world_size; with drop_last
 * the batches are whole too. */
static void loader_sizes(struct bale_loader *l)
{
	uint64_t n = l->count, world = l->o.world_size, b = l->o.batch_size;
	uint64_t share = l->o.drop_last ? n / world : (n + world - 1) / world;

	l->end = l->o.drop_last ? share / b * b : share;
	l->end = n ? l->end : 0;
	l->nbatches = (l->end + b - 1) / b;
}

static int loader_open_reader(struct bale_loader *l, const char *path,
    struct bale_reader **r)
{
	int rc = bale_reader_new(r);

	if (rc == BALE_OK)
		rc = bale_reader_option(*r, "meta", "0");
	if (rc == BALE_OK)
		rc = bale_reader_open(*r, l->o.format, path);
	if (rc != BALE_OK)
		bale_errbuf_set(&l->err, rc, "%s", *r ?
		    bale_reader_errmsg(*r) : "no memory");
	return rc;
}

/* What @path names: an output; in a folder holding outputs, the one a
 * reader takes (bale_output_pick); a folder holding none is a raw
 * ImageFolder tree, read as it is. */
static int loader_resolve(struct bale_loader *l, const char *path,
    char **out)
{
	char **paths = NULL;
	size_t n = 0;
	long pick = -1;
	int rc = BALE_OK;

	/* not a folder: the reader's open says what it is */
	if (!l->o.format && !bale_output_format(path) &&
	    bale_outputs_in(path, NULL, &paths, &n) == BALE_ENOMEM)
		rc = BALE_ENOMEM;
	if (rc == BALE_OK && n)
		pick = bale_output_pick((const char *const *)paths, n, NULL, 0);
	if (rc == BALE_OK && n && pick < 0)
		rc = bale_errbuf_set(&l->err, BALE_EINVAL, "'%s' holds outputs "
		    "of different datasets: name one", path);
	else if (rc == BALE_OK && !(*out = strdup(n ? paths[pick] : path)))
		rc = BALE_ENOMEM;
	bale_outputs_free(paths, n);
	return rc == BALE_ENOMEM ? bale_errbuf_set(&l->err, rc, "no memory") :
	    rc;
}

/* One reader and one cropper per thread, all opened before any runs. */
static int loader_workers(struct bale_loader *l, const char *path)
{
	unsigned i;
	int rc = BALE_OK;

	l->workers = calloc(l->o.threads, sizeof(*l->workers));
	if (!l->workers)
		return bale_errbuf_set(&l->err, BALE_ENOMEM, "no memory");
	l->nworkers = l->o.threads;
	for (i = 0; rc == BALE_OK && i < l->nworkers; i++) {
		l->workers[i].l = l;
		rc = loader_open_reader(l, path, &l->workers[i].r);
		if (rc == BALE_OK && bale_cropper_new(&l->workers[i].c) !=
		    BALE_OK)
			rc = bale_errbuf_set(&l->err, BALE_ENOMEM,
			    "no memory");
	}
	return rc;
}

/* The ring: batches allocated and touched once, so no batch pays for
 * new pages. */
static int loader_ring(struct bale_loader *l)
{
	size_t images = l->sample_bytes * l->o.batch_size;
	unsigned i;

	l->nring = l->o.prefetch + 1;
	l->ring = calloc(l->nring, sizeof(*l->ring));
	l->bad = calloc(LOADER_MAX_BAD, sizeof(*l->bad));
	if (!l->ring || !l->bad)
		return bale_errbuf_set(&l->err, BALE_ENOMEM, "no memory");
	for (i = 0; i < l->nring; i++) {
		l->ring[i].batch = LOADER_NONE;
		l->ring[i].left_out = calloc(l->o.batch_size, 1);
		if (!l->ring[i].left_out)
			return bale_errbuf_set(&l->err, BALE_ENOMEM,
			    "no memory");
		if (l->o.ring_images && l->o.ring_labels) {
			l->ring[i].images = l->o.ring_images[i];
			l->ring[i].labels = l->o.ring_labels[i];
			continue;
		}
		l->ring[i].owned = 1;
		l->ring[i].images = malloc(images);
		l->ring[i].labels = calloc(l->o.batch_size, sizeof(int64_t));
		if (!l->ring[i].images || !l->ring[i].labels)
			return bale_errbuf_set(&l->err, BALE_ENOMEM, "no "
			    "memory for %u batches of %zu bytes", l->nring,
			    images);
		memset(l->ring[i].images, 0, images);
	}
	return BALE_OK;
}

static int loader_start(struct bale_loader *l)
{
	unsigned i;

	for (i = 0; i < l->nworkers; i++) {
		if (pthread_create(&l->workers[i].thread, NULL,
		    bale_loader_thread, &l->workers[i]) != 0)
			return bale_errbuf_set(&l->err, BALE_EIO, "cannot "
			    "start a thread");
		l->workers[i].started = 1;
	}
	return BALE_OK;
}

int bale_loader_open(struct bale_loader *l, const char *path,
    const struct bale_loader_opts *o)
{
	const char *why;
	int rc;

	if (l->workers)
		return bale_errbuf_set(&l->err, BALE_ESTATE, "the loader is "
		    "open already");
	l->o = *o;
	why = loader_settle(&l->o);
	if (why)
		return bale_errbuf_set(&l->err, BALE_EINVAL, "%s", why);
	l->box = (struct bale_loader_box_cfg){ l->o.train, l->o.width,
	    l->o.height, l->o.resize, { l->o.scale[0], l->o.scale[1] },
	    { l->o.ratio[0], l->o.ratio[1] } };
	bale_loader_store_init(&l->store, !l->o.channels_last,
	    l->o.normalize ? l->o.mean : NULL, l->o.normalize ? l->o.std :
	    NULL);
	l->sample_bytes = bale_loader_store_bytes(&l->store, l->o.width,
	    l->o.height);
	rc = loader_resolve(l, path, &l->path);
	if (rc != BALE_OK)
		return rc;
	/* a remote output's GETs go ahead of the threads (loader.c) */
	if (!bale_store_is_local(l->path)) {
		if (bale_store_prefetch_begin(l->o.io_requests,
		    (size_t)l->o.io_bytes) != BALE_OK)
			return bale_errbuf_set(&l->err, BALE_ENOMEM,
			    "no memory");
		l->remote = 1;
	}
	rc = loader_workers(l, l->path);
	if (rc == BALE_OK)
		rc = bale_reader_count(l->workers[0].r, &l->count);
	if (rc != BALE_OK)
		return rc;
	loader_rows_shape(l, l->workers[0].r);
	loader_sizes(l);
	l->paused = 1;		/* the threads wait for the seek */
	rc = loader_ring(l);
	if (rc == BALE_OK)
		rc = loader_start(l);
	return rc == BALE_OK ? bale_loader_seek(l, 0, 0) : rc;
}

void bale_loader_free(struct bale_loader *l)
{
	unsigned i;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = 1;
	pthread_cond_broadcast(&l->work);
	pthread_mutex_unlock(&l->lock);
	for (i = 0; i < l->nworkers; i++) {
		if (l->workers[i].started)
			pthread_join(l->workers[i].thread, NULL);
		bale_reader_free(l->workers[i].r);
		bale_cropper_free(l->workers[i].c);
		free(l->workers[i].scratch);
	}
	for (i = 0; l->ring && i < l->nring; i++) {
		free(l->ring[i].left_out);
		if (!l->ring[i].owned)
			continue;
		free(l->ring[i].images);
		free(l->ring[i].labels);
	}
	if (l->remote)
		bale_store_prefetch_end();
	bale_loader_bad_release(l);
	free(l->path);
	free(l->ring);
	free(l->workers);
	pthread_cond_destroy(&l->work);
	pthread_cond_destroy(&l->ready);
	pthread_mutex_destroy(&l->lock);
	free(l);
}
