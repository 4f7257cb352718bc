/* reorder.c - bounded in-order handoff between threads. */
#include "reorder.h"

#include "bale.h"

#include <pthread.h>
#include <stdlib.h>

/* Wake-ups are aimed: a producer waiting for its slot waits on that
 * slot's own condition, so taking one item wakes the one producer it
 * lets on, not all of them (with many readers on few cores, waking every
 * producer for every item cost more than the packing); producers short
 * of window bytes are woken only when there are some. And they come in
 * runs: slots freed are announced a run of them at a time (or when the
 * consumer is about to wait), so a producer held by a full window wakes
 * once to fill several, where waking it for each slot cost the consumer,
 * which sets the pace, a system call per sample. */
struct bale_reorder {
	pthread_mutex_t lock;
	pthread_cond_t *free_slot;	/* per slot: a producer waits for it */
	pthread_cond_t bytes_freed;	/* producers short of bytes wait */
	pthread_cond_t arrived;		/* an item came: the consumer waits */
	unsigned bytes_waiters;
	void **slot;
	size_t nslots;
	uint64_t total;
	uint64_t next_claim;
	uint64_t next_take;
	uint64_t woken_to;	/* slots freed before this were announced */
	uint64_t wake_run;	/* slots freed between announcements */
	size_t bytes_max;
	size_t bytes_held;
	size_t bytes_peak;
	int aborted;
};

int bale_reorder_new(struct bale_reorder **out, uint64_t total, size_t slots,
    size_t bytes)
{
	struct bale_reorder *r = calloc(1, sizeof(*r));
	size_t i;

	if (!r)
		return BALE_ENOMEM;
	r->slot = calloc(slots, sizeof(void *));
	r->free_slot = calloc(slots, sizeof(pthread_cond_t));
	if (!r->slot || !r->free_slot) {
		free(r->slot);
		free(r->free_slot);
		free(r);
		return BALE_ENOMEM;
	}
	r->nslots = slots;
	r->wake_run = slots / 8 ? slots / 8 : 1;
	r->total = total;
	r->bytes_max = bytes;
	pthread_mutex_init(&r->lock, NULL);
	for (i = 0; i < slots; i++)
		pthread_cond_init(&r->free_slot[i], NULL);
	pthread_cond_init(&r->bytes_freed, NULL);
	pthread_cond_init(&r->arrived, NULL);
	*out = r;
	return BALE_OK;
}

int bale_reorder_claim(struct bale_reorder *r, uint64_t *pos)
{
	int rc = -1;

	pthread_mutex_lock(&r->lock);
	if (r->aborted || r->next_claim >= r->total)
		goto out_unlock;
	*pos = r->next_claim++;
	while (!r->aborted && *pos >= r->next_take + r->nslots)
		pthread_cond_wait(&r->free_slot[*pos % r->nslots], &r->lock);
	rc = r->aborted ? -1 : 0;
out_unlock:
	pthread_mutex_unlock(&r->lock);
	return rc;
}

int bale_reorder_reserve(struct bale_reorder *r, uint64_t pos, size_t bytes)
{
	int rc;

	pthread_mutex_lock(&r->lock);
	while (!r->aborted && pos != r->next_take &&
	    r->bytes_held + bytes > r->bytes_max) {
		r->bytes_waiters++;
		pthread_cond_wait(&r->bytes_freed, &r->lock);
		r->bytes_waiters--;
	}
	rc = r->aborted ? -1 : 0;
	if (rc == 0) {
		r->bytes_held += bytes;
		if (r->bytes_held > r->bytes_peak)
			r->bytes_peak = r->bytes_held;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void bale_reorder_deliver(struct bale_reorder *r, uint64_t pos, void *item)
{
	pthread_mutex_lock(&r->lock);
	r->slot[pos % r->nslots] = item;
	if (pos == r->next_take)
		pthread_cond_signal(&r->arrived);
	pthread_mutex_unlock(&r->lock);
}

/* Wake the producers waiting for the slots freed since the last time:
 * the slot of position p is the one p + nslots uses. Under the lock. */
static void reorder_announce(struct bale_reorder *r)
{
	for (; r->woken_to < r->next_take; r->woken_to++)
		pthread_cond_broadcast(&r->free_slot[r->woken_to % r->nslots]);
}

void *bale_reorder_take(struct bale_reorder *r)
{
	void *item = NULL;
	size_t i;

	pthread_mutex_lock(&r->lock);
	i = r->next_take % r->nslots;
	if (!r->slot[i])	/* the item may wait on a slot not announced */
		reorder_announce(r);
	while (!r->aborted && !r->slot[i])
		pthread_cond_wait(&r->arrived, &r->lock);
	if (!r->aborted) {
		item = r->slot[i];
		r->slot[i] = NULL;
	}
	pthread_mutex_unlock(&r->lock);
	return item;
}

void bale_reorder_advance(struct bale_reorder *r, size_t bytes)
{
	pthread_mutex_lock(&r->lock);
	r->bytes_held -= bytes;
	r->next_take++;
	/* broadcast: a producer a lap further on may wait on a slot too */
	if (r->next_take - r->woken_to >= r->wake_run)
		reorder_announce(r);
	/* the new head may be short of bytes: it waits until it is the head */
	if (r->bytes_waiters)
		pthread_cond_broadcast(&r->bytes_freed);
	pthread_mutex_unlock(&r->lock);
}

void bale_reorder_abort(struct bale_reorder *r)
{
	size_t i;

	pthread_mutex_lock(&r->lock);
	r->aborted = 1;
	for (i = 0; i < r->nslots; i++)
		pthread_cond_broadcast(&r->free_slot[i]);
	pthread_cond_broadcast(&r->bytes_freed);
	pthread_cond_broadcast(&r->arrived);
	pthread_mutex_unlock(&r->lock);
}

void *bale_reorder_leftover(struct bale_reorder *r, size_t slot)
{
	void *item = r->slot[slot];

	r->slot[slot] = NULL;
	return item;
}

size_t bale_reorder_slots(const struct bale_reorder *r)
{
	return r->nslots;
}

size_t bale_reorder_peak(const struct bale_reorder *r)
{
	return r->bytes_peak;
}

void bale_reorder_free(struct bale_reorder *r)
{
	size_t i;

	if (!r)
		return;
	pthread_mutex_destroy(&r->lock);
	for (i = 0; i < r->nslots; i++)
		pthread_cond_destroy(&r->free_slot[i]);
	pthread_cond_destroy(&r->bytes_freed);
	pthread_cond_destroy(&r->arrived);
	free(r->free_slot);
	free(r->slot);
	free(r);
}
