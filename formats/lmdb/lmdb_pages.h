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

/* Reads that jump about (a shuffled conversion's) each map a few pages
 * far apart (a branch, a leaf, the key list's) and whatever the kernel
 * maps around them (a large folio whole): some 200 KiB a read, so
 * 16 384 of them held 650 MiB of an 870 MB file. A reader asked to keep
 * few pages looks every BALE_LMDB_LOOK_EVERY such reads at the pages
 * of files this process has mapped, and lets go once they grew by
 * BALE_LMDB_MAPPED_MAX since the last time (letting go every 128 reads
 * bounded nothing where folios are large). The pages then fault in
 * again: a 1 M conversion takes 2.4x its time. A source fresh in the
 * page cache can map megabytes a read (a large folio whole), and then
 * the looks overshoot: 365 MiB at 10 M (bench/results/scale.md). */
#define BALE_LMDB_LOOK_EVERY 64
#define BALE_LMDB_MAPPED_MAX ((size_t)24 << 20)

/** The pages of files this process has mapped (from /proc/self/statm),
 *  in bytes; 0 when unknown. */
size_t bale_lmdb_mapped_bytes(void);

#endif
