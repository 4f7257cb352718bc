/* handle.h - the reader and writer handles, given their backend: what
 * core/open.c calls once it has found which backend a path or a format
 * name needs. */
#ifndef BALE_HANDLE_H
#define BALE_HANDLE_H

#include "bale_backend.h"

/** Open @path with backend @be (one with reader ops). @return as
 *  bale_reader_open() */
int bale_reader_open_with(struct bale_reader *r,
    const struct bale_backend *be, const char *path);

/** Write with backend @be (one with writer ops). @return BALE_OK,
 *  BALE_ESTATE (a backend was chosen), BALE_ENOMEM */
int bale_writer_use(struct bale_writer *w, const struct bale_backend *be);

#endif
