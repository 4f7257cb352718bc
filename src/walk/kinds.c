/* kinds.c - the kinds of source read from files, in the order they are
 * tried: a remote folder first (a bucket's objects: no other kind reads
 * it), WebDataset shards are recognised before what they also are
 * (tars), Parquet files by their name and first bytes, the archive
 * kinds by their first bytes (a compressed tar last: whatever libarchive
 * may read), a list file before the bare folder. */
#include "kind.h"

#include "bale_backend_util.h"
#include "shard_set.h"

extern const struct bale_source_kind bale_source_bucket;
extern const struct bale_source_kind bale_source_shards;
extern const struct bale_source_kind bale_source_parquet;
extern const struct bale_source_kind bale_source_tar;
extern const struct bale_source_kind bale_source_zip;
extern const struct bale_source_kind bale_source_compressed_tar;
extern const struct bale_source_kind bale_source_list;
extern const struct bale_source_kind bale_source_folder;

static const struct bale_source_kind *const kinds[] = {
	/* before the bucket: a bucket's folder of Parquet files */
	&bale_source_parquet,
	&bale_source_bucket,
	&bale_source_shards,
	&bale_source_tar,
	&bale_source_zip,
	&bale_source_compressed_tar,
	&bale_source_list,
	&bale_source_folder,
	NULL,
};

const struct bale_source_kind *const *bale_source_file_kinds(void)
{
	return kinds;
}

void bale_source_release(struct bale_source *s)
{
	bale_shard_set_free(s->found, s->nfound);
	s->found = NULL;
	s->nfound = 0;
}
