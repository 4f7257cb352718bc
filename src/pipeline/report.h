/* report.h - what a run did, skipped and ignored, as JSON for pipelines. */
#ifndef BALE_REPORT_H
#define BALE_REPORT_H

#include "bale.h"
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "stream_feed.h"
#include "walk.h"

#include <stddef.h>

struct bale_report;

/** What the report says about the run besides its lists. */
struct bale_report_run {
	const struct bale_pack_opts *opts;
	const struct bale_pack_stats *stats;
	const char *status;		/* "complete" or "failed" */
	const char *error;		/* message when failed, else NULL */
	unsigned threads;
	unsigned cpus;			/* the CPUs thread defaults follow */
	const char *cpus_why;		/* what limited them (cpus.h) */
	const char *source_kind;	/* its name (source.h), or NULL */
	double walk_seconds;		/* from the start to the list made */
	uint64_t walk_skipped;		/* inputs skipped while listing */
	const struct bale_stream_feed_stats *stream;	/* passes over a
					 * compressed archive (0: none) */
	const char *update;		/* --update: a JSON object, or NULL */
};

int bale_report_new(struct bale_report **out);

/** Remember one input that was skipped or ignored, or a warning. */
int bale_report_add(struct bale_report *r, enum bale_walk_note_kind kind,
    const char *path, const char *reason);

size_t bale_report_count(const struct bale_report *r,
    enum bale_walk_note_kind kind);
void bale_report_get(const struct bale_report *r,
    enum bale_walk_note_kind kind, size_t i, const char **path,
    const char **reason);

/** ,"encode":{...} - the encode settings as given (null: none). */
void bale_report_encode(struct bale_buf *b, const struct bale_encode_opts *e);
/** ,"@key":[...] of the NULL-terminated format @options (NULL: none). */
void bale_report_options(struct bale_buf *b, const char *key,
    const char *const *options);

/** Render the report as one JSON document into @out. */
void bale_report_json(const struct bale_report *r,
    const struct bale_report_run *run, struct bale_buf *out);

void bale_report_free(struct bale_report *r);

#endif
