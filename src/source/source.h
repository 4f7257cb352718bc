/* source.h - what a run reads: the kinds of source in the order they
 * are tried, a packed output's first (src/source/source_kinds.c), then
 * the kinds read from files (src/walk/kind.h).
 */
#ifndef BALE_SOURCE_H
#define BALE_SOURCE_H

#include "kind.h"

/** Find the kind of the source at @paths (@n of them, the first the
 *  run's SRC) with list file @list (or NULL): the first kind whose probe
 *  says yes. @return BALE_OK with @s set (release it), or an error in
 *  @err (BALE_EINVAL: no kind takes these paths) */
int bale_source_classify(struct bale_source *s, const char *const *paths,
    size_t n, const char *list, struct bale_errbuf *err);

/** The kind of a packed output's samples: read by the feed. */
extern const struct bale_source_kind bale_source_packed;

/** The kind of a packed output's samples whose bytes lie whole in one
 *  of its files (an LMDB's): read in place, at their offsets. */
extern const struct bale_source_kind bale_source_packed_in_place;

/** Collect the samples of the output bale (or Caffe) packed at @path,
 *  as its reader (@format, NULL: recognised by content) gives them: in
 *  its order, with its labels, class names and source paths.
 *  @return BALE_OK, BALE_EINPUT (unreadable), BALE_ENOMEM */
int bale_walk_dataset(struct bale_walk *w, const char *path,
    const char *format);

/** The packed output a dataset walk read (NULL: none), its format in
 *  *@format: the feed opens its own reader on it. */
const char *bale_walk_dataset_source(const struct bale_walk *w,
    const char **format);

#endif
