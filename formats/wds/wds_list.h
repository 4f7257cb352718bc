/* wds_list.h - NAME-shards.json, the shard list (wids-shard-index-v1):
 * built alike by the writer, merge and update; read back by merge and
 * update. */
#ifndef WDS_LIST_H
#define WDS_LIST_H

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <stdint.h>

struct wds_shard {
	char *url;		/* the shard's file name, beside the list */
	uint64_t nsamples;
	uint64_t filesize;	/* 0: the list does not say */
};

struct wds_list {
	struct wds_shard *v;
	size_t n;
	size_t cap;
	char *classes;		/* "bale"."classes": a JSON array, or NULL */
	size_t classes_len;
	char *bale;		/* the "bale" object as written, or NULL */
	size_t bale_len;
};

/** Append one shard's entry to the entries being built in @entries. */
void bale_wds_list_add(struct bale_buf *entries, const char *url,
    uint64_t nsamples, uint64_t filesize);

/** Append shard @url to @l. @return 0, or -1 without memory */
int bale_wds_list_push(struct wds_list *l, const char *url, uint64_t nsamples,
    uint64_t filesize);

/** The whole list into @b: @entries, and bale's own fields. */
void bale_wds_list_render(struct bale_buf *b, const char *name,
    const struct bale_buf *entries, uint64_t samples, const char *classes,
    size_t classes_len);

/** Is @entry a shard (or a shard's index) of output @name, as bale names
 *  them ("NAME-000000.tar", a replacing run's "NAME-gSTAMP-000000.idx")?
 *  @return the length of its name before the extension, or 0 */
size_t bale_wds_shard_file(const char *entry, const char *name);

/** Read the list at @path. @return BALE_OK, or an error with @err set */
int bale_wds_list_read(const char *path, struct wds_list *l,
    struct bale_errbuf *err);

void bale_wds_list_release(struct wds_list *l);

#endif
