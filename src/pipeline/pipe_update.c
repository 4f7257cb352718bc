/* pipe_update.c - bale pack --update: the same command every night packs
 * only what changed since the output was made.
 *
 * The first run (no NAME-manifest.jsonl in the output folder) packs
 * everything, as without --update, and writes the manifest. A later run
 * compares the walk with it (update_diff.c: a stat per file, no read;
 * for objects in a store, the size and ETag their listing gave),
 * packs the new and changed files alone, under keys after every key
 * before, into a delta folder (OUT/.NAME-update), and has each format's
 * backend apply the delta and the removals to its output
 * (bale_backend.update); then the manifest is replaced. An output in
 * an object store has its manifest read and written, and the delta
 * packed, in a local staging folder; the backend uploads the delta and
 * the manifest goes up last. With --relabel
 * (or --force) the run rebuilds everything instead. Nothing changed:
 * nothing is read or written.
 */
#include "pipe_update.h"

#include "bale_store.h"

#include "registry.h"
#include "report.h"
#include "shuffle.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static const char *upd_name(const struct bale_pack_opts *o)
{
	return o->name ? o->name : "data";
}

/* 1 for a writer option ([FORMAT.]KEY=VALUE) that changes how samples
 * are stored, as the formats' tables say (BALE_OPTION_SHAPES; a key no
 * table knows counts as one): not the shard bounds, the LMDB map or
 * fsync, which may differ each night. */
static int upd_shapes_bytes(const char *kv)
{
	const char *const *names = bale_backend_names();
	char fmt[BALE_OPTION_TEXT_MAX], key[BALE_OPTION_TEXT_MAX];
	const struct bale_option *o;
	int known = 0, shapes = 0;
	size_t i;

	if (!bale_option_split(kv, fmt, key))	/* the writers refuse it */
		return 0;
	for (i = 0; names[i]; i++) {
		if (*fmt && strcmp(fmt, names[i]) != 0)
			continue;
		o = bale_backend_option(bale_backend_find(names[i]), key);
		known |= o != NULL;
		shapes |= o && (o->flags & BALE_OPTION_SHAPES);
	}
	return shapes || !known;
}

/* The -O options and encode settings that shape the stored bytes, as
 * one string to compare. */
static char *upd_settings(const struct bale_pack_opts *o)
{
	struct bale_buf b = BALE_BUF_INIT;
	size_t i;

	for (i = 0; o->options && o->options[i]; i++) {
		if (!upd_shapes_bytes(o->options[i]))
			continue;
		bale_buf_puts(&b, o->options[i]);
		bale_buf_puts(&b, "\n");
	}
	bale_report_encode(&b, o->encode);
	if (b.failed || !b.data) {
		bale_buf_release(&b);
		return strdup("");
	}
	return b.data;
}

/* Every format must be able to update (there, in an object store), or
 * the second night fails. */
static int upd_check_formats(struct bale_pipeline *p, const char *list,
    int remote)
{
	const struct bale_backend *be;
	const char *f = list;
	char name[64];
	int got;

	while ((got = bale_registry_next_name(&f, name, sizeof(name)))) {
		be = got > 0 ? bale_backend_find(name) : NULL;
		if (got < 0)
			return bale_errbuf_set(&p->err, BALE_EINVAL, "bad "
			    "format list '%s'", list);
		if (be && !be->update)
			return bale_errbuf_set(&p->err, BALE_ENOTSUP, "%s: "
			    "updating is not supported for this format yet",
			    name);
		if (be && remote && !(be->caps & BALE_CAP_UPDATE_REMOTE))
			return bale_errbuf_set(&p->err, BALE_ENOTSUP, "%s: "
			    "an output in an object store cannot be updated "
			    "yet (its library changes its file in place): "
			    "update it on local disk, or pack it again, "
			    "replacing it", name);
	}
	return BALE_OK;
}

static int upd_check_source(struct bale_pipeline *p, const struct pipe_run *r)
{
	if (!bale_source_can(&r->in.source, BALE_SOURCE_TREE) &&
	    !bale_source_can(&r->in.source, BALE_SOURCE_STAMPED))
		return bale_errbuf_set(&p->err, BALE_EINVAL, "an update needs "
		    "a folder (or a list file, a tree of objects, Parquet "
		    "files) as the source: an archive's members have no time "
		    "to compare");
	if (r->opts->part_count)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "an update "
		    "cannot be a part of a run");
	if (r->opts->resume)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "an update "
		    "cannot be resumed (an interrupted update is redone)");
	return upd_check_formats(p, r->opts->formats,
	    !bale_store_is_local(r->opts->out));
}

/* The output's manifest agrees with this run's formats and settings. */
static int upd_check_manifest(struct bale_pipeline *p, struct pipe_update *u)
{
	if (strcmp(u->old.formats, u->user->formats) != 0)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "the output "
		    "holds the formats %s: an update must name the same ones "
		    "(a relabeling update rebuilds it, and may change them)",
		    u->old.formats);
	if (strcmp(u->old.settings, u->settings) != 0)
		return bale_errbuf_set(&p->err, BALE_EINVAL, "the options "
		    "differ from those the output was packed with: an update "
		    "cannot change how samples are stored (a relabeling update "
		    "rebuilds it, and may)");
	return BALE_OK;
}

/* No manifest: the first run, unless the output was packed without
 * one, which no update can start from (what changed since is unknown):
 * said, with the remedy to rebuild it (which writes the manifest). */
static int upd_check_unmanaged(struct bale_pipeline *p,
    const struct bale_pack_opts *o)
{
	const struct bale_backend *be;
	struct bale_store_stat st;
	struct bale_errbuf err;
	const char *f = o->formats;
	char name[64], *path;
	int there;

	while (bale_registry_next_name(&f, name, sizeof(name)) > 0) {
		be = bale_backend_find(name);
		if (!be || !be->suffix)
			continue;
		path = bale_strfmt("%s/%s%s", o->out, upd_name(o), be->suffix);
		there = path && bale_store_stat(path, &st, &err) == BALE_OK;
		free(path);
		if (!there)
			continue;
		bale_errbuf_set(&p->err, BALE_EEXIST, "'%s' holds a %s output "
		    "packed without update: it has no %s%s, so what changed "
		    "since cannot be told; rebuilding it starts the manifest",
		    o->out, name, upd_name(o), BALE_MANIFEST_SUFFIX);
		p->err.remedy = BALE_REMEDY_START_UPDATES;
		return BALE_EEXIST;
	}
	return BALE_OK;
}

/* Where the run's own files are made: OUT, or the staging folder. */
static const char *upd_home(const struct pipe_update *u)
{
	return u->stage ? u->stage : u->user->out;
}

/* An update packs into the delta folder, made empty. */
static int upd_to_delta(struct bale_pipeline *p, struct pipe_run *run,
    struct pipe_update *u)
{
	u->delta = bale_strfmt("%s/.%s-update", upd_home(u),
	    upd_name(u->user));
	if (!u->delta)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	if (bale_file_remove_tree(u->delta) != 0)
		return bale_errbuf_set(&p->err, BALE_EIO, "cannot remove "
		    "'%s': %s", u->delta, strerror(errno));
	u->delta_opts = *u->user;
	u->delta_opts.out = u->delta;
	u->delta_opts.replace = 1;
	u->delta_opts.update = 0;
	run->opts = &u->delta_opts;
	return BALE_OK;
}

/* The manifest's head and skipped files: its samples are read when
 * the walk is there to compare them with. An older manifest lists its
 * skipped files last, so it is read past its samples for them. */
static int upd_read_head(struct bale_pipeline *p, struct pipe_update *u)
{
	struct bale_manifest_in in;
	struct bale_manifest_entry e;
	const char *path;
	int rc = bale_manifest_open(&in, &u->old, u->manifest, &p->err);

	while (rc == BALE_OK && !u->old.path_order && (rc =
	    bale_manifest_next(&in, &u->old, &e, &path, &p->err)) == 1)
		rc = BALE_OK;
	bale_manifest_close(&in);
	return rc;
}

/* Where the manifest is read and written: beside a local output; for
 * one in an object store, a copy in a staging folder of the run's own
 * (none there: the first run). */
static int upd_manifest_paths(struct bale_pipeline *p, struct pipe_update *u)
{
	const struct bale_pack_opts *o = u->user;
	int rc;

	u->manifest_at = bale_strfmt("%s/%s" BALE_MANIFEST_SUFFIX, o->out,
	    upd_name(o));
	if (!u->manifest_at)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	if (bale_store_is_local(o->out)) {
		u->manifest = strdup(u->manifest_at);
		return u->manifest ? BALE_OK : bale_errbuf_set(&p->err,
		    BALE_ENOMEM, "no memory");
	}
	u->stage = bale_file_stage_new("bale-update");
	if (!u->stage)
		return bale_errbuf_set(&p->err, BALE_EIO, "cannot make a "
		    "staging folder in $TMPDIR: %s", strerror(errno));
	u->manifest = bale_strfmt("%s/%s" BALE_MANIFEST_SUFFIX, u->stage,
	    upd_name(o));
	if (!u->manifest)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	rc = bale_store_copy(u->manifest_at, u->manifest, &p->err);
	if (rc == BALE_ENOENT)
		bale_errbuf_clear(&p->err);
	return rc == BALE_ENOENT ? BALE_OK : rc;
}

/* Before the writers: read the output's manifest; an incremental update
 * sends the writers to a delta folder. */
static int upd_start(struct bale_pipeline *p, struct pipe_run *run)
{
	const struct bale_pack_opts *o = run->opts;
	struct pipe_update *u;
	int rc;

	rc = upd_check_source(p, run);
	if (rc != BALE_OK)
		return rc;
	u = run->upd = calloc(1, sizeof(*u));
	if (!u)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	run->plan.written = &u->written;	/* the manifest lists them */
	u->user = o;
	u->settings = upd_settings(o);
	if (!u->settings)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	rc = upd_manifest_paths(p, u);
	if (rc == BALE_OK)
		rc = upd_read_head(p, u);
	if (rc == BALE_ENOENT && !o->replace && !o->relabel)
		return upd_check_unmanaged(p, o);
	if (rc == BALE_ENOENT)
		return BALE_OK;		/* the first run: pack all */
	if (rc != BALE_OK)
		return rc;
	if (o->relabel || o->replace) {	/* rebuild: a version on */
		u->delta_opts = *o;
		u->delta_opts.replace = 1;
		run->opts = &u->delta_opts;
		return BALE_OK;
	}
	u->incremental = 1;
	rc = upd_check_manifest(p, u);
	if (rc == BALE_OK && bale_source_can(&run->in.source,
	    BALE_SOURCE_FILE_ROWS))	/* its unchanged files stay unread */
		rc = bale_manifest_stamps(u->manifest, &run->in.known_files,
		    &run->in.nknown_files, &p->err);
	return rc == BALE_OK ? upd_to_delta(p, run, u) : rc;
}

/* What an update packs: the diff's files, shuffled among themselves
 * when asked (seeded by the version too, so each night differs). */
static int upd_order(struct bale_pipeline *p, struct pipe_run *run,
    struct pipe_update *u)
{
	size_t i, n = u->diff.npack;
	bale_order_t *perm = malloc((n + 1) * sizeof(*perm));

	u->order = malloc((n + 1) * sizeof(*u->order));
	u->pack_at = malloc((n + 1) * sizeof(*u->pack_at));
	if (!perm || !u->order || !u->pack_at) {
		free(perm);
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	}
	if (run->opts->shuffle)
		bale_shuffle(perm, n, run->opts->seed + u->old.version);
	for (i = 0; i < n; i++) {
		u->pack_at[i] = run->opts->shuffle ? perm[i] : i;
		u->order[i] = (bale_order_t)u->diff.pack[u->pack_at[i]].item;
	}
	free(perm);
	run->plan.order = (struct bale_order){ u->order, 0 };
	run->plan.count = n;
	run->plan.key_base = u->old.next_key;
	p->stats.found = n;
	return BALE_OK;
}

static void upd_stats(struct bale_pipeline *p, const struct pipe_update *u)
{
	const struct bale_update_diff *d = &u->diff;

	p->stats.version = u->old.version + 1;
	p->stats.added = d->added;	/* what is to be packed: less any */
	p->stats.replaced = d->replaced;	/* skipped (upd_packed) */
	p->stats.removed = d->ngone;
	p->stats.unchanged = d->nkept;
	p->stats.new_classes = u->incremental ? d->new_classes : 0;
}

/* What the pack wrote of the diff's files: the report's added and
 * replaced name only those (a new file that could not be read is
 * skipped, not added). */
static int upd_packed(struct bale_pipeline *p, const struct pipe_run *run,
    struct pipe_update *u)
{
	const struct bale_update_diff *d = &u->diff;
	size_t i, k;

	u->packed = calloc(d->npack + 1, 1);
	if (!u->packed)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	p->stats.added = p->stats.replaced = 0;
	for (i = 0; i < run->plan.count; i++) {
		if (!bale_bits_get(&u->written, i))
			continue;
		k = u->pack_at[i];
		u->packed[k] = 1;
		if (d->pack[k].replaces)
			p->stats.replaced++;
		else
			p->stats.added++;
	}
	return BALE_OK;
}

static void upd_report_paths(struct bale_buf *b, const char *key,
    const struct pipe_run *run, const struct pipe_update *u, int replaces)
{
	const struct bale_update_diff *d = &u->diff;
	struct bale_buf scratch = BALE_BUF_INIT;
	const char *path;
	size_t i;
	int first = 1;

	bale_json_key(b, key, 0);
	bale_buf_puts(b, "[");
	for (i = 0; i < d->npack && !b->failed; i++) {
		if (d->pack[i].replaces != replaces || !u->packed ||
		    !u->packed[i])
			continue;
		path = bale_walk_path(run->in.walk, d->pack[i].item, &scratch);
		b->failed |= !path;	/* the report says no memory */
		bale_buf_puts(b, first ? "\n" : ",\n");
		bale_json_str(b, path ? path : "");
		first = 0;
	}
	bale_buf_puts(b, "]");
	bale_buf_release(&scratch);
}

/* The report's "update": the version made, and what changed (after a
 * first run, which packs everything, no lists). */
static void upd_report(struct bale_pipeline *p, const struct pipe_run *run,
    const struct pipe_update *u)
{
	const struct bale_update_diff *d = &u->diff;
	struct bale_buf *b = &p->update;
	const char *gone;
	size_t i;

	bale_buf_puts(b, "{");
	bale_json_kv_u64(b, "version", p->stats.version, 1);
	bale_buf_printf(b, ",\"first\":%s", u->incremental ? "false" :
	    "true");
	bale_json_kv_u64(b, "unchanged", d->nkept, 0);
	if (u->incremental) {
		upd_report_paths(b, "added", run, u, 0);
		upd_report_paths(b, "replaced", run, u, 1);
		bale_json_key(b, "removed", 0);
		bale_buf_puts(b, "[");
		for (i = 0, gone = d->gone.data; i < d->ngone; i++) {
			bale_buf_puts(b, i ? ",\n" : "\n");
			bale_json_str(b, gone);
			gone += strlen(gone) + 1;
		}
		bale_buf_puts(b, "]");
		bale_json_key(b, "new_classes", 0);
		bale_json_str_array(b, d->classes + d->nclasses -
		    d->new_classes, d->new_classes);
	}
	bale_buf_puts(b, "}");
}

/* Nothing changed: said, and the output left as it is. */
static int upd_nothing(struct bale_pipeline *p, struct pipe_run *run,
    const struct pipe_update *u)
{
	char why[128];

	snprintf(why, sizeof(why), "nothing changed since version %" PRIu64
	    ": the output is left as it is", u->old.version);
	run->plan.skip = 1;
	p->stats.version = u->old.version;
	return bale_report_add(p->report, BALE_NOTE_WARNING, u->user->out,
	    why) ? bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory") :
	    BALE_OK;
}

/* Files skipped before and unchanged since are not tried again: each is
 * reported skipped for the reason it had (under --strict, that fails
 * the run as a skip would). */
static int upd_still_skipped(struct bale_pipeline *p,
    const struct pipe_run *run, const struct pipe_update *u)
{
	const struct bale_update_diff *d = &u->diff;
	struct bale_buf scratch = BALE_BUF_INIT;
	const char *path, *why;
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < d->nstill; i++) {
		path = bale_walk_path(run->in.walk, d->still[i].item,
		    &scratch);
		why = bale_manifest_skip_why(&u->old, d->still[i].skip);
		if (!path || bale_report_add(p->report, BALE_NOTE_SKIPPED,
		    path, why) != 0) {
			rc = bale_errbuf_set(&p->err, BALE_ENOMEM,
			    "no memory");
			break;
		}
		p->stats.skipped++;
		if (run->opts->strict)
			rc = bale_errbuf_set(&p->err, BALE_EINPUT,
			    "strict: '%s': %s", path, why);
	}
	bale_buf_release(&scratch);
	return rc;
}

/* The source's folder, where its files are stat'ed; -1 for objects in
 * a store, whose listing said their sizes and stamps. */
static int upd_open_root(struct bale_pipeline *p, const struct pipe_run *run,
    int *rootfd)
{
	*rootfd = -1;
	if (!bale_source_can(&run->in.source, BALE_SOURCE_TREE))
		return BALE_OK;
	*rootfd = open(run->opts->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return *rootfd >= 0 ? BALE_OK : bale_errbuf_set(&p->err, BALE_EIO,
	    "cannot open '%s': %s", run->opts->src, strerror(errno));
}

/* After the walk: what changed since the manifest; an incremental
 * update packs that alone (upd_order), under keys after every key
 * before, or nothing; the first run and a rebuild pack the whole source
 * (its plan), numbered as the manifest says. */
static int upd_plan(struct bale_pipeline *p, struct pipe_run *run)
{
	struct pipe_update *u = run->upd;
	int rootfd;
	int rc = u->incremental ? bale_pipe_plan_fits(p, run) :
	    bale_pipe_plan_whole(p, run);

	if (rc != BALE_OK)
		return rc;
	rc = upd_open_root(p, run, &rootfd);
	if (rc != BALE_OK)
		return rc;
	/* what is to be packed waits beside the output (or staged) */
	rc = bale_file_mkdirs(upd_home(u)) != 0 ? bale_errbuf_set(&p->err,
	    BALE_EIO, "cannot create output folder '%s': %s", upd_home(u),
	    strerror(errno)) : bale_update_diff(&u->diff, run->in.walk,
	    rootfd, u->incremental ? u->manifest : NULL, &u->old,
	    upd_home(u), &p->err);
	if (rootfd >= 0)
		close(rootfd);
	if (rc != BALE_OK)
		return rc;
	run->lab.map = u->diff.label_map;
	run->lab.classes = u->diff.classes;
	run->lab.nclasses = u->diff.nclasses;
	upd_stats(p, u);
	rc = upd_still_skipped(p, run, u);
	if (rc != BALE_OK)
		return rc;
	if (u->incremental && !u->diff.npack && !u->diff.nremoved &&
	    !u->diff.new_classes)
		rc = upd_nothing(p, run, u);
	else if (u->incremental)
		rc = upd_order(p, run, u);
	run->plan.pack_nothing = u->incremental && run->plan.count == 0;
	if (!u->incremental || run->plan.skip)	/* else once it is packed */
		upd_report(p, run, u);
	return rc;
}

/* Each format's output takes the delta and the removals. */
static int upd_apply_formats(struct bale_pipeline *p, struct pipe_run *run,
    struct pipe_update *u)
{
	const char *list = u->user->formats;
	const struct bale_backend *be;
	struct bale_update bu;
	char name[64];
	int rc = BALE_OK;

	memset(&bu, 0, sizeof(bu));
	bu.out = u->user->out;
	bu.name = upd_name(u->user);
	bu.delta = run->plan.count ? u->delta : NULL;
	bu.removed = u->diff.removed;
	bu.nremoved = u->diff.nremoved;
	bu.classes = u->diff.classes;
	bu.nclasses = u->diff.nclasses;
	bu.version = u->old.version + 1;
	bu.count_before = u->diff.keys_before.count;
	bu.keys_before = &u->diff.keys_before;
	/* the list was checked by upd_check_formats() */
	while (rc == BALE_OK && bale_registry_next_name(&list, name,
	    sizeof(name)) > 0) {
		be = bale_backend_find(name);
		rc = be && be->update ? be->update(&bu, &p->err) :
		    bale_errbuf_set(&p->err, BALE_ENOTSUP, "%s: cannot update",
		    name);
		if (rc != BALE_OK)
			bale_errbuf_prefix(&p->err, name);
	}
	return rc;
}

static void upd_unlink_partial(const char *path)
{
	char *partial = bale_strfmt("%s%s", path, BALE_PARTIAL);

	if (partial)
		unlink(partial);
	free(partial);
}

/* Once every sample is handed over, while the walk is there: the
 * report's lists and the manifest (NAME-manifest.jsonl.partial), so the
 * samples can go before the writers finish. */
static int upd_packed_all(struct bale_pipeline *p, struct pipe_run *run)
{
	struct pipe_update *u = run->upd;
	int rc = BALE_OK;

	if (u->prepared || run->plan.skip)
		return BALE_OK;
	u->prepared = 1;
	if (run->plan.written_lost)	/* the manifest could not say
					 * what is in */
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	if (u->incremental) {
		rc = upd_packed(p, run, u);
		/* every file it tried was skipped again: no new version,
		 * only their new times in the manifest */
		if (rc == BALE_OK && !p->stats.added && !p->stats.replaced &&
		    !u->diff.nremoved && !u->diff.new_classes) {
			rc = upd_nothing(p, run, u);
			u->no_version = 1;
		}
		if (rc == BALE_OK)
			upd_report(p, run, u);
	} else {
		p->stats.added = p->stats.packed;
	}
	if (rc == BALE_OK)
		rc = bale_pipe_update_manifest(p, run, u);
	u->manifest_written = rc == BALE_OK;
	return rc;
}

/* After the writers: apply the delta to each format, then put the
 * manifest in place. */
static int upd_finish(struct bale_pipeline *p, struct pipe_run *run)
{
	struct pipe_update *u = run->upd;
	int rc;

	rc = upd_packed_all(p, run);
	bale_pipe_drop_samples(run);	/* the formats may need memory */
	if (!u->manifest_written)	/* nothing changed, or it failed */
		return rc;
	if (u->incremental && !u->no_version)
		rc = upd_apply_formats(p, run, u);
	if (rc == BALE_OK && bale_file_publish(u->manifest, 0) != 0)
		rc = bale_errbuf_set(&p->err, BALE_EIO, "cannot write '%s': "
		    "%s", u->manifest, strerror(errno));
	if (rc == BALE_OK && u->stage)	/* the output's, last */
		rc = bale_store_copy(u->manifest, u->manifest_at, &p->err);
	u->manifest_written = rc != BALE_OK;	/* published, or to go */
	if (rc != BALE_OK)	/* no version was made: nothing to tell */
		bale_buf_reset(&p->update);
	return rc;	/* the delta goes in bale_pipe_update_release() */
}

static void upd_release(struct pipe_run *run)
{
	struct pipe_update *u = run->upd;

	if (!u)
		return;
	run->plan.written = NULL;
	bale_bits_release(&u->written);
	if (u->manifest_written)	/* not published: it goes */
		upd_unlink_partial(u->manifest);
	if (u->delta)
		bale_file_remove_tree(u->delta);
	if (u->stage)
		bale_file_remove_tree(u->stage);
	bale_manifest_release(&u->old);
	bale_update_diff_release(&u->diff);
	free(u->manifest);
	free(u->manifest_at);
	free(u->stage);
	free(u->delta);
	free(u->settings);
	free(u->order);
	free(u->pack_at);
	free(u->packed);
	free(u);
	run->upd = NULL;
}

const struct pipe_planner bale_pipe_update = {
	.start = upd_start,
	.plan = upd_plan,
	.packed = upd_packed_all,
	.finish = upd_finish,
	.release = upd_release,
	.resumes = 0,
};
