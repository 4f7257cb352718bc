/* pipe_update.h - what bale pack --update keeps while it runs
 * (pipe_update.c), and the manifest it writes at the end
 * (pipe_update_manifest.c). */
#ifndef BALE_PIPE_UPDATE_H
#define BALE_PIPE_UPDATE_H

#include "pipeline.h"

#include "bits.h"
#include "manifest.h"
#include "update_diff.h"

struct pipe_update {
	const struct bale_pack_opts *user;	/* the options given */
	struct bale_pack_opts delta_opts;	/* an update's: into delta */
	struct bale_manifest old;	/* the output's head and skips */
	int incremental;	/* it has one: pack only what changed */
	char *manifest;		/* OUT/NAME-manifest.jsonl, or its copy in
				 * @stage */
	char *manifest_at;	/* OUT/NAME-manifest.jsonl */
	char *stage;		/* an output in an object store: the local
				 * folder the manifest and delta are made
				 * in (NULL: OUT) */
	char *delta;		/* OUT/.NAME-update (in @stage) */
	char *settings;		/* what changes stored bytes, this run's */
	struct bale_update_diff diff;
	bale_order_t *order;	/* incremental: positions -> walk items */
	size_t *pack_at;	/* positions -> the diff's pack indices */
	unsigned char *packed;	/* per pack index: 1 once it was written */
	struct bale_bits written;	/* positions put (run->plan.written) */
	int prepared;		/* the report and the manifest are made */
	int no_version;		/* all it tried was skipped again */
	int manifest_written;	/* NAME-manifest.jsonl.partial is there */
};

/** Write the manifest of what the output now holds. @return BALE_OK, or
 *  an error with p->err set */
int bale_pipe_update_manifest(struct bale_pipeline *p, struct pipe_run *run,
    struct pipe_update *u);

#endif
