/* bits.h - a growing set of bits, one per sample of a run (which were
 * kept, which were written): an eighth of a byte each, where a flag
 * array costs a byte. */
#ifndef BALE_BITS_H
#define BALE_BITS_H

#include <stddef.h>
#include <stdint.h>

struct bale_bits {
	uint64_t *w;
	uint64_t nwords;
};

#define BALE_BITS_INIT { NULL, 0 }

/** Set bit @i, growing the set. @return 0, or -1 without memory */
int bale_bits_set(struct bale_bits *b, uint64_t i);

static inline int bale_bits_get(const struct bale_bits *b, uint64_t i)
{
	return i / 64 < b->nwords && (b->w[i / 64] >> (i % 64) & 1);
}

/** How many are set. */
uint64_t bale_bits_count(const struct bale_bits *b);

void bale_bits_release(struct bale_bits *b);

#endif
