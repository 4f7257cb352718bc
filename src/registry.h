/* registry.h - walk the backends this library was built with. */
#ifndef BALE_REGISTRY_H
#define BALE_REGISTRY_H

#include "bale_backend.h"

#include <stddef.h>

/** Backend @i of the registry, in its order; NULL past the end. */
const struct bale_backend *registry_at(size_t i);

#endif
