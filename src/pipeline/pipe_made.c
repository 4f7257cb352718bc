/* pipe_made.c - how a finished run's outputs were made, beside them as
 * OUT/NAME-made.json: the settings that decide their samples and bytes
 * (formats, order and seed, encode settings, format options, the kind of
 * source), which bale info shows. No time, host or path is in it, so
 * the same run gives the same file, as it gives the same outputs. */
#include "pipeline.h"

#include "bale_store.h"

#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void made_json(const struct bale_pack_opts *o, const char *kind,
    struct bale_buf *b)
{
	bale_buf_puts(b, "{");
	bale_json_kv_str(b, "bale_version", bale_version(), 1);
	bale_json_kv_str(b, "formats", o->formats, 0);
	bale_json_kv_str(b, "source_kind", kind, 0);
	bale_json_kv_u64(b, "shuffle", (uint64_t)!!o->shuffle, 0);
	bale_json_kv_u64(b, "seed", o->seed, 0);
	bale_json_kv_u64(b, "validate", (uint64_t)!!o->validate, 0);
	bale_json_kv_str(b, "archive_root", o->archive_root, 0);
	bale_json_kv_str(b, "image_column", o->image_column, 0);
	bale_json_kv_str(b, "label_column", o->label_column, 0);
	bale_report_options(b, "options", o->options);
	bale_report_encode(b, o->encode);
	bale_buf_puts(b, "}\n");
}

int bale_pipe_made(struct bale_pipeline *p, const struct bale_pack_opts *o,
    const struct pipe_run *run)
{
	struct bale_buf b = BALE_BUF_INIT;
	char *path = bale_strfmt("%s/%s-made.json", o->out,
	    o->name ? o->name : "data");
	struct bale_errbuf err;
	char why[300];
	int rc = BALE_OK;

	made_json(o, run->in.source.kind ? run->in.source.kind->name : NULL,
	    &b);
	if (!path || b.failed) {
		rc = bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	} else if (bale_store_put(path, b.data, b.len, &err) != BALE_OK) {
		/* the outputs are published and whole: said, not failed */
		snprintf(why, sizeof(why), "cannot record how the output was "
		    "made: %.250s", err.msg);
		if (bale_report_add(p->report, BALE_NOTE_WARNING, o->out,
		    why) != 0)
			rc = bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	}
	free(path);
	bale_buf_release(&b);
	return rc;
}
