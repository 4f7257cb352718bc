/* hash.c - 64-bit FNV-1a (hash.h). */
#include "hash.h"

uint64_t bale_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return h;
}
