/* shuffle.c - seeded permutations: Fisher-Yates into an array, or a
 * Feistel network an index at a time. */
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

void bale_shuffle(bale_order_t *perm, size_t n, uint64_t seed)
{
	uint64_t state = seed;
	bale_order_t tmp;
	size_t i;
	size_t j;

	for (i = 0; i < n; i++)
		perm[i] = (bale_order_t)i;
	for (i = n; i > 1; i--) {
		j = (size_t)shuffle_below(&state, i);
		tmp = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = tmp;
	}
}

void bale_permutation_init(struct bale_permutation *p, uint64_t n,
    uint64_t seed)
{
	int i;

	p->n = n;
	for (p->half = 1; p->half < 32 && (n - 1) >> (2 * p->half); p->half++)
		;
	for (i = 0; i < 4; i++)
		p->key[i] = shuffle_next(&seed);
}

/* One pass of the network: a bijection of [0, 2^(2 half)). */
static uint64_t permutation_feistel(const struct bale_permutation *p,
    uint64_t x)
{
	uint64_t mask = ((uint64_t)1 << p->half) - 1;
	uint64_t l = x >> p->half, r = x & mask, t, k;
	int i;

	for (i = 0; i < 4; i++) {
		k = r ^ p->key[i];
		t = l ^ (shuffle_next(&k) & mask);
		l = r;
		r = t;
	}
	return l << p->half | r;
}

uint64_t bale_permutation_at(const struct bale_permutation *p, uint64_t i)
{
	if (p->n <= 1)
		return i;
	do	/* the cycle from i < n comes back below n */
		i = permutation_feistel(p, i);
	while (i >= p->n);
	return i;
}
