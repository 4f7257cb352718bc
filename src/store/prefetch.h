/* prefetch.h - ranged reads kept in flight ahead of their use
 * (prefetch.c): what stores.c asks of it. */
#ifndef BALE_PREFETCH_H
#define BALE_PREFETCH_H

#include "http.h"

#include <stddef.h>
#include <stdint.h>

/** Queue a GET of bytes [@off, @off + @len) of @name at @url, signed
 *  with @sign (NULL: not), for @reads reads of parts of it (then it
 *  goes). @return 1 queued or already there, 0 not (prefetching is
 *  off), -1 full (the bounds are reached: later) */
int bale_prefetch_add(const char *name, const char *url,
    const struct bale_aws *sign, uint64_t off, size_t len,
    unsigned reads);

/** Queue GETs of the aligned blocks of object @name (@size bytes) that
 *  hold [@off, @off + @len), each for @reads more reads of parts of it,
 *  for batch @gen (from 1: bale_store_prefetch_expire()). A block asked
 *  already is not asked again. @return 1 queued or already there, 0 not
 *  (prefetching is off), -1 full (none of them queued: later) */
int bale_prefetch_add_blocks(const char *name, const char *url,
    const struct bale_aws *sign, uint64_t size, uint64_t off, size_t len,
    unsigned reads, uint64_t gen);

/** Take the bytes of [@off, @off + the pieces' length) of @name if they
 *  were asked for ahead (alone, in a run's range, or in blocks): waits
 *  while they are on their way. @return 1 copied into @iov, 0 not there
 *  (or their GET failed: read them yourself, which retries and says
 *  why) */
int bale_prefetch_take(const char *name, uint64_t off,
    const struct iovec *iov, int iovcnt);

#endif
