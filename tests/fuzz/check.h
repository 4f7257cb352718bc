/* check.h - what a fuzz target asks of every sample a reader returns:
 * its bytes, key and path are readable, whole (the sanitizers see any
 * byte out of bounds). */
#ifndef BALE_FUZZ_CHECK_H
#define BALE_FUZZ_CHECK_H

#include "bale.h"

#include <stdlib.h>
#include <string.h>

static inline void fuzz_check_blob(const struct bale_blob *b)
{
	volatile unsigned char sum = 0;
	size_t i;

	if (b->size && !b->data)
		abort();
	for (i = 0; i < b->size; i++)
		sum ^= b->data[i];
	if (b->key)
		sum ^= (unsigned char)strlen(b->key);
	if (b->path)
		sum ^= (unsigned char)strlen(b->path);
}

#endif
