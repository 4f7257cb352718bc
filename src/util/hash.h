/* hash.h - 64-bit FNV-1a: fingerprints of runs, a hash table's slots. */
#ifndef BALE_HASH_H
#define BALE_HASH_H

#include <stddef.h>
#include <stdint.h>

/** 64-bit FNV-1a, chained through @h (start with BALE_FNV_INIT). */
#define BALE_FNV_INIT 0xcbf29ce484222325ull
uint64_t bale_fnv1a(uint64_t h, const void *p, size_t n);

#endif
