/* registry.c - the backends this library was built with. */
#include "bale_backend.h"
#include "bale_config.h"

#include <string.h>

extern const struct bale_backend bale_backend_folder;
#if BALE_HAVE_HDF5
extern const struct bale_backend bale_backend_hdf5;
#endif
#if BALE_HAVE_LMDB
extern const struct bale_backend bale_backend_lmdb;
#endif
#if BALE_HAVE_WDS
extern const struct bale_backend bale_backend_wds;
#endif

static const struct bale_backend *const registry_table[] = {
	&bale_backend_folder,
#if BALE_HAVE_HDF5
	&bale_backend_hdf5,
#endif
#if BALE_HAVE_LMDB
	&bale_backend_lmdb,
#endif
#if BALE_HAVE_WDS
	&bale_backend_wds,
#endif
	NULL,
};

static const char *const registry_names[] = {
	"folder",
#if BALE_HAVE_HDF5
	"hdf5",
#endif
#if BALE_HAVE_LMDB
	"lmdb",
#endif
#if BALE_HAVE_WDS
	"wds",
#endif
	NULL,
};

const struct bale_backend *bale_backend_find(const char *name)
{
	size_t i;

	for (i = 0; registry_table[i]; i++)
		if (strcmp(registry_table[i]->name, name) == 0)
			return registry_table[i];
	return NULL;
}

const char *const *bale_backend_names(void)
{
	return registry_names;
}
