/* shuffle.h - a seeded permutation that is the same on every machine. */
#ifndef BALE_SHUFFLE_H
#define BALE_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

/* A run's order: output position -> walk index, 4 bytes a sample. */
typedef uint32_t bale_order_t;
#define BALE_ORDER_MAX UINT32_MAX	/* samples a run can order */

/* Which walk index each of a run's positions takes: @perm[pos], or
 * @base + pos when @perm is NULL (a run in the walk's own order keeps
 * no table: 4 bytes a sample). */
struct bale_order {
	const bale_order_t *perm;
	uint64_t base;
};

static inline size_t bale_order_at(const struct bale_order *o, uint64_t pos)
{
	return (size_t)(o->perm ? o->perm[pos] : o->base + pos);
}

/** Fill @perm[0..n) with a permutation of 0..n-1 chosen by @seed
 *  (Fisher-Yates over splitmix64; unbiased; stable across platforms),
 *  n at most BALE_ORDER_MAX. */
void bale_shuffle(bale_order_t *perm, size_t n, uint64_t seed);

/** A seeded permutation of 0..n-1 computed an index at a time, in no
 *  memory: a 4-round Feistel network over the smallest even power of
 *  two at least n, walked along its cycle until the value is below n
 *  (at most 4 steps on average). Stable across platforms. */
struct bale_permutation {
	uint64_t n;
	unsigned half;		/* bits of each Feistel half */
	uint64_t key[4];
};

void bale_permutation_init(struct bale_permutation *p, uint64_t n,
    uint64_t seed);
/** The @i-th value (@i < n). */
uint64_t bale_permutation_at(const struct bale_permutation *p, uint64_t i);

#endif
