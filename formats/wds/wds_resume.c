/* wds_resume.c - pick up a WebDataset output a killed run left: every
 * finished shard is a checkpoint; keep those that verify, in order, and
 * write again from the first that does not. */
#include "wds.h"

#include "wds_verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int wds_verify_no(const struct wds_w *st, unsigned no,
    struct bale_wds_shard *v, struct bale_errbuf *err)
{
	char *tar = bale_wds_path(st, no, "tar");
	char *idx = bale_wds_path(st, no, "idx");
	int rc;

	if (tar && idx)
		rc = bale_wds_verify_shard(tar, idx, v, err);
	else
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	free(tar);
	free(idx);
	return rc;
}

/* Keep the checkpoint's shards that verify, in order, up to the first
 * that does not (it and those after are written again). */
static int wds_keep_shards(struct bale_writer *w, struct wds_w *st,
    uint64_t nshards, struct bale_resume *rs)
{
	struct bale_wds_shard v;
	struct bale_errbuf err;

	while (st->shard_no < nshards) {
		if (wds_verify_no(st, st->shard_no, &v, &err) != BALE_OK) {
			snprintf(rs->note, sizeof(rs->note), "%.200s; writing "
			    "shards again from %06u", err.msg, st->shard_no);
			break;
		}
		st->shard_samples = v.samples;
		bale_wds_list_entry(st, v.filesize);
		st->samples += v.samples;
		st->last_index = v.last_index;
		st->shard_no++;
	}
	return st->list.failed ? bale_writer_seterr(w, BALE_ENOMEM,
	    "no memory") : BALE_OK;
}

int bale_wds_resume(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs)
{
	struct wds_w *st = priv;
	const char *v;
	const char *vend;
	uint64_t nshards = 0;
	int rc = bale_wds_init(w, st, dir, ds);

	if (rc != BALE_OK)
		return rc;
	if (st->remote)
		return bale_wds_remote_resume(w, st, rs->state, rs);
	v = rs->state ? bale_jsonr_find(rs->state, rs->state +
	    strlen(rs->state), "shards", &vend) : NULL;
	if (v && bale_jsonr_u64(v, vend, &nshards) != 0)
		nshards = 0;
	rc = wds_keep_shards(w, st, nshards, rs);
	/* the open shard's checkpoint, when every shard before it stays */
	if (rc == BALE_OK && st->shard_no == nshards)
		rc = bale_wds_partial_resume(w, st, rs->state, rs);
	rs->next = st->shard_no || st->shard_open ? st->last_index + 1 : 0;
	return rc;
}
