/* test_reorder.c - items made out of order come out in order, and the
 * byte bound holds except for the item the consumer waits for. */
#include "check.h"
#include "reorder.h"

#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#define TOTAL 2000
#define BOUND 1000

struct item {
	uint64_t pos;
	size_t bytes;
};

static struct bale_reorder *ro;

/* Sizes vary; every 97th item is larger than the whole bound. */
static size_t item_bytes(uint64_t pos)
{
	return pos % 97 == 5 ? 5 * BOUND : 10 + pos % 200;
}

static void *producer(void *arg)
{
	uint64_t pos;
	struct item *it;

	(void)arg;
	while (bale_reorder_claim(ro, &pos) == 0) {
		if (bale_reorder_reserve(ro, pos, item_bytes(pos)) != 0)
			break;
		if (pos % 7 == 0)
			usleep(50);	/* finish out of order */
		it = malloc(sizeof(*it));
		it->pos = pos;
		it->bytes = item_bytes(pos);
		bale_reorder_deliver(ro, pos, it);
	}
	return NULL;
}

static void test_in_order_and_bounded(void)
{
	pthread_t t[6];
	struct item *it;
	uint64_t i;
	int k;

	CHECK_EQ(0, bale_reorder_new(&ro, TOTAL, 16, BOUND));
	for (k = 0; k < 6; k++)
		pthread_create(&t[k], NULL, producer, NULL);
	for (i = 0; i < TOTAL; i++) {
		it = bale_reorder_take(ro);
		CHECK(it != NULL);
		if (!it)
			break;
		CHECK_EQ(i, it->pos);
		bale_reorder_advance(ro, it->bytes);
		free(it);
	}
	for (k = 0; k < 6; k++)
		pthread_join(t[k], NULL);
	/* only the head item may exceed the bound, and then alone with
	 * what was already admitted below the bound */
	CHECK(bale_reorder_peak(ro) <= BOUND + 5 * BOUND);
	bale_reorder_free(ro);
}

static void test_small_items_respect_bound(void)
{
	pthread_t t[4];
	struct item *it;
	uint64_t i;
	int k;

	CHECK_EQ(0, bale_reorder_new(&ro, 500, 64, 300));
	for (k = 0; k < 4; k++)
		pthread_create(&t[k], NULL, producer, NULL);
	for (i = 0; i < 500; i++) {
		it = bale_reorder_take(ro);
		if (!it)
			break;
		usleep(20);	/* a slow writer fills the window */
		bale_reorder_advance(ro, it->bytes);
		free(it);
	}
	for (k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
	CHECK_EQ(500, i);
	/* items here are <= 209 bytes except the over-size ones (5*BOUND),
	 * which are admitted only as head: the bound plus one head item */
	CHECK(bale_reorder_peak(ro) <= 300 + 5 * BOUND);
	bale_reorder_free(ro);
}

static void test_abort_wakes_everyone(void)
{
	pthread_t t[3];
	int k;

	CHECK_EQ(0, bale_reorder_new(&ro, 100000, 8, 100));
	for (k = 0; k < 3; k++)
		pthread_create(&t[k], NULL, producer, NULL);
	usleep(10000);		/* producers now wait for the consumer */
	bale_reorder_abort(ro);
	for (k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	CHECK(bale_reorder_take(ro) == NULL);
	for (k = 0; k < (int)bale_reorder_slots(ro); k++)
		free(bale_reorder_leftover(ro, (size_t)k));
	bale_reorder_free(ro);
}

int main(void)
{
	test_in_order_and_bounded();
	test_small_items_respect_bound();
	test_abort_wakes_everyone();
	return CHECK_DONE();
}
