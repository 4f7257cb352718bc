/* pack.c - _bale.pack(): the library's pipeline, run from Python.
 *
 * The run goes on in a thread of its own while the calling thread waits
 * with the GIL released, waking every 100 ms to let Python handle
 * signals: Ctrl-C stops the run the way bale pack's SIGINT does (the
 * outputs removed, checkpoints kept) and then raises KeyboardInterrupt.
 */
#include "ext.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

struct ext_run {
	struct bale_pipeline *p;
	struct bale_pack_opts o;
	struct bale_encode_opts enc;
	int rc;
	int done;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *ext_run_thread(void *arg)
{
	struct ext_run *run = arg;
	int rc = bale_pipeline_run(run->p, &run->o);

	pthread_mutex_lock(&run->lock);
	run->rc = rc;
	run->done = 1;
	pthread_cond_signal(&run->cond);
	pthread_mutex_unlock(&run->lock);
	return NULL;
}

/* Wait up to 100 ms for the run; 1 once it is done. No GIL. */
static int ext_run_wait(struct ext_run *run)
{
	struct timespec until;
	int done;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 100 * 1000 * 1000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&run->lock);
	if (!run->done)
		pthread_cond_timedwait(&run->cond, &run->lock, &until);
	done = run->done;
	pthread_mutex_unlock(&run->lock);
	return done;
}

/* Run the pipeline; -1 with a Python exception set by a signal handler
 * (the run was stopped and has ended), else 0 with run->rc. */
static int ext_run(struct ext_run *run)
{
	pthread_t tid;
	int stopped = 0;
	int done = 0;
	int err;

	pthread_mutex_init(&run->lock, NULL);
	pthread_cond_init(&run->cond, NULL);
	err = pthread_create(&tid, NULL, ext_run_thread, run);
	if (err != 0) {
		PyErr_SetString(ext_error, strerror(err));
		return -1;
	}
	while (!done) {
		Py_BEGIN_ALLOW_THREADS
		done = ext_run_wait(run);
		Py_END_ALLOW_THREADS
		if (!done && !stopped && PyErr_CheckSignals() != 0) {
			bale_pipeline_stop(run->p);
			stopped = 1;	/* keep the exception till the end */
		}
	}
	pthread_join(tid, NULL);
	pthread_cond_destroy(&run->cond);
	pthread_mutex_destroy(&run->lock);
	return stopped ? -1 : 0;
}

/* ---- arguments -------------------------------------------------------- */

/* bale_pipeline_skipped() and bale_pipeline_warning(): item @i's path
 * (or subject) and text. */
typedef int (*ext_pair_fn)(const struct bale_pipeline *p, size_t i,
    const char **a, const char **b);

/* [(path, text)] of every item @get gives, or NULL with an exception. */
static PyObject *ext_pack_pairs(struct bale_pipeline *p, ext_pair_fn get)
{
	PyObject *list = PyList_New(0);
	PyObject *item;
	const char *a;
	const char *b;
	size_t i;

	for (i = 0; list && get(p, i, &a, &b) == BALE_OK; i++) {
		item = Py_BuildValue("(Ns)", PyUnicode_DecodeFSDefault(a), b);
		if (!item || PyList_Append(list, item) != 0)
			Py_CLEAR(list);
		Py_XDECREF(item);
	}
	return list;
}

static PyObject *ext_pack_stats(struct bale_pipeline *p)
{
	struct bale_pack_stats s;

	bale_pipeline_stats(p, &s);
	return Py_BuildValue("{sKsKsKsKsKsKsdsNsN}", "found", s.found,
	    "packed", s.packed, "skipped", s.skipped, "ignored", s.ignored,
	    "bytes", s.bytes, "resumed_at", s.resumed_at, "seconds",
	    s.seconds, "skipped_inputs", ext_pack_pairs(p,
	    bale_pipeline_skipped), "warnings", ext_pack_pairs(p,
	    bale_pipeline_warning));
}

static const char *const ext_remedies[] = {
	[BALE_REMEDY_NONE] = NULL,
	[BALE_REMEDY_REPLACE] = "replace",
	[BALE_REMEDY_RESUME] = "resume",
	[BALE_REMEDY_START_OVER] = "start_over",
	[BALE_REMEDY_ALLOW_DAMAGED] = "allow_damaged",
	[BALE_REMEDY_CHANGE_OPTIONS] = "change_options",
	[BALE_REMEDY_RELABEL] = "relabel",
	[BALE_REMEDY_START_UPDATES] = "start_updates",
	[BALE_REMEDY_FREE_SPACE] = "free_space",
	[BALE_REMEDY_FREE_SPACE_RESUME] = "free_space_resume",
};

/* (code, message, remedy, stats): what the Python side turns into a
 * return value or an exception. */
static PyObject *ext_pack_result(struct ext_run *run, const char *report)
{
	int remedy = bale_pipeline_remedy(run->p);
	const char *msg = run->rc == BALE_OK ? NULL :
	    bale_pipeline_errmsg(run->p);
	int wrote = report ? bale_pipeline_write_report(run->p, &run->o,
	    report) : BALE_OK;

	if (wrote != BALE_OK && run->rc == BALE_OK) {
		run->rc = wrote;
		msg = "cannot write the report";
	}
	return Py_BuildValue("(izzN)", run->rc, msg,
	    remedy > 0 && remedy < (int)(sizeof(ext_remedies) /
	    sizeof(ext_remedies[0])) ?
	    ext_remedies[remedy] : NULL, ext_pack_stats(run->p));
}

static int ext_parse_encode(PyObject *d, struct bale_encode_opts *e)
{
	static char *kwlist[] = { "resize", "frame", "upscale", "pixels",
	    "quality", "subsampling", "color", "alpha", "background",
	    "keep_unchanged", "max_pixels", NULL };
	PyObject *none = PyTuple_New(0);
	unsigned long long max_pixels = 0;
	int ok;

	if (!none)
		return -1;
	ok = PyArg_ParseTupleAndKeywords(none, d, "|zzpziizzzpK", kwlist,
	    &e->resize, &e->frame, &e->upscale, &e->pixels, &e->quality,
	    &e->subsampling, &e->color, &e->alpha, &e->background,
	    &e->keep_unchanged, &max_pixels);
	Py_DECREF(none);
	e->max_pixels = max_pixels;
	return ok ? 0 : -1;
}

PyObject *ext_pack(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "src", "out", "formats", "name", "list",
	    "options", "threads", "window", "shuffle", "seed", "strict",
	    "replace", "resume", "encode", "report", "part", "update",
	    "relabel", "allow_damaged", "validate", "more", "archive_root",
	    "upload_part", "uploads", "image_column", "label_column", NULL };
	struct ext_run run = { 0 };
	PyObject *src = NULL, *out = NULL, *list = NULL, *report = NULL;
	PyObject *options = NULL, *encode = NULL, *result = NULL;
	PyObject *more = NULL, *keep = NULL;
	const char **more_srcs = NULL;
	unsigned long long seed = 0, window = 0, upload_part = 0;
	unsigned threads = 0;
	const char **opts = NULL;
	const char *part = NULL;
	struct bale_errbuf perr;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&s|zO&OIKpKppp"
	    "O!O&zppppOzKIzz", kwlist, PyUnicode_FSConverter, &src,
	    PyUnicode_FSConverter, &out, &run.o.formats, &run.o.name,
	    PyUnicode_FSConverter, &list, &options, &threads, &window,
	    &run.o.shuffle, &seed, &run.o.strict, &run.o.replace,
	    &run.o.resume, &PyDict_Type, &encode, PyUnicode_FSConverter,
	    &report, &part, &run.o.update, &run.o.relabel,
	    &run.o.allow_damaged, &run.o.validate, &more,
	    &run.o.archive_root, &upload_part, &run.o.uploads,
	    &run.o.image_column, &run.o.label_column))
		goto done;
	if (((options || more) && !(keep = PyList_New(0))) ||
	    (options && !(opts = ext_path_array(options, keep))) ||
	    (more && !(more_srcs = ext_path_array(more, keep))) ||
	    (encode && ext_parse_encode(encode, &run.enc) != 0))
		goto done;
	run.o.more_srcs = more_srcs;
	if (part && bale_part_parse(part, &run.o.part_index,
	    &run.o.part_count, &perr) != BALE_OK) {
		PyErr_Format(PyExc_ValueError, "part %s: %s", part, perr.msg);
		goto done;
	}
	run.o.src = PyBytes_AS_STRING(src);
	run.o.out = PyBytes_AS_STRING(out);
	run.o.list = list ? PyBytes_AS_STRING(list) : NULL;
	run.o.options = opts;
	run.o.threads = threads;
	run.o.window_bytes = (size_t)window;
	run.o.upload_part = (size_t)upload_part;
	run.o.seed = seed;
	run.o.encode = encode ? &run.enc : NULL;
	if (bale_pipeline_new(&run.p) != BALE_OK) {
		PyErr_NoMemory();
		goto done;
	}
	if (ext_run(&run) == 0)
		result = ext_pack_result(&run,
		    report ? PyBytes_AS_STRING(report) : NULL);
	else if (report)	/* stopped: the report says "interrupted" */
		bale_pipeline_write_report(run.p, &run.o,
		    PyBytes_AS_STRING(report));
done:
	bale_pipeline_free(run.p);
	PyMem_Free(opts);
	PyMem_Free(more_srcs);
	Py_XDECREF(keep);
	Py_XDECREF(src);
	Py_XDECREF(out);
	Py_XDECREF(list);
	Py_XDECREF(report);
	return result;
}
