/* keyset.c - the keys before an update, as bits (keyset.h). */
#include "keyset.h"

#include <stdlib.h>

#define KEYSET_BLOCK_WORDS 64	/* 4096 keys */

int bale_keyset_add(struct bale_keyset *ks, uint64_t key)
{
	if (bale_bits_get(&ks->bits, key))
		return 1;
	if (bale_bits_set(&ks->bits, key) != 0)
		return -1;
	ks->count++;
	return 0;
}

int bale_keyset_seal(struct bale_keyset *ks)
{
	uint64_t b, i, n = 0;

	ks->nblocks = (ks->bits.nwords + KEYSET_BLOCK_WORDS - 1) /
	    KEYSET_BLOCK_WORDS;
	free(ks->before);
	ks->before = malloc((ks->nblocks + 1) * sizeof(*ks->before));
	if (!ks->before)
		return -1;
	for (b = 0; b < ks->nblocks; b++) {
		ks->before[b] = n;
		for (i = b * KEYSET_BLOCK_WORDS; i < ks->bits.nwords &&
		    i < (b + 1) * KEYSET_BLOCK_WORDS; i++)
			n += (uint64_t)__builtin_popcountll(ks->bits.w[i]);
	}
	return 0;
}

/* The last block with fewer than @pos + 1 keys before it. */
static uint64_t keyset_block_of(const struct bale_keyset *ks, uint64_t pos)
{
	uint64_t lo = 0, hi = ks->nblocks, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ks->before[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint64_t bale_keyset_at(const struct bale_keyset *ks, uint64_t pos)
{
	uint64_t b = keyset_block_of(ks, pos), i = b * KEYSET_BLOCK_WORDS;
	uint64_t left = pos - ks->before[b], w;
	unsigned in;

	if (pos >= ks->count)
		return UINT64_MAX;
	for (; i < ks->bits.nwords; i++) {
		in = (unsigned)__builtin_popcountll(ks->bits.w[i]);
		if (left < in)
			break;
		left -= in;
	}
	if (i == ks->bits.nwords)
		return UINT64_MAX;	/* past the last: no such key */
	for (w = ks->bits.w[i]; left; left--)
		w &= w - 1;	/* drop the lowest key of the word */
	return i * 64 + (uint64_t)__builtin_ctzll(w);
}

uint64_t bale_keyset_last(const struct bale_keyset *ks)
{
	uint64_t i = ks->bits.nwords;

	while (i > 0 && !ks->bits.w[i - 1])
		i--;
	return i ? (i - 1) * 64 + 63 - (uint64_t)__builtin_clzll(
	    ks->bits.w[i - 1]) : 0;
}

void bale_keyset_release(struct bale_keyset *ks)
{
	bale_bits_release(&ks->bits);
	free(ks->before);
	ks->before = NULL;
	ks->nblocks = ks->count = 0;
}
