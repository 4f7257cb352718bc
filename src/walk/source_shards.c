/* source_shards.c - WebDataset shards as the source: a folder of .tar
 * files (and no subfolder) or a brace pattern ('a-{000..009}.tar'),
 * samples grouped by key as webdataset groups them (shard_set.c finds
 * the shards). */
#include "kind.h"

#include "shard_set.h"

static int shards_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err)
{
	(void)self;
	if (s->npaths != 1)
		return 0;
	return bale_shard_set(s->paths[0], &s->found, &s->nfound, err);
}

static int shards_scan(const struct bale_source *s, struct bale_walk *w)
{
	bale_walk_set_kinds(w, s->kinds);
	return bale_walk_shards(w, (const char *const *)s->found, s->nfound);
}

const struct bale_source_kind bale_source_shards = {
	.name = "shards",
	.what = "WebDataset shards",
	.caps = 0,
	.probe = shards_probe,
	.scan = shards_scan,
};
