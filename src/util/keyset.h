/* keyset.h - the keys an output held before an update, in the order
 * the output holds them (ascending: an update keeps the samples that
 * stay in place and appends the new ones under keys above every key
 * before). A bit per key ever given, where a list cost 8 bytes a
 * sample; the n-th key is found through a count of the keys before
 * every 4096th. */
#ifndef BALE_KEYSET_H
#define BALE_KEYSET_H

#include "bits.h"

#include <stdint.h>

struct bale_keyset {
	struct bale_bits bits;
	uint64_t *before;	/* keys below each 4096-key block */
	uint64_t nblocks;
	uint64_t count;
};

#define BALE_KEYSET_INIT { BALE_BITS_INIT, NULL, 0, 0 }

/** Add @key. @return 0, 1 when it was there already (a manifest that
 *  names a key twice), or -1 without memory */
int bale_keyset_add(struct bale_keyset *ks, uint64_t key);

/** Count the blocks, once every key is in. @return 0, or -1 without
 *  memory */
int bale_keyset_seal(struct bale_keyset *ks);

/** The @pos-th key in ascending order (@pos < count), after the seal. */
uint64_t bale_keyset_at(const struct bale_keyset *ks, uint64_t pos);

/** The largest key; 0 for none. */
uint64_t bale_keyset_last(const struct bale_keyset *ks);

void bale_keyset_release(struct bale_keyset *ks);

#endif
