/* wds_shard.c - what the writer, its checkpoints (wds_partial.c), its
 * resume and its compact index share about a shard: its file names, its
 * entry in the list, a sample's place in its index, the writer's start. */
#include "wds.h"

#include "wds_list.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *bale_wds_list_path(const struct wds_w *st)
{
	return bale_strfmt("%s/%s" WDS_LIST_SUFFIX, st->dir, st->name);
}

/* The shards' names: the output's, or a replacing run's own. */
static const char *wds_stem(const struct wds_w *st)
{
	return st->stem ? st->stem : st->name;
}

char *bale_wds_path(const struct wds_w *st, unsigned no, const char *ext)
{
	return bale_strfmt("%s/%s-%06u.%s", st->dir, wds_stem(st), no, ext);
}

int bale_wds_init(struct bale_writer *w, struct wds_w *st,
    const char *dir, const struct bale_dataset *ds)
{
	if (!st->max_bytes && !st->max_count)
		st->max_bytes = WDS_DEFAULT_SHARD_SIZE;
	st->dir = strdup(dir);
	st->name = strdup(ds->name);
	st->remote = !bale_store_is_local(dir);
	if (!st->dir || !st->name)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	bale_meta_classes(&st->classes, ds);
	if (st->classes.failed)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	return BALE_OK;
}

void bale_wds_list_entry(struct wds_w *st, uint64_t filesize)
{
	char url[PATH_MAX];

	snprintf(url, sizeof(url), "%s-%06u.tar", wds_stem(st), st->shard_no);
	bale_wds_list_add(&st->list, url, st->shard_samples, filesize);
	if (st->remote)	/* the journal's record of it */
		bale_buf_printf(&st->done, "%s[%" PRIu64 ",%" PRIu64 ",%"
		    PRIu64 "]", st->done.len ? "," : "", st->shard_samples,
		    filesize, st->last_index + 1);
}

void bale_wds_index_sample(struct wds_w *st, int64_t label, const char *key,
    uint64_t size, uint64_t image_at)
{
	struct bale_index_loc loc;
	uint64_t tail = st->member_end - image_at - size;

	if (size > UINT32_MAX || tail > UINT32_MAX) {
		st->bix.unfit = 1;
		return;
	}
	loc.off = image_at;
	loc.size = (uint32_t)size;
	loc.tail = (uint32_t)tail;
	bale_index_add(&st->bix, label, &loc, key);
}
