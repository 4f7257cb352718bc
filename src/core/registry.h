/* registry.h - walk the backends this library was built with. */
#ifndef BALE_REGISTRY_H
#define BALE_REGISTRY_H

#include "bale_backend_util.h"

#include <stddef.h>

/** Backend @i of the registry, in its order; NULL past the end. */
const struct bale_backend *bale_registry_at(size_t i);

/** The backend whose output names end as @path's does, NULL: none. */
const char *bale_registry_by_suffix(const char *path);

/** The next name of the comma-separated format list *@list into @name
 *  (@cap bytes); *@list moves past it. @return 1, 0 at the list's end,
 *  or -1 for an empty name or one of @cap bytes or more */
int bale_registry_next_name(const char **list, char *name, size_t cap);

/** Option @key of @be's writer, as its table declares it; NULL when it
 *  takes no such option. */
const struct bale_option *bale_backend_option(const struct bale_backend *be,
    const char *key);

#define BALE_OPTION_TEXT_MAX 128	/* "[FORMAT.]KEY" at most, with NUL */

/** Split a writer option "[FORMAT.]KEY=VALUE" (bale pack -O): FORMAT into
 *  @fmt ("" without one), KEY into @key, each BALE_OPTION_TEXT_MAX
 *  bytes. @return VALUE, or NULL when there is no '=', nothing before
 *  it, or more than fits. */
const char *bale_option_split(const char *opt, char *fmt, char *key);

#endif
