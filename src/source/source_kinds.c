/* source_kinds.c - the kinds of source, in the order they are tried: a
 * packed output or WebDataset shards are recognised before what they
 * also are (a folder, files), a list file before the bare folder. */
#include "source.h"

#include "bale_backend_util.h"
#include "shard_set.h"

#include <string.h>

extern const struct bale_source_kind bale_source_packed;
extern const struct bale_source_kind bale_source_shards;
extern const struct bale_source_kind bale_source_archives;
extern const struct bale_source_kind bale_source_list;
extern const struct bale_source_kind bale_source_folder;

static const struct bale_source_kind *const kinds[] = {
	&bale_source_packed,
	&bale_source_shards,
	&bale_source_archives,
	&bale_source_list,
	&bale_source_folder,
	NULL,
};

const struct bale_source_kind *const *bale_source_kinds(void)
{
	return kinds;
}

int bale_source_classify(struct bale_source *s, const char *const *paths,
    size_t n, const char *list, struct bale_errbuf *err)
{
	size_t i;
	int rc;

	memset(s, 0, sizeof(*s));
	s->paths = paths;
	s->npaths = n;
	s->list = list;
	for (i = 0; kinds[i]; i++) {
		rc = kinds[i]->probe(s, err);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			s->kind = kinds[i];
			return BALE_OK;
		}
	}
	return bale_errbuf_set(err, BALE_EINVAL, "'%s': not a source bale "
	    "reads (a folder, an archive, WebDataset shards or a packed "
	    "output)", paths[0]);
}

void bale_source_release(struct bale_source *s)
{
	bale_shard_set_free(s->found, s->nfound);
	s->found = NULL;
	s->nfound = 0;
}
