/* shuffle.h - a seeded permutation that is the same on every machine. */
#ifndef BALE_SHUFFLE_H
#define BALE_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

/** Fill @perm[0..n) with a permutation of 0..n-1 chosen by @seed
 *  (Fisher-Yates over splitmix64; unbiased; stable across platforms). */
void bale_shuffle(uint64_t *perm, size_t n, uint64_t seed);

#endif
