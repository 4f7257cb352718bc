/* shard_set.h - a source naming a set of files: a folder of them (and
 * no subfolder), a brace or a wildcard pattern. */
#ifndef BALE_SHARD_SET_H
#define BALE_SHARD_SET_H

#include "bale_backend_util.h"

#include <stddef.h>

/** The shards @src names, in order (a folder's sorted by name; a
 *  pattern's as expanded, left for the walk to find or not).
 *  @return 1 with *@paths set (free with bale_shard_set_free), 0 when
 *  @src names no shard set, or BALE_ENOMEM / BALE_EINVAL with @err */
int bale_shard_set(const char *src, char ***paths, size_t *n,
    struct bale_errbuf *err);

/** The files @src names whose names @want takes, as bale_shard_set()
 *  finds shards (a wildcard pattern too: 'train-*.parquet'). */
int bale_file_set(const char *src, int (*want)(const char *name),
    char ***paths, size_t *n, struct bale_errbuf *err);

void bale_shard_set_free(char **paths, size_t n);

#endif
