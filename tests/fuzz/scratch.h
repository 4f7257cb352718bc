/* scratch.h - a per-process scratch folder for fuzz targets that must
 * hand the readers real files. */
#ifndef BALE_FUZZ_SCRATCH_H
#define BALE_FUZZ_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

/* The path of @name in the scratch folder (made on first use, removed
 * with its files at exit). Valid until the next call. */
const char *fuzz_scratch_path(const char *name);

/* Write @n bytes at @p to @name in the scratch folder. */
void fuzz_scratch_put(const char *name, const uint8_t *p, size_t n);

#endif
