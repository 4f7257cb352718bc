/* loader.c - _bale.Loader: the C loader (bale_loader_*) for the Python
 * bale.Loader around it (python/bale/_loader.py), which owns the ring's
 * buffers (tensors or arrays) and hands their addresses in. Waiting for
 * a batch, seeking and closing release the GIL. */
#include "ext.h"

#include <stdint.h>
#include <stdlib.h>

#define EXT_LOADER_MAX_RING 65

typedef struct {
	PyObject_HEAD
	struct bale_loader *l;
	PyObject *ring;		/* what owns the ring's memory: kept */
} ext_loader;

static int ext_loader_check(ext_loader *self)
{
	if (self->l)
		return 0;
	PyErr_SetString(PyExc_ValueError, "the bale.Loader is closed");
	return -1;
}

/* The ring's addresses: two sequences of ints, prefetch + 1 each. */
static int ext_loader_ring(PyObject *images, PyObject *labels, unsigned n,
    void **img, int64_t **lab)
{
	PyObject *a, *b;
	unsigned i;

	if (PySequence_Size(images) != n || PySequence_Size(labels) != n ||
	    n > EXT_LOADER_MAX_RING) {
		PyErr_SetString(PyExc_ValueError, "the ring needs prefetch + 1 "
		    "image and label buffers");
		return -1;
	}
	for (i = 0; i < n; i++) {
		a = PySequence_GetItem(images, i);
		b = PySequence_GetItem(labels, i);
		img[i] = a ? PyLong_AsVoidPtr(a) : NULL;
		lab[i] = b ? PyLong_AsVoidPtr(b) : NULL;
		Py_XDECREF(a);
		Py_XDECREF(b);
		if (PyErr_Occurred())
			return -1;
	}
	return 0;
}

static int ext_loader_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "batch_size", "width", "height",
	    "train", "resize", "scale_lo", "scale_hi", "ratio_lo", "ratio_hi",
	    "shuffle", "seed", "rank", "world_size", "drop_last", "threads",
	    "prefetch", "channels_last", "exact", "strict", "format",
	    "ring_images", "ring_labels", "ring", "exif", "on_bad", "mean",
	    "std", NULL };
	ext_loader *self = (ext_loader *)o;
	struct bale_loader_opts opts = { 0 };
	void *img[EXT_LOADER_MAX_RING];
	int64_t *lab[EXT_LOADER_MAX_RING];
	PyObject *path = NULL, *images, *labels, *ring;
	double mean[3] = { 0, 0, 0 }, std[3] = { 0, 0, 0 };
	int c;
	unsigned long long seed = 0;
	char msg[600];
	int rc;

	if (self->l) {
		PyErr_SetString(PyExc_RuntimeError, "Loader already open");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&IiiiiddddpKIIpIIppp"
	    "zOOO|pi(ddd)(ddd)", kwlist, PyUnicode_FSConverter, &path,
	    &opts.batch_size,
	    &opts.width, &opts.height, &opts.train, &opts.resize,
	    &opts.scale[0], &opts.scale[1], &opts.ratio[0], &opts.ratio[1],
	    &opts.shuffle, &seed, &opts.rank, &opts.world_size,
	    &opts.drop_last, &opts.threads, &opts.prefetch,
	    &opts.channels_last, &opts.exact, &opts.strict, &opts.format,
	    &images, &labels, &ring, &opts.exif, &opts.on_bad, &mean[0],
	    &mean[1],
	    &mean[2], &std[0], &std[1], &std[2]))
		return -1;
	opts.seed = seed;
	opts.normalize = kw && PyDict_GetItemString(kw, "mean") != NULL;
	for (c = 0; c < 3; c++) {
		opts.mean[c] = (float)mean[c];
		opts.std[c] = (float)std[c];
	}
	opts.prefetch = opts.prefetch ? opts.prefetch : 2;
	if (ext_loader_ring(images, labels, opts.prefetch + 1, img, lab)) {
		Py_DECREF(path);
		return -1;
	}
	opts.ring_images = img;
	opts.ring_labels = lab;
	Py_BEGIN_ALLOW_THREADS
	rc = bale_loader_new(&self->l);
	if (rc == BALE_OK)
		rc = bale_loader_open(self->l, PyBytes_AS_STRING(path), &opts);
	if (rc != BALE_OK)
		snprintf(msg, sizeof(msg), "%s", self->l ?
		    bale_loader_errmsg(self->l) : "no memory");
	if (rc != BALE_OK) {
		bale_loader_free(self->l);
		self->l = NULL;
	}
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	if (rc != BALE_OK) {
		if (rc == BALE_EINVAL)
			PyErr_SetString(PyExc_ValueError, msg);
		else
			ext_raise(rc, msg);
		return -1;
	}
	Py_INCREF(ring);
	Py_XSETREF(self->ring, ring);
	return 0;
}

static PyObject *ext_loader_seek(PyObject *o, PyObject *args)
{
	ext_loader *self = (ext_loader *)o;
	unsigned long long epoch, batch;
	int rc;

	if (!PyArg_ParseTuple(args, "KK", &epoch, &batch) ||
	    ext_loader_check(self))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = bale_loader_seek(self->l, epoch, batch);
	Py_END_ALLOW_THREADS
	if (rc == BALE_EINVAL) {
		PyErr_SetString(PyExc_ValueError, bale_loader_errmsg(self->l));
		return NULL;
	}
	if (rc != BALE_OK)
		return ext_raise(rc, bale_loader_errmsg(self->l));
	Py_RETURN_NONE;
}

/* (ring slot, samples, batch index), or None at the epoch's end. */
static PyObject *ext_loader_next(PyObject *o, PyObject *unused)
{
	ext_loader *self = (ext_loader *)o;
	struct bale_batch b;
	int rc;

	(void)unused;
	if (ext_loader_check(self))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = bale_loader_next(self->l, &b);
	Py_END_ALLOW_THREADS
	if (rc == BALE_ENOENT)
		Py_RETURN_NONE;
	if (rc != BALE_OK)
		return ext_raise(rc, bale_loader_errmsg(self->l));
	return Py_BuildValue("(IIK)", b.slot, b.n,
	    (unsigned long long)b.index);
}

static PyObject *ext_loader_bad(PyObject *o, PyObject *unused)
{
	ext_loader *self = (ext_loader *)o;
	PyObject *list, *item;
	uint64_t sample;
	const char *why;
	size_t i;

	(void)unused;
	if (ext_loader_check(self) || !(list = PyList_New(0)))
		return NULL;
	for (i = 0; bale_loader_bad(self->l, i, &sample, &why) == BALE_OK;
	    i++) {
		item = Py_BuildValue("(Ks)", (unsigned long long)sample, why);
		if (!item || PyList_Append(list, item) != 0) {
			Py_XDECREF(item);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(item);
	}
	return list;
}

static PyObject *ext_loader_counts(PyObject *o, PyObject *unused)
{
	ext_loader *self = (ext_loader *)o;

	(void)unused;
	if (ext_loader_check(self))
		return NULL;
	return Py_BuildValue("(KKKK)",
	    (unsigned long long)bale_loader_batches(self->l),
	    (unsigned long long)bale_loader_samples(self->l),
	    (unsigned long long)bale_loader_nbad(self->l),
	    (unsigned long long)bale_loader_nbad_epoch(self->l));
}

static PyObject *ext_loader_close(PyObject *o, PyObject *unused)
{
	ext_loader *self = (ext_loader *)o;
	struct bale_loader *l = self->l;

	(void)unused;
	self->l = NULL;
	Py_BEGIN_ALLOW_THREADS
	bale_loader_free(l);
	Py_END_ALLOW_THREADS
	Py_CLEAR(self->ring);
	Py_RETURN_NONE;
}

static void ext_loader_dealloc(PyObject *o)
{
	ext_loader *self = (ext_loader *)o;

	bale_loader_free(self->l);	/* threads stop before the ring goes */
	Py_CLEAR(self->ring);
	Py_TYPE(o)->tp_free(o);
}

static PyMethodDef ext_loader_methods[] = {
	{ "seek", ext_loader_seek, METH_VARARGS,
	  "seek(epoch, batch): go to that batch of that epoch" },
	{ "next", ext_loader_next, METH_NOARGS,
	  "next() -> (ring slot, samples, batch index), or None at the end" },
	{ "bad", ext_loader_bad, METH_NOARGS,
	  "bad() -> [(sample, why)]: samples that did not decode, each "
	  "once (the first 1000)" },
	{ "counts", ext_loader_counts, METH_NOARGS,
	  "counts() -> (batches per epoch, samples, bad samples, bad "
	  "positions of the epoch so far)" },
	{ "close", ext_loader_close, METH_NOARGS,
	  "close(): stop the threads, release the output" },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject ext_loader_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bale._bale.Loader",
	.tp_basicsize = sizeof(ext_loader),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "the C loader under bale.Loader (use that one)",
	.tp_new = PyType_GenericNew,
	.tp_init = ext_loader_init,
	.tp_dealloc = ext_loader_dealloc,
	.tp_methods = ext_loader_methods,
};
