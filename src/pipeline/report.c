/* report.c - collect per-input outcomes and render the JSON report. */
#include "report.h"

#include "bale_store.h"

#include "bale_config.h"
#include "registry.h"
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <jconfig.h>	/* libjpeg-turbo's version, as built against */
#include <libdeflate.h>
#include <spng.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define REPORT_KINDS 3

struct report_list {
	size_t *off;		/* pairs: path, reason offsets in the arena */
	size_t n;
	size_t cap;
};

struct bale_report {
	struct bale_buf arena;
	struct report_list list[REPORT_KINDS];
};

static const char *const report_list_names[REPORT_KINDS] = {
	"ignored_files", "skipped_files", "warnings",
};

int bale_report_new(struct bale_report **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? BALE_OK : BALE_ENOMEM;
}

static size_t report_intern(struct bale_report *r, const char *s)
{
	size_t off = r->arena.len;

	bale_buf_add(&r->arena, s, strlen(s) + 1);
	return off;
}

int bale_report_add(struct bale_report *r, enum bale_walk_note_kind kind,
    const char *path, const char *reason)
{
	struct report_list *l = &r->list[kind];
	size_t ncap = l->cap ? l->cap * 2 : 64;
	size_t *p;

	if (l->n == l->cap) {
		p = realloc(l->off, ncap * 2 * sizeof(size_t));
		if (!p)
			return BALE_ENOMEM;
		l->off = p;
		l->cap = ncap;
	}
	l->off[2 * l->n] = report_intern(r, path);
	l->off[2 * l->n + 1] = report_intern(r, reason);
	if (r->arena.failed)
		return BALE_ENOMEM;
	l->n++;
	return BALE_OK;
}

size_t bale_report_count(const struct bale_report *r,
    enum bale_walk_note_kind kind)
{
	return r->list[kind].n;
}

void bale_report_get(const struct bale_report *r,
    enum bale_walk_note_kind kind, size_t i, const char **path,
    const char **reason)
{
	*path = r->arena.data + r->list[kind].off[2 * i];
	*reason = r->arena.data + r->list[kind].off[2 * i + 1];
}

/* The encode settings as given (null: bytes stored as read), so a
 * pipeline can tell how a dataset was made. */
void bale_report_encode(struct bale_buf *b, const struct bale_encode_opts *e)
{
	bale_json_key(b, "encode", 0);
	if (!e) {
		bale_buf_puts(b, "null");
		return;
	}
	bale_buf_puts(b, "{");
	bale_json_kv_str(b, "resize", e->resize, 1);
	bale_json_kv_str(b, "frame", e->frame, 0);
	bale_json_kv_u64(b, "upscale", (uint64_t)!!e->upscale, 0);
	bale_json_kv_str(b, "pixels", e->pixels, 0);
	bale_json_kv_u64(b, "quality", (uint64_t)(e->quality ? e->quality :
	    90), 0);
	bale_json_kv_u64(b, "subsampling", (uint64_t)(e->subsampling ?
	    e->subsampling : 420), 0);
	bale_json_kv_str(b, "color", e->color ? e->color : "rgb", 0);
	bale_json_kv_str(b, "alpha", e->alpha ? e->alpha : "composite", 0);
	bale_json_kv_str(b, "background", e->background ? e->background :
	    "ffffff", 0);
	bale_json_kv_u64(b, "keep_unchanged", (uint64_t)!!e->keep_unchanged,
	    0);
	bale_json_kv_u64(b, "max_pixels", e->max_pixels ? e->max_pixels :
	    BALE_MAX_PIXELS_DEFAULT, 0);
	bale_buf_puts(b, "}");
}

void bale_report_options(struct bale_buf *b, const char *key,
    const char *const *options)
{
	size_t n = 0;

	while (options && options[n])
		n++;
	bale_json_key(b, key, 0);
	bale_json_str_array(b, options, n);
}

static void report_options(struct bale_buf *b,
    const struct bale_report_run *run)
{
	const struct bale_pack_opts *o = run->opts;

	bale_json_key(b, "options", 0);
	bale_buf_puts(b, "{");
	bale_json_kv_str(b, "formats", o->formats, 1);
	bale_json_kv_str(b, "name", o->name ? o->name : "data", 0);
	bale_json_kv_u64(b, "threads", run->threads, 0);
	bale_json_kv_u64(b, "cpus", run->cpus, 0);
	bale_json_kv_str(b, "cpus_limited_by", run->cpus_why, 0);
	bale_json_kv_u64(b, "window_bytes", o->window_bytes ?
	    o->window_bytes : BALE_WINDOW_DEFAULT, 0);
	bale_json_kv_u64(b, "shuffle", (uint64_t)!!o->shuffle, 0);
	bale_json_kv_u64(b, "seed", o->seed, 0);
	bale_json_kv_u64(b, "strict", (uint64_t)!!o->strict, 0);
	bale_report_options(b, "backend_options", o->options);
	bale_report_encode(b, o->encode);
	bale_buf_puts(b, "}");
}

/* inputs_found counts every image input met: the samples listed and
 * those skipped while listing, so a finished run's packed + skipped
 * equals it (a resumed one's: with the resumed_kept). */
static void report_stats(struct bale_buf *b, const struct bale_report_run *run)
{
	const struct bale_pack_stats *s = run->stats;
	double secs = s->seconds > 0 ? s->seconds : 1e-9;

	bale_json_kv_u64(b, "inputs_found", s->found + run->walk_skipped, 0);
	bale_json_kv_u64(b, "samples_listed", s->found, 0);
	bale_json_kv_u64(b, "packed", s->packed, 0);
	bale_json_kv_u64(b, "reencoded", s->reencoded, 0);
	bale_json_kv_u64(b, "skipped", s->skipped, 0);
	bale_json_kv_u64(b, "ignored", s->ignored, 0);
	bale_json_kv_u64(b, "bytes", s->bytes, 0);
	bale_json_kv_u64(b, "resumed_at", s->resumed_at, 0);
	bale_json_kv_u64(b, "resumed_kept", s->resumed_kept, 0);
	bale_buf_printf(b, ",\"seconds\":%.6f", s->seconds);
	bale_buf_printf(b, ",\"samples_per_second\":%.1f",
	    (double)s->packed / secs);
	bale_buf_printf(b, ",\"mb_per_second\":%.1f",
	    (double)s->bytes / 1e6 / secs);
}

/* Where the time went before the samples flowed, how often a
 * compressed archive was read (its listing pass not counted), and what
 * the process asked of object stores (every try, the uploads too). */
static void report_timing(struct bale_buf *b,
    const struct bale_report_run *run)
{
	uint64_t requests, received, wait_ns;

	bale_store_counts(&requests, &received, &wait_ns);
	bale_buf_printf(b, ",\"walk_seconds\":%.6f", run->walk_seconds);
	bale_json_kv_u64(b, "http_requests", requests, 0);
	bale_json_kv_u64(b, "http_bytes_received", received, 0);
	bale_buf_printf(b, ",\"stream_passes\":%u",
	    run->stream ? run->stream->passes : 0);
	bale_buf_printf(b, ",\"stream_seconds\":%.6f",
	    run->stream ? run->stream->seconds : 0.0);
	bale_buf_printf(b, ",\"stream_peak_bytes\":%llu",
	    run->stream ? (unsigned long long)run->stream->peak_bytes : 0ull);
}

/* "sources": every source of the run, the first one ("source") too. */
static void report_sources(struct bale_buf *b, const struct bale_pack_opts *o)
{
	size_t i;

	bale_json_key(b, "sources", 0);
	bale_buf_puts(b, "[");
	if (o->src)	/* a refused run may have none */
		bale_json_str(b, o->src);
	for (i = 0; o->src && o->more_srcs && o->more_srcs[i]; i++) {
		bale_buf_puts(b, ",");
		bale_json_str(b, o->more_srcs[i]);
	}
	bale_buf_puts(b, "]");
}

static void report_lists(struct bale_buf *b, const struct bale_report *r)
{
	const char *path;
	const char *reason;
	size_t k;
	size_t i;

	for (k = 0; k < REPORT_KINDS; k++) {
		bale_json_key(b, report_list_names[k], 0);
		bale_buf_puts(b, "[");
		for (i = 0; i < r->list[k].n; i++) {
			bale_report_get(r, (enum bale_walk_note_kind)k, i,
			    &path, &reason);
			bale_buf_puts(b, i ? ",\n{" : "\n{");
			bale_json_kv_str(b, "path", path, 1);
			bale_json_kv_str(b, "reason", reason, 0);
			bale_buf_puts(b, "}");
		}
		bale_buf_puts(b, "]");
	}
}

/* The version of each format library built in, as its backend says. */
static void report_backend_libraries(struct bale_buf *b)
{
	const struct bale_backend *be;
	size_t i;

	for (i = 0; (be = bale_registry_at(i)); i++)
		if (be->library && be->library_version)
			bale_json_kv_str(b, be->library, be->library_version(),
			    0);
}

void bale_report_json(const struct bale_report *r,
    const struct bale_report_run *run, struct bale_buf *b)
{
	bale_buf_puts(b, "{");
	bale_json_kv_str(b, "bale_version", BALE_VERSION, 1);
	bale_json_key(b, "libraries", 0);
	bale_buf_puts(b, "{");
	bale_json_kv_str(b, "zlib", zlibVersion(), 1);
	bale_json_kv_str(b, "libdeflate", LIBDEFLATE_VERSION_STRING, 0);
	bale_json_kv_str(b, "libspng", spng_version_string(), 0);
	bale_buf_printf(b, ",\"libjpeg-turbo\":\"%d.%d.%d\"",
	    LIBJPEG_TURBO_VERSION_NUMBER / 1000000,
	    LIBJPEG_TURBO_VERSION_NUMBER / 1000 % 1000,
	    LIBJPEG_TURBO_VERSION_NUMBER % 1000);
	report_backend_libraries(b);
	bale_buf_puts(b, "}");
	bale_json_kv_str(b, "status", run->status, 0);
	bale_json_kv_str(b, "error", run->error, 0);
	bale_json_kv_str(b, "source", run->opts->src, 0);
	report_sources(b, run->opts);
	bale_json_kv_str(b, "source_kind", run->source_kind, 0);
	bale_json_kv_str(b, "list", run->opts->list, 0);
	bale_json_kv_str(b, "output", run->opts->out, 0);
	report_options(b, run);
	report_stats(b, run);
	report_timing(b, run);
	if (run->update) {
		bale_json_key(b, "update", 0);
		bale_buf_puts(b, run->update);
	}
	report_lists(b, r);
	bale_buf_puts(b, "}\n");
}

void bale_report_free(struct bale_report *r)
{
	size_t k;

	if (!r)
		return;
	for (k = 0; k < REPORT_KINDS; k++)
		free(r->list[k].off);
	bale_buf_release(&r->arena);
	free(r);
}
