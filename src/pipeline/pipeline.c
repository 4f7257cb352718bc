/* pipeline.c - walk a source, read samples in parallel, write them in order.
 *
 * Everything downstream of the walk is a function of its sorted (or seeded
 * shuffled) list, so the output is the same whatever the thread count:
 * workers may finish in any order, the reorder window restores it.
 * (pipeline.h says which file does what.)
 */
#include "pipeline.h"

#include "bale_store.h"

#include "cpus.h"
#include "relpath.h"
#include "resume.h"
#include "shard_set.h"
#include "shuffle.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int bale_pipeline_new(struct bale_pipeline **out)
{
	struct bale_pipeline *p = calloc(1, sizeof(*p));

	if (!p)
		return BALE_ENOMEM;
	*out = p;
	return BALE_OK;
}

/* The samples of the source, as its kind collects them. */
static int pipe_walk_source(struct pipe_run *run)
{
	return run->in.source.kind->scan(&run->in.source, run->in.walk);
}

/* An archive that breaks off part-way loses what follows the damage,
 * how much unknown (whole classes, in a tar of class folders): that
 * fails the run unless allowed, and is then a warning. */
static int pipe_check_damage(struct bale_pipeline *p, struct pipe_run *run)
{
	const char *path, *why;
	size_t n = bale_walk_damaged(run->in.walk, &path, &why);
	char text[sizeof(p->err.msg)];

	if (!n)
		return BALE_OK;
	if (!run->opts->allow_damaged) {
		bale_errbuf_set(&p->err, BALE_EINPUT, "source '%s': %s: the "
		    "dataset would miss whatever follows the damage", path,
		    why);
		p->err.remedy = BALE_REMEDY_ALLOW_DAMAGED;
		return BALE_EINPUT;
	}
	snprintf(text, sizeof(text), "%zu damaged archive%s: the dataset "
	    "holds only what comes before the damage (%s: %s); whatever "
	    "follows it is lost, how much is unknown", n, n > 1 ? "s" : "",
	    path, why);
	return bale_report_add(p->report, BALE_NOTE_WARNING, path, text) ?
	    bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory") : BALE_OK;
}

static int pipe_walk(struct bale_pipeline *p, struct pipe_run *run)
{
	enum bale_walk_note_kind kind;
	const char *path;
	const char *why;
	size_t i;
	int rc;

	rc = bale_walk_new(&run->in.walk);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "no memory");
	bale_walk_set_stop(run->in.walk, &p->stop);
	if (run->opts->archive_root)
		rc = bale_walk_set_archive_root(run->in.walk,
		    run->opts->archive_root);
	if (rc == BALE_OK && (run->opts->image_column ||
	    run->opts->label_column))
		rc = bale_walk_set_columns(run->in.walk,
		    run->opts->image_column, run->opts->label_column);
	if (rc == BALE_OK && run->in.known_files)
		rc = bale_walk_set_known_files(run->in.walk,
		    run->in.known_files, run->in.nknown_files);
	if (rc == BALE_OK)
		rc = pipe_walk_source(run);
	p->walk_seconds = pipe_since(&run->t0);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "%s",
		    bale_walk_errmsg(run->in.walk));
	if (run->opts->archive_root &&
	    !bale_walk_archive_root_used(run->in.walk)) {
		bale_errbuf_set(&p->err, BALE_EINVAL, "an archive root names "
		    "a folder inside an archive of class folders; the source "
		    "is %s", run->in.source.kind->what);
		p->err.remedy = BALE_REMEDY_CHANGE_OPTIONS;
		return BALE_EINVAL;
	}
	/* what the walk skipped is the whole run's: part 0 reports it, so
	 * the parts' reports add up */
	for (i = 0; run->opts->part_index == 0 &&
	    i < bale_walk_nnotes(run->in.walk); i++) {
		bale_walk_note(run->in.walk, i, &kind, &path, &why);
		if (bale_report_add(p->report, kind, path, why) != 0)
			return bale_errbuf_set(&p->err, BALE_ENOMEM,
			    "no memory");
		p->stats.ignored += kind == BALE_NOTE_IGNORED;
		p->stats.skipped += kind == BALE_NOTE_SKIPPED;
		p->walk_skipped += kind == BALE_NOTE_SKIPPED;
	}
	return pipe_check_damage(p, run);
}

static int pipe_open(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;
	struct bale_dataset ds;
	int rc;

	rc = bale_pipe_stage_begin(p, run);
	if (rc != BALE_OK)
		return rc;
	if (bale_store_is_local(run->out.dir) &&
	    bale_file_mkdirs(run->out.dir) != 0)
		return bale_errbuf_set(&p->err, BALE_EIO,
		    "cannot create output folder '%s': %s", run->out.dir,
		    strerror(errno));
	memset(&ds, 0, sizeof(ds));
	ds.name = o->name ? o->name : "data";
	ds.classes = run->lab.classes ? run->lab.classes :
	    bale_walk_classes(run->in.walk);
	ds.nclasses = run->lab.classes ? run->lab.nclasses :
	    bale_walk_nclasses(run->in.walk);
	ds.nitems = run->plan.count;
	ds.replace = o->replace && !run->out.stage;
	if (run->encode) {
		ds.pixels_w = run->encode->pixels_w;
		ds.pixels_h = run->encode->pixels_h;
	}
	rc = bale_pipe_open_writers(p, run, &ds);
	if (rc != BALE_OK)
		return rc;
	if (!bale_source_can(&run->in.source, BALE_SOURCE_TREE))
		return BALE_OK;	/* the walk holds its files open */
	run->in.rootfd = open(o->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (run->in.rootfd < 0)
		return bale_errbuf_set(&p->err, BALE_EIO,
		    "cannot open '%s': %s", o->src, strerror(errno));
	return BALE_OK;
}

static void pipe_release(struct pipe_run *run)
{
	size_t i;

	for (i = 0; i < run->out.nwriters; i++)
		bale_writer_free(run->out.writers[i]);
	if (run->in.rootfd >= 0)
		close(run->in.rootfd);
	bale_journal_release(&run->jr.j);
	free(run->jr.path);
	free(run->plan.order_all);
	bale_walk_free(run->in.walk);
	free(run->in.known_files);
	bale_source_release(&run->in.source);
	free(run->in.srcs);
	bale_pipe_tune_release(&run->wk.tune);
}

/* A relaunched part found done: nothing to pack, said in a warning. */
static int pipe_part_skip(struct bale_pipeline *p, struct pipe_run *run)
{
	char why[160];

	snprintf(why, sizeof(why), "part %" PRIu32 "/%" PRIu32 " of this "
	    "run is already complete (its marker is there): nothing to do",
	    run->opts->part_index, run->opts->part_count);
	run->plan.skip = 1;
	p->stats.resumed_at = run->plan.count;
	if (bale_report_add(p->report, BALE_NOTE_WARNING, run->opts->out,
	    why) != 0)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	return BALE_OK;
}

/* What the source is (source.h): the kind the SRC arguments, @src and
 * then more_srcs, are. */
static int pipe_classify_source(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;
	size_t n = 1;

	while (o->more_srcs && o->more_srcs[n - 1])
		n++;
	run->in.srcs = malloc(n * sizeof(*run->in.srcs));
	if (!run->in.srcs)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	run->in.srcs[0] = o->src;
	if (n > 1)	/* more_srcs may be NULL: no memcpy from it then */
		memcpy(run->in.srcs + 1, o->more_srcs,
		    (n - 1) * sizeof(*run->in.srcs));
	return bale_source_classify(&run->in.source, run->in.srcs, n, o->list,
	    &p->err);
}

/* A source in a store other than the local one: its store says whether
 * it is there, and why not. */
static int pipe_check_remote_src(struct bale_pipeline *p, const char *path)
{
	struct bale_store_stat st = { 0, 0, "" };
	int rc = bale_store_stat(path, &st, &p->err);

	if (rc == BALE_ENOENT)
		p->err.remedy = BALE_REMEDY_CHANGE_OPTIONS;
	return rc;
}

/* Does the last part of @path hold a wildcard or a brace pattern? */
static int pipe_names_pattern(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strpbrk(slash ? slash + 1 : path, "*?[{") != NULL;
}

/* Does wildcard pattern @path ('train-*.parquet') match a file? */
static int pipe_pattern_matches(const char *path)
{
	glob_t g;
	int found;

	if (!strpbrk(path, "*?["))
		return 0;
	found = glob(path, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	return found;
}

/* Every source path named is there: a missing one is a mistyped
 * argument, told before anything else (a brace pattern names shards:
 * its kind checks them; a wildcard pattern must match a file). */
static int pipe_check_srcs(struct bale_pipeline *p,
    const struct bale_pack_opts *o)
{
	const char *path = o->src;
	struct stat sb;
	size_t i;

	for (i = 0; path; path = o->more_srcs ? o->more_srcs[i++] : NULL) {
		if (!bale_store_is_local(path)) {	/* a pattern: listed */
			if (!pipe_names_pattern(path) &&
			    pipe_check_remote_src(p, path) != BALE_OK)
				return p->err.rc;
			continue;
		}
		if (strchr(path, '{') || stat(path, &sb) == 0 ||
		    pipe_pattern_matches(path))
			continue;
		bale_errbuf_set(&p->err, errno == ENOENT ? BALE_ENOENT :
		    BALE_EIO, "source '%s': %s", path, strerror(errno));
		if (errno == ENOENT)
			p->err.remedy = BALE_REMEDY_CHANGE_OPTIONS;
		return p->err.rc;
	}
	return BALE_OK;
}

/* An output in an object store: the upload's bounds taken. */
static int pipe_check_remote_out(struct bale_pipeline *p,
    const struct bale_pack_opts *o)
{
	if (bale_store_set_uploads(o->upload_part, o->uploads) != BALE_OK) {
		p->err.remedy = BALE_REMEDY_CHANGE_OPTIONS;
		return bale_errbuf_set(&p->err, BALE_EINVAL, "an upload's "
		    "part of %zu bytes: S3 takes 5 MiB to 5 GiB",
		    o->upload_part);
	}
	return BALE_OK;
}

/* The output folder: one its store lets the run write in. */
static int pipe_check_out(struct bale_pipeline *p,
    const struct bale_pack_opts *o)
{
	int rc = bale_store_is_local(o->out) ? BALE_OK :
	    pipe_check_remote_out(p, o);

	return rc == BALE_OK ? bale_store_writable(o->out, &p->err) : rc;
}

static int pipe_check_opts(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;
	int rc;

	if (!o->src || !o->out || !o->formats)
		return bale_errbuf_set(&p->err, BALE_EINVAL,
		    "source, output and format are required");
	if (o->name && (!*o->name || strchr(o->name, '/')))
		return bale_errbuf_set(&p->err, BALE_EINVAL,
		    "name '%s' must be a plain file name", o->name);
	if (o->part_count && o->part_index >= o->part_count)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "part %" PRIu32
		    " of %" PRIu32 ": a part's index counts from 0, below the "
		    "count", o->part_index, o->part_count);
	rc = pipe_check_out(p, o);
	if (rc != BALE_OK)
		return rc;
	rc = pipe_check_srcs(p, o);
	if (rc == BALE_OK)
		rc = pipe_classify_source(p, run);
	if (rc != BALE_OK)
		return rc;
	/* the next walk of the tree would take the output for a class */
	if (bale_source_can(&run->in.source, BALE_SOURCE_TREE) && !o->list &&
	    bale_path_inside(o->out, o->src))
		return bale_errbuf_set(&p->err, BALE_EINVAL, "the output "
		    "folder '%s' is the source folder '%s' or inside it: a "
		    "later walk of the source would take the outputs for a "
		    "class of images", o->out, o->src);
	if (o->list && !bale_source_can(&run->in.source, BALE_SOURCE_LISTABLE))
		return bale_errbuf_set(&p->err, BALE_EINVAL, "a list file "
		    "cannot select from %s", run->in.source.kind->what);
	if (o->list && o->archive_root)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "a list file "
		    "names its samples itself: the archive root applies to "
		    "archives of class folders walked without one");
	if ((o->image_column || o->label_column) &&
	    !bale_source_can(&run->in.source, BALE_SOURCE_COLUMNS))
		return bale_errbuf_set(&p->err, BALE_EINVAL, "an image or "
		    "label column names a column of Parquet files; the source "
		    "is %s", run->in.source.kind->what);
	if (!o->encode)
		return BALE_OK;
	if (bale_encode_cfg_parse(&run->encode_cfg, o->encode, &p->err) != 0)
		return p->err.rc;
	run->encode = &run->encode_cfg;
	return BALE_OK;
}

/* A run refused before anything was written, for its options: say that
 * changing them is the remedy (bale pack exits 2 for it). */
static void pipe_usage_remedy(struct bale_pipeline *p, int rc)
{
	if ((rc == BALE_EINVAL || rc == BALE_ENOOPT || rc == BALE_ENOTSUP) &&
	    p->err.remedy == BALE_REMEDY_NONE)
		p->err.remedy = BALE_REMEDY_CHANGE_OPTIONS;
}

static void pipe_reset(struct bale_pipeline *p)
{
	bale_report_free(p->report);
	p->report = NULL;
	memset(&p->stats, 0, sizeof(p->stats));
	memset(&p->stream, 0, sizeof(p->stream));
	p->walk_seconds = 0;
	p->walk_skipped = 0;
	bale_buf_reset(&p->update);
	bale_errbuf_clear(&p->err);
}

static unsigned pipe_clamp(long n)
{
	if (n < 1)
		n = 1;
	return n > PIPE_MAX_THREADS ? PIPE_MAX_THREADS : (unsigned)n;
}

/* Reader threads: as asked; else one per CPU to start with, up to four
 * per CPU while reads wait on the disk (pipe_tune.h). */
static void pipe_threads(struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;
	unsigned cpus = pipe_clamp(bale_cpus_usable(&run->wk.cpus_why));
	unsigned min = o->threads ? pipe_clamp(o->threads) : cpus;
	unsigned max = o->threads ? min : pipe_clamp(PIPE_READERS_PER_CPU *
	    (long)cpus);

	run->wk.threads = max;
	run->wk.cpus = cpus;
	bale_pipe_tune_init(&run->wk.tune, min, max, cpus);
}

/* --validate kept images it could not decode: said, with how many. */
static int pipe_note_unchecked(struct bale_pipeline *p,
    const struct pipe_run *run)
{
	unsigned long long n = atomic_load(&run->unchecked);
	char why[200];

	if (!n)
		return BALE_OK;
	snprintf(why, sizeof(why), "%llu image%s not checked: in a format "
	    "bale does not decode (GIF, BMP, TIFF, WebP, PNM) or too large "
	    "to decode here; packed as they are", n, n > 1 ? "s" : "");
	return bale_report_add(p->report, BALE_NOTE_WARNING, run->opts->src,
	    why) ? bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory") :
	    BALE_OK;
}

/* Every sample handed over: the run needs neither the samples nor their
 * order any more (its planner has noted what they were first), and
 * frees them before the writers finish, when one may need memory of its
 * own (LMDB writes its key list whole). */
static int pipe_drop_samples(struct bale_pipeline *p, struct pipe_run *run)
{
	int rc = run->planner->packed ? run->planner->packed(p, run) :
	    BALE_OK;

	bale_pipe_drop_samples(run);
	return rc;
}

/* Open the writers, hand them every sample, finish them; a plan of
 * removals alone packs nothing. */
static int pipe_pack(struct bale_pipeline *p, struct pipe_run *run)
{
	int rc;

	if (run->plan.pack_nothing)
		return BALE_OK;
	rc = pipe_open(p, run);
	if (rc == BALE_OK && bale_pipe_stopped(p))
		rc = bale_pipe_stop_error(p, run, run->plan.first);
	if (rc == BALE_OK)
		rc = bale_pipe_transfer(p, run);
	if (rc == BALE_OK)
		rc = pipe_drop_samples(p, run);
	if (rc == BALE_OK)
		rc = pipe_note_unchecked(p, run);
	if (rc == BALE_OK)
		rc = bale_pipe_finish(p, run);
	return rc;
}

/* A run that failed writing, with its output's filesystem full: said
 * with what was written, so that the remedy is to free space first
 * (running again alone would fail the same way). @return 1 when full */
static int pipe_disk_full(struct bale_pipeline *p, const struct pipe_run *run,
    int rc)
{
	struct statvfs fs;
	double free_mb;
	size_t n;

	if ((rc != BALE_EBACKEND && rc != BALE_EIO) || !run->out.dir ||
	    statvfs(run->out.dir, &fs) != 0)
		return 0;
	free_mb = (double)fs.f_bavail * (double)fs.f_frsize / 1e6;
	if (free_mb >= PIPE_FULL_MB)
		return 0;
	n = strlen(p->err.msg);
	snprintf(p->err.msg + n, sizeof(p->err.msg) - n, " (the filesystem "
	    "of '%s' is full: %.1f MB free, after this run wrote %.1f MB of "
	    "samples)", run->out.dir, free_mb, (double)p->stats.bytes / 1e6);
	return 1;
}

/* The run's planner: --update's, else the whole source's. */
static int pipe_plan_start(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct pipe_planner *planner = run->opts->update ?
	    &bale_pipe_update : &bale_pipe_whole;

	run->planner = planner;
	return planner->start ? planner->start(p, run) : BALE_OK;
}

/* A folder in an object store named with its '/' ("s3://b/out/"):
 * the same folder as without, whose files are joined with one. NULL:
 * @out is fine as it is (or no memory, which the run meets later). */
static char *pipe_trim_out(const char *out)
{
	size_t len = out ? strlen(out) : 0;

	if (!len || out[len - 1] != '/' || bale_store_is_local(out))
		return NULL;
	return bale_strfmt("%.*s", bale_path_trim_len(out), out);
}

static int pipe_run_opts(struct bale_pipeline *p,
    const struct bale_pack_opts *o);

int bale_pipeline_run(struct bale_pipeline *p, const struct bale_pack_opts *o)
{
	struct bale_pack_opts trimmed;
	char *out = pipe_trim_out(o->out);
	int rc;

	if (!out)
		return pipe_run_opts(p, o);
	trimmed = *o;
	trimmed.out = out;
	rc = pipe_run_opts(p, &trimmed);
	free(out);
	return rc;
}

static int pipe_run_opts(struct bale_pipeline *p,
    const struct bale_pack_opts *o)
{
	struct pipe_run run;
	int full, kept, resumes;
	int rc;

	pipe_reset(p);
	bale_store_set_stop(&p->stop);	/* Ctrl-C cuts requests short */
	memset(&run, 0, sizeof(run));
	run.opts = o;
	run.stop = &p->stop;
	run.in.rootfd = -1;
	pipe_threads(&run);
	clock_gettime(CLOCK_MONOTONIC, &run.t0);
	/* the report exists first, so even a refused run can be reported */
	if (bale_report_new(&p->report) != BALE_OK)
		rc = bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	else
		rc = pipe_check_opts(p, &run);
	if (rc == BALE_OK)
		rc = pipe_plan_start(p, &run);
	if (rc == BALE_OK)
		rc = bale_pipe_writers(p, &run);
	pipe_usage_remedy(p, rc);
	if (rc == BALE_OK)
		rc = pipe_walk(p, &run);
	if (rc == BALE_OK)
		rc = run.planner->plan(p, &run);
	if (rc == BALE_OK && bale_pipe_part_done(&run))
		rc = pipe_part_skip(p, &run);
	else if (rc == BALE_OK)
		rc = bale_pipe_part_unmark(p, &run);
	if (rc == BALE_OK && !run.plan.skip)
		rc = pipe_pack(p, &run);
	if (rc == BALE_OK && !run.plan.skip)
		rc = bale_pipe_part_mark(p, &run);
	if (rc == BALE_OK && run.planner->finish)
		rc = run.planner->finish(p, &run);
	if (rc == BALE_OK && !run.plan.skip)
		rc = bale_pipe_made(p, o, &run);
	full = rc != BALE_OK && pipe_disk_full(p, &run, rc);
	/* an update is redone, not resumed: its delta goes */
	kept = bale_pipe_journal_end(&run, rc);
	resumes = kept && run.planner && run.planner->resumes;
	if (full && p->err.remedy == BALE_REMEDY_NONE)
		p->err.remedy = resumes ? BALE_REMEDY_FREE_SPACE_RESUME :
		    BALE_REMEDY_FREE_SPACE;
	if (resumes && p->err.remedy == BALE_REMEDY_NONE)
		p->err.remedy = BALE_REMEDY_RESUME;
	bale_pipe_stage_end(&run, kept);
	if (rc == BALE_EEXIST && p->err.remedy == BALE_REMEDY_NONE)
		p->err.remedy = BALE_REMEDY_REPLACE;
	p->threads_peak = run.wk.tune.peak;
	p->cpus = run.wk.cpus;
	p->cpus_why = run.wk.cpus_why;
	p->source_kind = run.in.source.kind ? run.in.source.kind->name : NULL;
	if (run.planner && run.planner->release)
		run.planner->release(&run);
	pipe_release(&run);
	p->stats.seconds = pipe_since(&run.t0);
	p->err.rc = rc;
	bale_store_set_stop(NULL);
	return rc;
}

void bale_pipeline_stats(const struct bale_pipeline *p,
    struct bale_pack_stats *out)
{
	*out = p->stats;
}

int bale_pipeline_skipped(const struct bale_pipeline *p, size_t i,
    const char **path, const char **reason)
{
	if (!p->report || i >= bale_report_count(p->report, BALE_NOTE_SKIPPED))
		return BALE_ENOENT;
	bale_report_get(p->report, BALE_NOTE_SKIPPED, i, path, reason);
	return BALE_OK;
}

int bale_pipeline_warning(const struct bale_pipeline *p, size_t i,
    const char **what, const char **text)
{
	if (!p->report || i >= bale_report_count(p->report, BALE_NOTE_WARNING))
		return BALE_ENOENT;
	bale_report_get(p->report, BALE_NOTE_WARNING, i, what, text);
	return BALE_OK;
}

int bale_pipeline_write_report(struct bale_pipeline *p,
    const struct bale_pack_opts *o, const char *path)
{
	struct bale_buf b = BALE_BUF_INIT;
	struct bale_report_run run;
	int rc = BALE_OK;

	if (!p->report)
		return BALE_ESTATE;
	memset(&run, 0, sizeof(run));
	run.opts = o;
	run.stats = &p->stats;
	run.status = p->err.rc == BALE_OK ? "complete" :
	    p->err.rc == BALE_EINTR ? "interrupted" : "failed";
	run.error = p->err.rc == BALE_OK ? NULL : p->err.msg;
	run.threads = p->threads_peak;
	run.cpus = p->cpus;
	run.cpus_why = p->cpus_why;
	run.source_kind = p->source_kind;
	run.walk_seconds = p->walk_seconds;
	run.walk_skipped = p->walk_skipped;
	run.stream = &p->stream;
	run.update = p->update.len ? p->update.data : NULL;
	bale_report_json(p->report, &run, &b);
	if (b.failed)
		rc = BALE_ENOMEM;
	else if (bale_file_write_atomic(path, b.data, b.len, 0) != 0)
		rc = BALE_EIO;
	bale_buf_release(&b);
	return rc;
}

int bale_pipeline_remedy(const struct bale_pipeline *p)
{
	return p->err.rc == BALE_OK ? BALE_REMEDY_NONE : p->err.remedy;
}

const char *bale_pipeline_errmsg(const struct bale_pipeline *p)
{
	return p ? p->err.msg : "no memory";
}

void bale_pipeline_stop(struct bale_pipeline *p)
{
	atomic_store_explicit(&p->stop, 1, memory_order_relaxed);
}

void bale_pipeline_free(struct bale_pipeline *p)
{
	if (!p)
		return;
	bale_report_free(p->report);
	bale_buf_release(&p->update);
	free(p);
}

