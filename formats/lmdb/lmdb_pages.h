/* lmdb_pages.h - where LMDB mapped a data file (it does not say:
 * me_mapaddr is only set for a fixed map), and letting go of the pages
 * the map brought into this process (lmdb_pages.c). */
#ifndef LMDB_PAGES_H
#define LMDB_PAGES_H

#include <lmdb.h>
#include <stddef.h>
#include <sys/types.h>

/** The start of this process's mapping of the file @dev:@ino from its
 *  first byte, found in /proc/self/maps, with its length in *@len; NULL
 *  when there is none. */
const char *bale_lmdb_map_of(dev_t dev, ino_t ino, size_t *len);

/** Drop the first @bytes of the mapping at @map (@len bytes long) from
 *  this process; they stay in the page cache, nothing is lost. */
void bale_lmdb_let_go_of(const char *map, size_t len, size_t bytes);

/** The same for @env's map, found from its data file. */
void bale_lmdb_let_go(MDB_env *env, size_t bytes);

/* Records a walk through the map reads between two lets-go: its memory
 * stays a few MiB whatever the file holds. */
#define BALE_LMDB_LET_GO_EVERY 16384

#endif
