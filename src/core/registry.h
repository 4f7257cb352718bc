/* registry.h - walk the backends this library was built with. */
#ifndef BALE_REGISTRY_H
#define BALE_REGISTRY_H

#include "bale_backend_util.h"

#include <stddef.h>

/** Backend @i of the registry, in its order; NULL past the end. */
const struct bale_backend *bale_registry_at(size_t i);

/** The next name of the comma-separated format list *@list into @name
 *  (@cap bytes); *@list moves past it. @return 1, 0 at the list's end,
 *  or -1 for an empty name or one of @cap bytes or more */
int bale_registry_next_name(const char **list, char *name, size_t cap);

#endif
