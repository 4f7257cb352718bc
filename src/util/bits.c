/* bits.c - a growing set of bits (bits.h). */
#include "bits.h"

#include <stdlib.h>
#include <string.h>

int bale_bits_set(struct bale_bits *b, uint64_t i)
{
	uint64_t need = i / 64 + 1, n = b->nwords;
	uint64_t *w;

	if (need > n) {
		n = n ? n : 16;
		while (n < need)
			n *= 2;
		w = realloc(b->w, n * sizeof(*w));
		if (!w)
			return -1;
		memset(w + b->nwords, 0, (n - b->nwords) * sizeof(*w));
		b->w = w;
		b->nwords = n;
	}
	b->w[i / 64] |= UINT64_C(1) << (i % 64);
	return 0;
}

uint64_t bale_bits_count(const struct bale_bits *b)
{
	uint64_t i, n = 0;

	for (i = 0; i < b->nwords; i++)
		n += (uint64_t)__builtin_popcountll(b->w[i]);
	return n;
}

void bale_bits_release(struct bale_bits *b)
{
	free(b->w);
	b->w = NULL;
	b->nwords = 0;
}
