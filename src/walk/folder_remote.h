/* folder_remote.h - an ImageFolder tree of small objects in an object
 * store, as the folder reader reads it (folder_remote.c). */
#ifndef BALE_FOLDER_REMOTE_H
#define BALE_FOLDER_REMOTE_H

#include "bale.h"

#include <stddef.h>
#include <stdint.h>

struct folder_remote;

/** List the tree at @root (classes, then each one's images), timed.
 *  @return BALE_OK, or the store's error (BALE_ENOENT: no class) */
int bale_folder_remote_open(struct folder_remote **fr, const char *root,
    struct bale_errbuf *err);
uint64_t bale_folder_remote_count(const struct folder_remote *fr);
/** Sample @i's "class/name" under the root. */
const char *bale_folder_remote_path(const struct folder_remote *fr,
    uint64_t i);
int64_t bale_folder_remote_label(const struct folder_remote *fr, uint64_t i);
const char *const *bale_folder_remote_classes(const struct folder_remote *fr,
    size_t *n);
/** How long the listing took, seconds. */
double bale_folder_remote_list_seconds(const struct folder_remote *fr);
/** Sample @i's bytes, one GET, in *@data (NUL after them) to free(). */
int bale_folder_remote_read(const struct folder_remote *fr, uint64_t i,
    char **data, size_t *n, struct bale_errbuf *err);
void bale_folder_remote_free(struct folder_remote *fr);

#endif
