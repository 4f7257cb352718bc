/* shuffle.c - seeded Fisher-Yates permutation. */
#include "shuffle.h"

static uint64_t shuffle_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound) by rejection, so no index is favoured. */
static uint64_t shuffle_below(uint64_t *state, uint64_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t r;

	do
		r = shuffle_next(state);
	while (r >= limit);
	return r % bound;
}

void bale_shuffle(uint64_t *perm, size_t n, uint64_t seed)
{
	uint64_t state = seed;
	uint64_t tmp;
	size_t i;
	size_t j;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n; i > 1; i--) {
		j = (size_t)shuffle_below(&state, i);
		tmp = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = tmp;
	}
}
