/* lmdb_write.h - what lmdb.c (the writer) shares with lmdb_merge.c. */
#ifndef BALE_LMDB_WRITE_H
#define BALE_LMDB_WRITE_H

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <lmdb.h>

/** Remove the environment at @path (a folder, or with @nosubdir a file
 *  and its -lock file). @return 0, or -1 with errno */
int bale_lmdb_remove(const char *path, int nosubdir);

/** The __bale__ record of a default-layout output of @count samples. */
void bale_lmdb_bale_record(struct bale_buf *b, uint64_t count);

/** Every record of the environment at @path (written by another run:
 *  checked not to be cut short), in key order, to @fn, which returns
 *  BALE_OK to go on. @return BALE_OK, @fn's error, or one with @err */
int bale_lmdb_each_record(const char *path, int nosubdir,
    int (*fn)(void *ctx, MDB_val *k, MDB_val *v), void *ctx,
    struct bale_errbuf *err);

/** bale merge: the parts' records copied in key order with MDB_APPEND
 *  into one environment, their __keys__ joined and counts summed. */
int bale_lmdb_merge(const struct bale_merge *m, struct bale_errbuf *err);

/** bale pack --update: the delta's records appended, the leaving
 *  samples' deleted, in one transaction (lmdb_update.c). */
int bale_lmdb_update(const struct bale_update *u, struct bale_errbuf *err);

#endif
