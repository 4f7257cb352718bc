/* lmdb_pages.h - let go of an environment's mapped pages. */
#ifndef LMDB_PAGES_H
#define LMDB_PAGES_H

#include <lmdb.h>
#include <stddef.h>

/** Drop the first @bytes of @env's map from this process (they stay in
 *  the page cache; nothing is lost). */
void bale_lmdb_let_go(MDB_env *env, size_t bytes);

#endif
