/* pipe_part.c - a part of a run (bale pack --part I/N): the completion
 * marker NAME-part.json it leaves once every format is published, and
 * the check that lets a relaunched array skip a part already done.
 *
 *   {"bale_part":1,"run":"<fingerprint of the whole run>","part":I,
 *    "parts":N,"first":KEY,"count":C,"total":T,"formats":"...",
 *    "name":"..."}
 *
 * "run" is the same in every part of one run (the sources' paths and
 * labels in the final order, formats, options, encode settings), so a
 * merge can tell parts of one run from a stranger. */
#include "pipeline.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "bale_store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *pipe_part_path(const struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;

	return bale_strfmt("%s/%s-part.json", o->out, o->name ? o->name :
	    "data");
}

static void pipe_part_json(const struct pipe_run *run, struct bale_buf *b)
{
	const struct bale_pack_opts *o = run->opts;

	bale_buf_puts(b, "{");
	bale_json_kv_u64(b, "bale_part", 1, 1);
	bale_json_kv_str(b, "run", run->plan.run_fp, 0);
	bale_json_kv_u64(b, "part", o->part_index, 0);
	bale_json_kv_u64(b, "parts", o->part_count, 0);
	bale_json_kv_u64(b, "first", run->plan.key_base, 0);
	bale_json_kv_u64(b, "count", run->plan.count, 0);
	bale_json_kv_u64(b, "total", bale_walk_count(run->in.walk), 0);
	bale_json_kv_str(b, "formats", o->formats, 0);
	bale_json_kv_str(b, "name", o->name ? o->name : "data", 0);
	bale_buf_puts(b, "}\n");
}

int bale_pipe_part_done(struct pipe_run *run)
{
	struct bale_buf want = BALE_BUF_INIT;
	struct bale_errbuf err;
	char *path;
	char *have = NULL;
	size_t len = 0;
	int done;

	if (!run->opts->part_count)
		return 0;
	path = pipe_part_path(run);
	pipe_part_json(run, &want);
	if (path && !want.failed &&
	    bale_store_read_all(path, &have, &len, &err) != BALE_OK)
		have = NULL;	/* not there (or unreadable): not done */
	done = have && len == want.len && memcmp(have, want.data, len) == 0;
	free(have);
	free(path);
	bale_buf_release(&want);
	return done;
}

int bale_pipe_part_unmark(struct bale_pipeline *p, struct pipe_run *run)
{
	char *path;
	int rc;

	if (!run->opts->part_count)
		return BALE_OK;
	path = pipe_part_path(run);
	rc = path ? bale_store_remove(path, &p->err) :
	    bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	free(path);
	return rc;
}

int bale_pipe_part_mark(struct bale_pipeline *p, struct pipe_run *run)
{
	struct bale_buf b = BALE_BUF_INIT;
	char *path;
	int rc = BALE_OK;

	if (!run->opts->part_count)
		return BALE_OK;
	path = pipe_part_path(run);
	pipe_part_json(run, &b);
	if (!path || b.failed)
		rc = bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	else
		rc = bale_store_put(path, b.data, b.len, &p->err);
	free(path);
	bale_buf_release(&b);
	return rc;
}
