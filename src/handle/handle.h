/* handle.h - the reader and writer handles' calls for src/ alone (not
 * formats): opening with a backend found (core/open.c), and where a
 * sample's bytes lie (a packed source reads them there). */
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

/** Where the data bytes of the sample @r's last get returned lie, whole
 *  and as stored (the where op): the reader's file descriptor in *@fd,
 *  their offset in *@offset; valid while @r is open. @return BALE_OK, or
 *  BALE_ENOTSUP when the backend cannot say */
int bale_reader_where(struct bale_reader *r, int *fd, uint64_t *offset);

/** Samples [@first, @first + @n) will be read soon: their bytes asked
 *  for ahead when their format can (the prefetch op) and they lie in a
 *  remote store. @return 1 asked, 0 nothing asked, -1 the store's
 *  bounds are reached */
int bale_reader_prefetch(struct bale_reader *r, uint64_t first, uint64_t n);

/** From now on bale_writer_put() may refer to a sample's bytes until
 *  bale_writer_settle(), if its format gathers writes (the settle op):
 *  the caller keeps them until then. */
void bale_writer_hold(struct bale_writer *w);

/** Write (or copy) all the bytes put() still refers to: the caller may
 *  free them after. @return BALE_OK, or the error (sticky, as put's) */
int bale_writer_settle(struct bale_writer *w);

#endif
