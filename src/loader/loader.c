/* loader.c - training batches made in C threads (bale.h, "loader").
 *
 * The caller's positions of an epoch are cut into batches; batch b lives
 * in slot b % nring of a ring of buffers allocated and touched once.
 * Threads claim positions in order, each making its sample straight into
 * its place in the slot (read, crop decode, label), while the slot's
 * batch is at most nring - 1 ahead of the one the caller holds. The
 * caller takes batches in order; a batch stays valid until its next call
 * (the slot is then free for batch + nring).
 */
#include "loader_int.h"

#include "exif.h"
#include "bale_store.h"
#include "handle.h"
#include "image.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- positions and samples ------------------------------------------ */

static uint64_t loader_batch_n(const struct bale_loader *l, uint64_t b)
{
	uint64_t left = l->end - b * l->o.batch_size;

	return left < l->o.batch_size ? left : l->o.batch_size;
}

/* The epoch-order position of this rank's position @q: ranks take turns
 * (as DistributedSampler), a padded tail wraps to the start; @k-th
 * replacement: the k-th next of this rank's. */
static uint64_t loader_global(const struct bale_loader *l, uint64_t q,
    uint64_t k)
{
	uint64_t world = l->o.world_size;

	return (l->o.rank + (q + k) * world) % l->count;
}

/* Is the epoch read in the run order? (a run length given, and an
 * order that is not the output's) */
static int loader_in_runs(const struct bale_loader *l)
{
	return l->o.run_samples && l->permuted;
}

static uint64_t loader_sample(const struct bale_loader *l, uint64_t g)
{
	if (!l->permuted)
		return g;
	return loader_in_runs(l) ? bale_loader_run_sample(l, g) :
	    bale_permutation_at(&l->order, g);
}

/* An image shown turned (EXIF orientation @o): the box, drawn on the
 * shown image, is cropped from the stored pixels at the turned output
 * size, then turned, then mirrored if drawn so. */
static int loader_crop_turned(struct loader_worker *w, int o, int iw, int ih,
    struct bale_crop_box *box, struct bale_crop_out *out,
    struct bale_errbuf *err)
{
	struct bale_image img;
	int flip = out->flip;
	unsigned char *dst = out->dst;
	int rc;

	if (bale_image_alloc(&img, o >= 5 ? out->h : out->w, o >= 5 ?
	    out->w : out->h, 3) != 0)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	bale_loader_box_stored(box, o, iw, ih);
	out->flip = 0;
	out->w = img.w;
	out->h = img.h;
	out->dst = img.px;
	rc = bale_cropper_run(w->c, box, out, err);
	if (rc == BALE_OK && bale_image_orient(&img, o) != 0)
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	if (rc == BALE_OK && flip)
		bale_image_mirror(img.px, img.w, img.h, 3);
	if (rc == BALE_OK)
		memcpy(dst, img.px, (size_t)img.w * img.h * 3);
	bale_image_release(&img);
	return rc;
}

/* Sample @blob cropped into @img, its box drawn for position @g. */
static int loader_crop(struct loader_worker *w, const struct bale_blob *blob,
    uint64_t g, uint64_t k, unsigned char *img, struct bale_errbuf *err)
{
	const struct bale_loader *l = w->l;
	struct bale_crop_out out = { l->o.width, l->o.height, 0,
	    !l->o.exact, !l->box.train, img };
	struct bale_loader_rng rng;
	struct bale_crop_box box;
	int o = l->o.exif ? bale_exif_orientation(blob->data, blob->size) : 1;
	int iw, ih, sw, sh;
	int rc = bale_cropper_open(w->c, blob->data, blob->size,
	    l->has_rows ? l->rows_wh : NULL, &iw, &ih, err);

	if (rc != BALE_OK)
		return rc;
	sw = o >= 5 ? ih : iw;	/* the image as shown */
	sh = o >= 5 ? iw : ih;
	bale_loader_rng_init(&rng, l->o.seed, l->epoch,
	    g * LOADER_MAX_TRIES + k);
	bale_loader_box(&l->box, sw, sh, &rng, &box, &out.flip);
	if (!bale_loader_store_direct(&l->store)) {
		if (bale_grow(&w->scratch, &w->scratchcap, (size_t)l->o.width *
		    l->o.height * 3))
			return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
		out.dst = w->scratch;
	}
	rc = o > 1 ? loader_crop_turned(w, o, iw, ih, &box, &out, err) :
	    bale_cropper_run(w->c, &box, &out, err);
	if (rc == BALE_OK && !bale_loader_store_direct(&l->store))
		bale_loader_store(&l->store, w->scratch, l->o.width,
		    l->o.height, img);
	return rc;
}

/* Make this rank's position @q into @img and @label: its sample; when
 * it does not decode, what the loader's choice says (loader_bad.c): the
 * next ones of the order in its place while they do not decode, or
 * LOADER_LEFT_OUT, or a failure naming it. */
static int loader_make(struct loader_worker *w, uint64_t q, unsigned char *img,
    int64_t *label, struct bale_errbuf *err)
{
	struct bale_loader *l = w->l;
	struct bale_blob blob;
	uint64_t k, g, s;
	int got, rc;

	for (k = 0; k < LOADER_MAX_TRIES; k++) {
		g = loader_global(l, q, k);
		s = loader_sample(l, g);
		rc = bale_reader_get(w->r, s, &blob);
		got = rc == BALE_OK;
		if (!got)
			bale_errbuf_set(err, rc, "%s",
			    bale_reader_errmsg(w->r));
		else
			rc = loader_crop(w, &blob, g, k, img, err);
		if (rc == BALE_OK) {
			*label = blob.label;
			return BALE_OK;
		}
		if (rc == BALE_ENOMEM)
			return rc;
		bale_loader_note_bad(l, s, k == 0, err->msg);
		rc = bale_loader_bad_outcome(l, s, got, err);
		if (rc != BALE_OK)
			return rc;
	}
	return bale_errbuf_set(err, BALE_EINPUT, "%d samples in a row do not "
	    "decode (the last: %s)", LOADER_MAX_TRIES, err->msg);
}

/* ---- the threads ------------------------------------------------------ */

/* Ask for sample @s ahead: in the run order, the whole run holding it
 * (one GET; asking again for a run asked already costs nothing). */
static int loader_ask(const struct bale_loader *l, struct bale_reader *r,
    uint64_t s)
{
	uint64_t len = l->o.run_samples, first;

	if (!loader_in_runs(l))
		return bale_reader_prefetch(r, s, 1);
	first = s - s % len;
	return bale_reader_prefetch(r, first, first + len <= l->count ? len :
	    l->count - first);
}

/* A remote output: the samples of the positions from @q to the ring's
 * reach asked for ahead (in the epoch's order, which is known), so that
 * their GETs are on their way before a thread gets to them; the store
 * bounds what is in flight and held, and a position it has no room for
 * is asked for by the next thread that claims one. Under the lock: a
 * position below l->ahead is asked for before any thread reads it. */
static void loader_ask_ahead(struct loader_worker *w, uint64_t q)
{
	struct bale_loader *l = w->l;
	uint64_t reach = (uint64_t)l->nring * l->o.batch_size;
	uint64_t p, to;

	/* in the run order, the next window's runs too: a window's
	 * GETs are a few large ones, on their way a window ahead */
	if (loader_in_runs(l))
		reach += (uint64_t)l->o.run_samples * l->o.run_window;
	to = q + reach < l->end ? q + reach : l->end;
	for (p = l->ahead > q ? l->ahead : q; p < to; p++)
		if (loader_ask(l, w->r, loader_sample(l, loader_global(l, p,
		    0))) < 0)
			break;
	l->ahead = p;
}

/* Can a thread take position l->claim now? (under the lock) */
static int loader_can_claim(const struct bale_loader *l)
{
	return !l->paused && !l->failed && l->claim < l->end &&
	    l->claim / l->o.batch_size < l->released + l->nring;
}

/* Does the caller meet a failure at batch @k? (under the lock) A
 * failure is met at its own batch: the batches before it come first;
 * and once every position claimed is made, so that it is the earliest
 * position's failure, whichever thread failed first. */
static int loader_failed_at(const struct bale_loader *l, uint64_t k)
{
	return l->failed && k >= l->failed_pos / l->o.batch_size &&
	    l->busy == 0;
}

static void loader_made(struct bale_loader *l, struct loader_slot *slot,
    uint64_t b, uint64_t q, int rc, const struct bale_errbuf *err)
{
	l->busy--;
	slot->done++;
	if (rc == LOADER_LEFT_OUT) {
		slot->left_out[q % l->o.batch_size] = 1;
		slot->nleft_out++;
		rc = BALE_OK;
	}
	if (rc != BALE_OK && (!l->failed || q < l->failed_pos)) {
		l->failed = rc;	/* the earliest position's is met,
				 * whatever thread came first */
		l->failed_pos = q;
		bale_errbuf_copy(&l->err, err);
	}
	if (rc != BALE_OK || slot->done == loader_batch_n(l, b) ||
	    ((l->paused || l->failed) && l->busy == 0))
		pthread_cond_broadcast(&l->ready);
}

void *bale_loader_thread(void *arg)
{
	struct loader_worker *w = arg;
	struct bale_loader *l = w->l;
	struct loader_slot *slot;
	struct bale_errbuf err;
	uint64_t q, b;
	int rc;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (!l->stop && !loader_can_claim(l))
			pthread_cond_wait(&l->work, &l->lock);
		if (l->stop)
			break;
		q = l->claim++;
		b = q / l->o.batch_size;
		slot = &l->ring[b % l->nring];
		if (q % l->o.batch_size == 0) {
			slot->batch = b;
			slot->done = 0;
			slot->nleft_out = 0;
			memset(slot->left_out, 0, l->o.batch_size);
		}
		l->busy++;
		if (l->remote)
			loader_ask_ahead(w, q);
		pthread_mutex_unlock(&l->lock);
		bale_errbuf_clear(&err);
		rc = loader_make(w, q, slot->images + (q % l->o.batch_size) *
		    l->sample_bytes, &slot->labels[q % l->o.batch_size], &err);
		pthread_mutex_lock(&l->lock);
		loader_made(l, slot, b, q, rc, &err);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* ---- the caller's side ------------------------------------------------- */

/* The epoch's order: a new seeded permutation each epoch when training
 * or shuffling (computed a sample at a time: no memory per sample), else
 * the output's. */
static void loader_order(struct bale_loader *l)
{
	struct bale_loader_rng r;

	l->permuted = l->box.train || l->o.shuffle;
	bale_loader_rng_init(&r, l->o.seed, l->epoch, LOADER_NONE);
	bale_permutation_init(&l->order, l->o.run_samples ?
	    bale_loader_runs_count(l) : l->count, r.s);
}

int bale_loader_seek(struct bale_loader *l, uint64_t epoch, uint64_t batch)
{
	unsigned i;

	if (batch > l->nbatches)
		return bale_errbuf_set(&l->err, BALE_EINVAL, "batch %" PRIu64
		    " of an epoch of %" PRIu64, batch, l->nbatches);
	pthread_mutex_lock(&l->lock);
	/* where the caller is already (an iteration starting where the
	 * open left it): the batches made ahead are this order's */
	if (l->seeked && !l->failed && epoch == l->epoch && batch == l->next) {
		pthread_mutex_unlock(&l->lock);
		return BALE_OK;
	}
	l->seeked = 1;
	l->paused = 1;
	while (l->busy > 0)
		pthread_cond_wait(&l->ready, &l->lock);
	l->epoch = epoch;
	loader_order(l);
	l->claim = batch * l->o.batch_size;
	l->ahead = l->claim;
	if (l->remote)	/* what the old order asked for */
		bale_store_prefetch_drop();
	l->released = l->next = batch;
	for (i = 0; i < l->nring; i++)
		l->ring[i].batch = LOADER_NONE;
	l->failed = 0;
	l->nbad_epoch = 0;
	l->paused = 0;
	pthread_cond_broadcast(&l->work);
	pthread_mutex_unlock(&l->lock);
	return BALE_OK;
}

/* Wait for batch @k in its slot (under the lock). @return BALE_OK, or
 * the failure met there */
static int loader_wait(struct bale_loader *l, uint64_t k)
{
	struct loader_slot *slot = &l->ring[k % l->nring];

	l->released = k;	/* the batch before is no longer the caller's */
	pthread_cond_broadcast(&l->work);
	while (!loader_failed_at(l, k) && !(slot->batch == k &&
	    slot->done == loader_batch_n(l, k)))
		pthread_cond_wait(&l->ready, &l->lock);
	return loader_failed_at(l, k) ? l->failed : BALE_OK;
}

int bale_loader_next(struct bale_loader *l, struct bale_batch *b)
{
	struct loader_slot *slot;
	unsigned n = 0;
	uint64_t k;
	int rc = BALE_OK;

	pthread_mutex_lock(&l->lock);
	while (rc == BALE_OK && n == 0) {	/* a batch left out whole */
		k = l->next;
		if (k >= l->nbatches) {
			rc = BALE_ENOENT;
			break;
		}
		rc = loader_wait(l, k);
		if (rc != BALE_OK)
			break;
		l->next++;
		slot = &l->ring[k % l->nring];
		/* moves bytes only in a batch with samples left out */
		n = bale_loader_compact(l, slot, (unsigned)loader_batch_n(l,
		    k));
	}
	if (rc == BALE_OK) {
		b->index = k;
		b->slot = (unsigned)(k % l->nring);
		b->n = n;
		b->images = slot->images;
		b->labels = slot->labels;
	}
	pthread_mutex_unlock(&l->lock);
	return rc;
}

uint64_t bale_loader_batches(const struct bale_loader *l)
{
	return l->nbatches;
}

uint64_t bale_loader_samples(const struct bale_loader *l)
{
	return l->count;
}

const char *bale_loader_errmsg(const struct bale_loader *l)
{
	return l->err.msg;
}
