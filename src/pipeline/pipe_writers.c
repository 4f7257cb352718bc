/* pipe_writers.c - the writers of a run: one per format of the list,
 * each given the options addressed to it, finished together and then
 * published together. */
#include "pipeline.h"

#include "bale_store.h"
#include "registry.h"
#include "resume.h"

#include <stdio.h>
#include <string.h>

/* An option no chosen format takes: the error names the keys they do. */
static int pipe_unknown_option(struct bale_pipeline *p,
    const struct pipe_run *run, const char *opt, const char *key)
{
	struct bale_buf keys = BALE_BUF_INIT;
	const struct bale_backend *be;
	const struct bale_option *k;
	size_t i;

	for (i = 0; i < run->out.nwriters; i++) {
		be = bale_backend_find(bale_writer_name(run->out.writers[i]));
		bale_buf_printf(&keys, "%s%s:", i ? "; " : "", be->name);
		for (k = be->writer_options; k && k->key; k++)
			bale_buf_printf(&keys, "%s %s",
			    k == be->writer_options ? "" : ",", k->key);
	}
	bale_errbuf_set(&p->err, BALE_ENOOPT, "option '%s': no chosen format "
	    "takes '%s' (they take %s)", opt, key,
	    keys.failed || !keys.data ? "?" : keys.data);
	bale_buf_release(&keys);
	return BALE_ENOOPT;
}

/* The formats this build writes, for an unknown name's message. */
static int pipe_unknown_format(struct bale_pipeline *p, const char *name)
{
	struct bale_buf names = BALE_BUF_INIT;
	const struct bale_backend *be;
	size_t i;

	for (i = 0; (be = bale_registry_at(i)); i++)
		if (be->writer)
			bale_buf_printf(&names, "%s%s", names.len ? ", " : "",
			    be->name);
	bale_errbuf_set(&p->err, BALE_EINVAL, "unknown format '%s' (this "
	    "build writes %s)", name, names.failed || !names.data ? "?" :
	    names.data);
	bale_buf_release(&names);
	return BALE_EINVAL;
}

/* Offer "[fmt.]key=value" to the writers it names (all when unprefixed). */
static int pipe_option(struct bale_pipeline *p, struct pipe_run *run,
    const char *opt)
{
	char fmt[BALE_OPTION_TEXT_MAX], key[BALE_OPTION_TEXT_MAX];
	const char *value = bale_option_split(opt, fmt, key);
	const struct bale_option *o;
	size_t i;
	int taken = 0;
	int rc;

	if (!value)
		return bale_errbuf_set(&p->err, BALE_EINVAL,
		    "option '%s': expected [FORMAT.]KEY=VALUE", opt);
	for (i = 0; i < run->out.nwriters; i++) {
		const char *name = bale_writer_name(run->out.writers[i]);

		if (*fmt && strcmp(fmt, name) != 0)
			continue;
		rc = bale_writer_option(run->out.writers[i], key, value);
		o = bale_backend_option(bale_backend_find(name), key);
		if (rc == BALE_OK && o && (o->flags & BALE_OPTION_SYNC))
			run->out.sync |= strcmp(value, "0") != 0;
		if (rc == BALE_OK)
			taken = 1;
		else if (rc != BALE_ENOOPT)
			return bale_errbuf_set(&p->err, rc, "%s",
			    bale_writer_errmsg(run->out.writers[i]));
	}
	if (!taken)
		return pipe_unknown_option(p, run, opt, key);
	return BALE_OK;
}

/* A format that cannot write into the run's object store, and why. */
static int pipe_not_remote(struct bale_pipeline *p, const struct pipe_run *run,
    const struct bale_backend *be)
{
	p->err.remedy = BALE_REMEDY_CHANGE_OPTIONS;
	return bale_errbuf_set(&p->err, BALE_ENOTSUP, "%s cannot write into "
	    "an object store ('%s'): it writes its files in place, and "
	    "objects are written whole; pack it to a local folder, then "
	    "upload that", be->name, run->opts->out);
}

static int pipe_add_writer(struct bale_pipeline *p, struct pipe_run *run,
    const char *name)
{
	const struct bale_backend *be;
	struct bale_writer *w = NULL;
	size_t i;
	int rc;

	for (i = 0; i < run->out.nwriters; i++)	/* both would write the
						 * same files */
		if (strcmp(bale_writer_name(run->out.writers[i]), name) == 0)
			return bale_errbuf_set(&p->err, BALE_EINVAL, "format "
			    "'%s' is named twice", name);
	if (run->out.nwriters == PIPE_MAX_WRITERS)
		return bale_errbuf_set(&p->err, BALE_EINVAL,
		    "too many formats");
	rc = bale_writer_new(&w);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "no memory");
	run->out.writers[run->out.nwriters++] = w;
	rc = bale_writer_set_backend(w, name);
	be = bale_backend_find(name);
	if (rc == BALE_ENOENT && !be)
		return pipe_unknown_format(p, name);
	if (rc != BALE_OK)
		return bale_errbuf_set(&p->err, rc, "%s",
		    bale_writer_errmsg(w));
	if (!bale_store_is_local(run->opts->out) &&
	    !(be->caps & BALE_CAP_WRITE_REMOTE))
		return pipe_not_remote(p, run, be);
	return BALE_OK;
}

int bale_pipe_writers(struct bale_pipeline *p, struct pipe_run *run)
{
	const char *f = run->opts->formats;
	char name[64];
	size_t i;
	int got, rc = BALE_OK;

	while (rc == BALE_OK && (got = bale_registry_next_name(&f, name,
	    sizeof(name)))) {
		if (got < 0)
			return bale_errbuf_set(&p->err, BALE_EINVAL,
			    "bad format list '%s'", run->opts->formats);
		rc = pipe_add_writer(p, run, name);
	}
	if (rc == BALE_OK && run->out.nwriters == 0)
		rc = bale_errbuf_set(&p->err, BALE_EINVAL, "no format chosen");
	for (i = 0; rc == BALE_OK && run->opts->options &&
	    run->opts->options[i]; i++)
		rc = pipe_option(p, run, run->opts->options[i]);
	return rc;
}

/* Finish every writer before publishing any, so a failure in one leaves
 * no other output looking complete; a replacing run's outputs then take
 * the old ones' place. */
int bale_pipe_finish(struct bale_pipeline *p, struct pipe_run *run)
{
	size_t i;

	for (i = 0; i < run->out.nwriters; i++)
		if (bale_writer_finish(run->out.writers[i]) != BALE_OK)
			return bale_errbuf_set(&p->err, BALE_EBACKEND, "%s",
			    bale_writer_errmsg(run->out.writers[i]));
	for (i = 0; i < run->out.nwriters; i++)
		if (bale_writer_publish(run->out.writers[i]) != BALE_OK)
			return bale_errbuf_set(&p->err, BALE_EIO, "%s",
			    bale_writer_errmsg(run->out.writers[i]));
	return run->out.stage ? bale_pipe_stage_swap(p, run) : BALE_OK;
}

/* A resumed run says where it resumed, and what it found to resume. */
static int pipe_note_resume(struct bale_pipeline *p, struct pipe_run *run,
    const struct bale_dataset *ds)
{
	if (run->opts->resume && run->jr.none &&
	    bale_report_add(p->report, BALE_NOTE_WARNING, run->opts->out,
	    run->plan.first == ds->nitems ? "nothing to resume: every output "
	    "is complete already, nothing was written" : "no run to resume "
	    "(no journal): starting from the beginning") != 0)
		return bale_errbuf_set(&p->err, BALE_ENOMEM, "no memory");
	p->stats.resumed_at = run->plan.first;
	p->stats.skipped += run->jr.j.nskipped;	/* those before it */
	p->stats.resumed_kept = run->plan.first - run->jr.j.nskipped;
	return BALE_OK;
}

int bale_pipe_open_writers(struct bale_pipeline *p, struct pipe_run *run,
    const struct bale_dataset *ds)
{
	int rc = bale_pipe_journal_start(p, run, ds->name);

	if (rc == BALE_OK)
		rc = bale_resume_open(run->out.writers, run->out.nwriters,
		    run->opts->resume, run->out.dir, ds, &run->jr.j,
		    &run->plan.first, p->report, &p->err);
	if (rc == BALE_OK)
		rc = pipe_note_resume(p, run, ds);
	return rc == BALE_OK ? bale_pipe_journal_begin(p, run) : rc;
}
