/* spill_records.h - records of any length in a spill (an archive's
 * member list, met in one pass and taken at its end), read back in
 * order. */
#ifndef BALE_SPILL_RECORDS_H
#define BALE_SPILL_RECORDS_H

#include "bale_backend_util.h"

#include <stddef.h>

/** Append record @rec of @n bytes (its length, then it); a failure is
 *  kept in @s, as bale_spill_add() keeps it. */
void bale_spill_record(struct bale_spill *s, const void *rec, size_t n);

/** Read back every record in order, each to @fn, through @buf (about a
 *  MiB of it); stops at @fn's first return other than 0.
 *  @return 0 when all were read back, @fn's return, or 1 when the
 *  spill could not be read back (errno says why) */
int bale_spill_replay(const struct bale_spill *s, struct bale_buf *buf,
    int (*fn)(void *ctx, const unsigned char *rec, size_t n), void *ctx);

#endif
