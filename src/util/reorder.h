/* reorder.h - hand items made out of order to one consumer, in order.
 *
 * Producers take positions 0, 1, 2 ... and deliver items in any order;
 * the consumer takes them strictly by position. Two bounds keep memory
 * flat: at most @slots positions may be in flight, and at most @bytes
 * bytes may be reserved, except that the position the consumer waits for
 * is always admitted (one huge item stalls the window, never grows it).
 */
#ifndef BALE_REORDER_H
#define BALE_REORDER_H

#include <stddef.h>
#include <stdint.h>

struct bale_reorder;

int bale_reorder_new(struct bale_reorder **out, uint64_t total, size_t slots,
    size_t bytes);

/** Take the next position to produce and wait until it fits the window.
 *  @return 0 with *pos set; -1 when all are taken or on abort */
int bale_reorder_claim(struct bale_reorder *r, uint64_t *pos);

/** Wait until @bytes may be held for @pos. @return 0, or -1 on abort */
int bale_reorder_reserve(struct bale_reorder *r, uint64_t pos, size_t bytes);

/** Hand over the item for @pos. */
void bale_reorder_deliver(struct bale_reorder *r, uint64_t pos, void *item);

/** Wait for the item at the consumer's position. NULL on abort. */
void *bale_reorder_take(struct bale_reorder *r);

/** The consumer is done with its item, which held @bytes: advance. */
void bale_reorder_advance(struct bale_reorder *r, size_t bytes);

/** Wake everyone; claims and takes fail from now on. */
void bale_reorder_abort(struct bale_reorder *r);

/** Items delivered but never taken (for cleanup after an abort). */
void *bale_reorder_leftover(struct bale_reorder *r, size_t slot);
size_t bale_reorder_slots(const struct bale_reorder *r);

/** The most bytes ever reserved at once (for tests of the bound). */
size_t bale_reorder_peak(const struct bale_reorder *r);

void bale_reorder_free(struct bale_reorder *r);

#endif
