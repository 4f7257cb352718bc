/* reorder.c - bounded in-order handoff between threads. */
#include "reorder.h"

#include "bale.h"

#include <pthread.h>
#include <stdlib.h>

struct bale_reorder {
	pthread_mutex_t lock;
	pthread_cond_t changed;		/* any progress: producers wait */
	pthread_cond_t arrived;		/* an item came: the consumer waits */
	void **slot;
	size_t nslots;
	uint64_t total;
	uint64_t next_claim;
	uint64_t next_take;
	size_t bytes_max;
	size_t bytes_held;
	size_t bytes_peak;
	int aborted;
};

int bale_reorder_new(struct bale_reorder **out, uint64_t total, size_t slots,
    size_t bytes)
{
	struct bale_reorder *r = calloc(1, sizeof(*r));

	if (!r)
		return BALE_ENOMEM;
	r->slot = calloc(slots, sizeof(void *));
	if (!r->slot) {
		free(r);
		return BALE_ENOMEM;
	}
	r->nslots = slots;
	r->total = total;
	r->bytes_max = bytes;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->changed, NULL);
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
		pthread_cond_wait(&r->changed, &r->lock);
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
	    r->bytes_held + bytes > r->bytes_max)
		pthread_cond_wait(&r->changed, &r->lock);
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

void *bale_reorder_take(struct bale_reorder *r)
{
	void *item = NULL;
	size_t i;

	pthread_mutex_lock(&r->lock);
	i = r->next_take % r->nslots;
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
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

void bale_reorder_abort(struct bale_reorder *r)
{
	pthread_mutex_lock(&r->lock);
	r->aborted = 1;
	pthread_cond_broadcast(&r->changed);
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
	if (!r)
		return;
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->changed);
	pthread_cond_destroy(&r->arrived);
	free(r->slot);
	free(r);
}
