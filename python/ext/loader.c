/* loader.c - _bale.Loader: the C loader (bale_loader_*) for the Python
 * bale.Loader around it (python/bale/_loader.py), which owns the ring's
 * buffers (tensors or arrays) and hands their addresses in. Waiting for
 * a batch, seeking and closing release the GIL. */
#include "ext.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* The loader's options, by keyword: one line each, what the value is
 * and where it goes in struct bale_loader_opts. */
enum ext_opt_kind {
	EXT_OPT_UINT, EXT_OPT_INT, EXT_OPT_BOOL, EXT_OPT_DOUBLE, EXT_OPT_U64,
	EXT_OPT_STR, EXT_OPT_FLOAT3,
};

#define EXT_OPT(key, kind, field) \
	{ key, kind, offsetof(struct bale_loader_opts, field) }

static const struct ext_loader_opt {
	const char *key;
	enum ext_opt_kind kind;
	size_t at;
} ext_loader_opts[] = {
	EXT_OPT("batch_size", EXT_OPT_UINT, batch_size),
	EXT_OPT("width", EXT_OPT_INT, width),
	EXT_OPT("height", EXT_OPT_INT, height),
	EXT_OPT("train", EXT_OPT_BOOL, train),
	EXT_OPT("resize", EXT_OPT_INT, resize),
	EXT_OPT("scale_lo", EXT_OPT_DOUBLE, scale[0]),
	EXT_OPT("scale_hi", EXT_OPT_DOUBLE, scale[1]),
	EXT_OPT("ratio_lo", EXT_OPT_DOUBLE, ratio[0]),
	EXT_OPT("ratio_hi", EXT_OPT_DOUBLE, ratio[1]),
	EXT_OPT("shuffle", EXT_OPT_BOOL, shuffle),
	EXT_OPT("seed", EXT_OPT_U64, seed),
	EXT_OPT("rank", EXT_OPT_UINT, rank),
	EXT_OPT("world_size", EXT_OPT_UINT, world_size),
	EXT_OPT("drop_last", EXT_OPT_BOOL, drop_last),
	EXT_OPT("threads", EXT_OPT_UINT, threads),
	EXT_OPT("prefetch", EXT_OPT_UINT, prefetch),
	EXT_OPT("io_requests", EXT_OPT_UINT, io_requests),
	EXT_OPT("io_bytes", EXT_OPT_U64, io_bytes),
	EXT_OPT("run_samples", EXT_OPT_UINT, run_samples),
	EXT_OPT("run_window", EXT_OPT_UINT, run_window),
	EXT_OPT("channels_last", EXT_OPT_BOOL, channels_last),
	EXT_OPT("exact", EXT_OPT_BOOL, exact),
	EXT_OPT("exif", EXT_OPT_BOOL, exif),
	EXT_OPT("strict", EXT_OPT_BOOL, strict),
	EXT_OPT("on_bad", EXT_OPT_INT, on_bad),
	EXT_OPT("format", EXT_OPT_STR, format),
	EXT_OPT("mean", EXT_OPT_FLOAT3, mean),
	EXT_OPT("std", EXT_OPT_FLOAT3, std),
};

/* Three numbers of @v into @out. */
static int ext_loader_float3(PyObject *v, float *out)
{
	double d[3];

	if (!PyArg_ParseTuple(v, "ddd", &d[0], &d[1], &d[2]))
		return -1;
	out[0] = (float)d[0];
	out[1] = (float)d[1];
	out[2] = (float)d[2];
	return 0;
}

/* Option @o's value @v into @opts. */
static int ext_loader_set(struct bale_loader_opts *opts,
    const struct ext_loader_opt *o, PyObject *v)
{
	char *at = (char *)opts + o->at;
	unsigned long long u;
	long i;

	switch (o->kind) {
	case EXT_OPT_UINT:
		u = PyLong_AsUnsignedLongLong(v);
		*(unsigned *)at = (unsigned)u;
		return PyErr_Occurred() || u > UINT32_MAX ? -1 : 0;
	case EXT_OPT_INT:
		i = PyLong_AsLong(v);
		*(int *)at = (int)i;
		return PyErr_Occurred() || i < INT32_MIN || i > INT32_MAX ? -1 :
		    0;
	case EXT_OPT_BOOL:
		*(int *)at = PyObject_IsTrue(v);
		return *(int *)at < 0 ? -1 : 0;
	case EXT_OPT_DOUBLE:
		*(double *)at = PyFloat_AsDouble(v);
		return PyErr_Occurred() ? -1 : 0;
	case EXT_OPT_U64:
		*(uint64_t *)at = PyLong_AsUnsignedLongLong(v);
		return PyErr_Occurred() ? -1 : 0;
	case EXT_OPT_STR:
		*(const char **)at = v == Py_None ? NULL : PyUnicode_AsUTF8(v);
		return PyErr_Occurred() ? -1 : 0;
	case EXT_OPT_FLOAT3:
		opts->normalize = 1;
		return ext_loader_float3(v, (float *)at);
	}
	return -1;
}

/* @kw's options into @opts; an unknown key is a TypeError. The strings
 * stay @kw's. */
static int ext_loader_options(PyObject *kw, struct bale_loader_opts *opts)
{
	PyObject *key, *v;
	Py_ssize_t pos = 0;
	const char *name;
	size_t i, n = sizeof(ext_loader_opts) / sizeof(ext_loader_opts[0]);

	while (kw && PyDict_Next(kw, &pos, &key, &v)) {
		name = PyUnicode_AsUTF8(key);
		for (i = 0; name && i < n; i++)
			if (strcmp(ext_loader_opts[i].key, name) == 0)
				break;
		if (!name || i == n) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_TypeError, "Loader: no "
				    "option '%s'", name);
			return -1;
		}
		if (ext_loader_set(opts, &ext_loader_opts[i], v) != 0) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_ValueError, "Loader: "
				    "'%s' is out of range", name);
			return -1;
		}
	}
	return 0;
}

/* Loader(path, ring_images, ring_labels, ring, **options) */
static int ext_loader_init(PyObject *o, PyObject *args, PyObject *kw)
{
	ext_loader *self = (ext_loader *)o;
	struct bale_loader_opts opts = { 0 };
	void *img[EXT_LOADER_MAX_RING];
	int64_t *lab[EXT_LOADER_MAX_RING];
	PyObject *path = NULL, *images, *labels, *ring;
	char msg[600];
	int rc;

	if (self->l) {
		PyErr_SetString(PyExc_RuntimeError, "Loader already open");
		return -1;
	}
	if (!PyArg_ParseTuple(args, "O&OOO", PyUnicode_FSConverter, &path,
	    &images, &labels, &ring))
		return -1;
	if (ext_loader_options(kw, &opts) != 0) {
		Py_DECREF(path);
		return -1;
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
