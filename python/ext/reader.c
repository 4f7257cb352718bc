/* reader.c - _bale.Reader: random access to one packed output.
 *
 * A C reader handle serves one thread at a time, so a Reader keeps a pool
 * of them: a call takes an idle handle (or opens one), reads with the GIL
 * released, straight into a new bytes object, and gives the handle
 * back. Threads may therefore share one Reader and still read in
 * parallel, each on its own handle. The pool is only touched with the GIL
 * held, so it needs no lock of its own (and no lock can be caught
 * mid-fork).
 *
 * A handle made before a fork() is never used after it: in the child the
 * pool is dropped (not closed - the parent still uses those handles, and
 * LMDB forbids touching them in a child) and new handles are opened.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ext_handle {
	struct bale_reader *r;
	pid_t pid;		/* the process that opened it */
};

typedef struct {
	PyObject_HEAD
	char *path;
	char *format;		/* as asked: NULL means recognise it */
	char **opts;		/* key, value, key, value ... */
	size_t nopts;		/* pairs */
	unsigned long generation;	/* ext_fork_generation of the pool */
	struct ext_handle *idle;
	size_t nidle;
	size_t cap;
	uint64_t count;
	char opened_as[32];	/* the format of the first handle */
	PyObject *convert;	/* data -> array, or NULL (_set_convert) */
	int convert_all;	/* every sample, not only .npy ones */
	int closed;		/* close(): no handle is opened again */
} ext_reader;

/* ---- the handle pool -------------------------------------------------- */

/* Open a new handle; without the GIL. @msg gets the reason on failure. */
static int ext_handle_open(ext_reader *self, struct ext_handle *h,
    char *msg, size_t msglen)
{
	size_t i;
	int rc = bale_reader_new(&h->r);

	h->pid = getpid();
	for (i = 0; rc == BALE_OK && i < self->nopts; i++)
		rc = bale_reader_option(h->r, self->opts[2 * i],
		    self->opts[2 * i + 1]);
	if (rc == BALE_OK)
		rc = bale_reader_open(h->r, self->format, self->path);
	if (rc != BALE_OK) {
		snprintf(msg, msglen, "%s", h->r ? bale_reader_errmsg(h->r) :
		    bale_strerror(rc));
		bale_reader_free(h->r);
		h->r = NULL;
	}
	return rc;
}

/* After a fork() the pool holds the parent's handles: forget them. */
static void ext_pool_check_fork(ext_reader *self)
{
	if (self->generation != ext_fork_generation) {
		self->nidle = 0;
		self->generation = ext_fork_generation;
	}
}

/* An idle handle of this process, or one with r == NULL to open. */
static struct ext_handle ext_pool_take(ext_reader *self)
{
	struct ext_handle none = { NULL, 0 };

	ext_pool_check_fork(self);
	return self->nidle ? self->idle[--self->nidle] : none;
}

static void ext_pool_give(ext_reader *self, struct ext_handle h)
{
	struct ext_handle *grown;
	size_t cap = self->cap * 2 + 2;

	if (h.pid != getpid())	/* an ancestor's: neither kept nor closed */
		return;
	if (self->closed) {	/* given back after close(): it goes */
		bale_reader_free(h.r);
		return;
	}
	if (self->nidle == self->cap) {
		grown = realloc(self->idle, cap * sizeof(*grown));
		if (!grown) {
			bale_reader_free(h.r);
			return;
		}
		self->idle = grown;
		self->cap = cap;
	}
	self->idle[self->nidle++] = h;
}

/* Take a handle, opening one if none is idle; -1 with an exception
 * raised when it cannot be opened. */
static int ext_pool_take_open(ext_reader *self, struct ext_handle *h)
{
	char msg[600];
	int rc = BALE_OK;

	if (self->closed) {
		PyErr_SetString(PyExc_ValueError, "the bale.Reader is closed");
		return -1;
	}
	*h = ext_pool_take(self);
	if (h->r)
		return 0;
	Py_BEGIN_ALLOW_THREADS
	rc = ext_handle_open(self, h, msg, sizeof(msg));
	Py_END_ALLOW_THREADS
	if (rc != BALE_OK) {
		ext_raise(rc, msg);
		return -1;
	}
	return 0;
}

/* ---- the type --------------------------------------------------------- */

static int ext_reader_set_options(ext_reader *self, PyObject *options)
{
	PyObject *key;
	PyObject *value;
	Py_ssize_t pos = 0;
	const char *k;
	const char *v;
	size_t n = options ? (size_t)PyDict_Size(options) : 0;

	self->opts = calloc(2 * n + 1, sizeof(char *));
	if (!self->opts) {
		PyErr_NoMemory();
		return -1;
	}
	while (options && PyDict_Next(options, &pos, &key, &value)) {
		k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
		v = PyUnicode_Check(value) ? PyUnicode_AsUTF8(value) : NULL;
		if (!k || !v) {
			if (!PyErr_Occurred())
				PyErr_SetString(PyExc_TypeError,
				    "reader options are str: str");
			return -1;
		}
		self->opts[2 * self->nopts] = strdup(k);
		self->opts[2 * self->nopts + 1] = strdup(v);
		if (!self->opts[2 * self->nopts] ||
		    !self->opts[2 * self->nopts++ + 1]) {
			PyErr_NoMemory();
			return -1;
		}
	}
	return 0;
}

static int ext_reader_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "format", "options", NULL };
	ext_reader *self = (ext_reader *)o;
	PyObject *path = NULL;
	const char *format = NULL;
	PyObject *options = NULL;
	struct ext_handle h;
	int rc;

	if (self->path) {
		PyErr_SetString(PyExc_RuntimeError, "Reader already open");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|zO!", kwlist,
	    PyUnicode_FSConverter, &path, &format, &PyDict_Type, &options))
		return -1;
	self->path = strdup(PyBytes_AS_STRING(path));
	self->format = format ? strdup(format) : NULL;
	Py_DECREF(path);
	if (!self->path || (format && !self->format)) {
		PyErr_NoMemory();
		return -1;
	}
	self->generation = ext_fork_generation;
	if (ext_reader_set_options(self, options) != 0 ||
	    ext_pool_take_open(self, &h) != 0)
		return -1;
	rc = bale_reader_count(h.r, &self->count);
	snprintf(self->opened_as, sizeof(self->opened_as), "%s",
	    bale_reader_format(h.r));
	if (rc != BALE_OK) {
		ext_raise(rc, bale_reader_errmsg(h.r));
		bale_reader_free(h.r);
		return -1;
	}
	ext_pool_give(self, h);
	return 0;
}

static void ext_reader_dealloc(PyObject *o)
{
	ext_reader *self = (ext_reader *)o;
	size_t i;

	ext_pool_check_fork(self);	/* inherited handles: left alone */
	for (i = 0; i < self->nidle; i++)
		bale_reader_free(self->idle[i].r);
	for (i = 0; self->opts && i < 2 * self->nopts; i++)
		free(self->opts[i]);
	free(self->opts);
	free(self->idle);
	free(self->path);
	free(self->format);
	Py_CLEAR(self->convert);
	Py_TYPE(o)->tp_free(o);
}

static Py_ssize_t ext_reader_len(PyObject *o)
{
	return (Py_ssize_t)((ext_reader *)o)->count;
}

static PyObject *ext_str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeFSDefault(s);
}

static const unsigned char ext_npy_magic[6] = "\x93NUMPY";

/* @data as the caller sees it: an array for --pixels outputs (the
 * converter the bale package set), else the bytes. Steals @data. */
static PyObject *ext_sample_data(ext_reader *self, PyObject *data)
{
	PyObject *array;

	if (!self->convert || (!self->convert_all &&
	    (PyBytes_GET_SIZE(data) < 6 || memcmp(PyBytes_AS_STRING(data),
	    ext_npy_magic, 6) != 0)))
		return data;
	array = PyObject_CallOneArg(self->convert, data);
	Py_DECREF(data);
	return array;
}

/* A bale.Sample of @b; @data is the bytes object the sample was read
 * into (a reference stolen). */
static PyObject *ext_blob_sample(ext_reader *self, const struct bale_blob *b,
    PyObject *data)
{
	PyObject *s = PyStructSequence_New(ext_sample_type);
	PyObject *v[5];
	int i;

	v[0] = ext_sample_data(self, data);
	v[1] = PyLong_FromLongLong((long long)b->label);
	v[2] = ext_str_or_none(b->key);
	v[3] = ext_str_or_none(b->path);
	v[4] = b->has_crc32 ? PyLong_FromUnsignedLong(b->crc32) :
	    (Py_INCREF(Py_None), Py_None);
	for (i = 0; i < 5; i++) {
		if (!v[i] || !s)
			Py_CLEAR(s);
		if (s)
			PyStructSequence_SET_ITEM(s, i, v[i]);
		else
			Py_XDECREF(v[i]);
	}
	return s;
}

/* A get in progress without the GIL: the thread state to take it back
 * with, and the bytes object the sample's data is read into. */
struct ext_dest {
	PyThreadState *ts;
	PyObject *bytes;
};

/* A new bytes object of @size to read into, or NULL with no exception
 * set: the reader reports a missing buffer as no memory itself. */
static PyObject *ext_new_bytes(size_t size)
{
	PyObject *bytes = NULL;

	if (size <= (size_t)PY_SSIZE_T_MAX)
		bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
	PyErr_Clear();
	return bytes;
}

/* bale_dest_fn: a bytes object of @size for the reader to read into,
 * so the sample reaches Python without a copy: the one made before the
 * read when the reader knew the size, else a new one, for which the
 * GIL is taken back just that long (a round trip that costs a second
 * thread reading at once more than the allocation itself). */
static void *ext_dest_bytes(void *ctx, size_t size)
{
	struct ext_dest *d = ctx;

	if (d->bytes && (size_t)PyBytes_GET_SIZE(d->bytes) == size)
		return PyBytes_AS_STRING(d->bytes);
	PyEval_RestoreThread(d->ts);
	Py_XSETREF(d->bytes, ext_new_bytes(size));
	d->ts = PyEval_SaveThread();
	return d->bytes ? PyBytes_AS_STRING(d->bytes) : NULL;
}

static PyObject *ext_reader_item(PyObject *o, Py_ssize_t i)
{
	ext_reader *self = (ext_reader *)o;
	struct ext_dest dest = { NULL, NULL };
	struct bale_blob blob;
	struct ext_handle h;
	PyObject *t;
	size_t size;
	int rc;

	if (i < 0 || (uint64_t)i >= self->count) {
		PyErr_SetString(PyExc_IndexError, "sample index out of range");
		return NULL;
	}
	if (ext_pool_take_open(self, &h) != 0)
		return NULL;
	if (bale_reader_size(h.r, (uint64_t)i, &size) == BALE_OK)
		dest.bytes = ext_new_bytes(size);	/* NULL: asked again */
	bale_reader_set_dest(h.r, ext_dest_bytes, &dest);
	dest.ts = PyEval_SaveThread();
	rc = bale_reader_get(h.r, (uint64_t)i, &blob);
	PyEval_RestoreThread(dest.ts);
	bale_reader_set_dest(h.r, NULL, NULL);
	if (rc != BALE_OK || !dest.bytes) {
		Py_XDECREF(dest.bytes);
		ext_raise(rc != BALE_OK ? rc : BALE_ENOMEM,
		    bale_reader_errmsg(h.r));
		ext_pool_give(self, h);
		return NULL;
	}
	/* before the handle, which owns the key, is given back */
	t = ext_blob_sample(self, &blob, dest.bytes);
	ext_pool_give(self, h);
	return t;
}

/* r[i] with negative i from the end, or r[a:b:c] as a list. */
static PyObject *ext_reader_subscript(PyObject *o, PyObject *key)
{
	Py_ssize_t n = (Py_ssize_t)((ext_reader *)o)->count;
	Py_ssize_t i, start, stop, step, len;
	PyObject *list;
	PyObject *s;

	if (PyIndex_Check(key)) {
		i = PyNumber_AsSsize_t(key, PyExc_IndexError);
		if (i == -1 && PyErr_Occurred())
			return NULL;
		return ext_reader_item(o, i < 0 ? i + n : i);
	}
	if (!PySlice_Check(key))
		return PyErr_Format(PyExc_TypeError, "sample indices are "
		    "integers or slices, not %.200s", Py_TYPE(key)->tp_name);
	if (PySlice_Unpack(key, &start, &stop, &step) < 0)
		return NULL;
	len = PySlice_AdjustIndices(n, &start, &stop, step);
	list = PyList_New(len);
	for (i = 0; list && i < len; i++) {
		s = ext_reader_item(o, start + i * step);
		if (!s)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, i, s);
	}
	return list;
}

/* The bale package's hook for --pixels outputs: @convert(bytes) makes
 * the array; called for every sample when @always, else for .npy
 * ones. None: bytes as they are. */
static PyObject *ext_reader_set_convert(PyObject *o, PyObject *args)
{
	ext_reader *self = (ext_reader *)o;
	PyObject *convert;
	int always = 0;

	if (!PyArg_ParseTuple(args, "O|p", &convert, &always))
		return NULL;
	if (convert != Py_None && !PyCallable_Check(convert)) {
		PyErr_SetString(PyExc_TypeError, "convert must be callable");
		return NULL;
	}
	Py_XDECREF(self->convert);
	self->convert = convert == Py_None ? NULL : (Py_INCREF(convert),
	    convert);
	self->convert_all = always;
	Py_RETURN_NONE;
}

/* Every sample's label, in order; the formats that keep labels apart
 * (all of bale's) give them without reading the samples' bytes. */
static PyObject *ext_reader_labels(PyObject *o, PyObject *unused)
{
	ext_reader *self = (ext_reader *)o;
	int64_t *labels = malloc((size_t)(self->count + 1) * sizeof(*labels));
	struct ext_handle h;
	PyObject *list = NULL;
	PyObject *v;
	uint64_t i;
	int rc = BALE_OK;

	(void)unused;
	if (!labels)
		return PyErr_NoMemory();
	if (ext_pool_take_open(self, &h) != 0) {
		free(labels);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = bale_reader_labels(h.r, 0, self->count, labels);
	Py_END_ALLOW_THREADS
	if (rc != BALE_OK)
		ext_raise(rc, bale_reader_errmsg(h.r));
	else
		list = PyList_New((Py_ssize_t)self->count);
	for (i = 0; list && i < self->count; i++) {
		v = PyLong_FromLongLong((long long)labels[i]);
		if (!v)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, v);
	}
	ext_pool_give(self, h);
	free(labels);
	return list;
}

/* _labels_into(buffer, first): the labels of samples first, first + 1,
 * ... into a writable buffer of int64 (as many as it holds), from the
 * output's index where it keeps one: no Python object per label. */
static PyObject *ext_reader_labels_into(PyObject *o, PyObject *args)
{
	ext_reader *self = (ext_reader *)o;
	unsigned long long first = 0;
	struct ext_handle h;
	Py_buffer view;
	uint64_t n;
	int rc;

	if (!PyArg_ParseTuple(args, "w*|K", &view, &first))
		return NULL;
	n = (uint64_t)view.len / sizeof(int64_t);
	if ((size_t)view.len % sizeof(int64_t) != 0 || first > self->count ||
	    n > self->count - first) {
		PyBuffer_Release(&view);
		PyErr_SetString(PyExc_IndexError, "labels past the last "
		    "sample, or a buffer not of int64");
		return NULL;
	}
	if (ext_pool_take_open(self, &h) != 0) {
		PyBuffer_Release(&view);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = bale_reader_labels(h.r, first, n, view.buf);
	Py_END_ALLOW_THREADS
	if (rc != BALE_OK)
		ext_raise(rc, bale_reader_errmsg(h.r));
	ext_pool_give(self, h);
	PyBuffer_Release(&view);
	if (rc != BALE_OK)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *ext_reader_info(PyObject *o, PyObject *unused)
{
	ext_reader *self = (ext_reader *)o;
	struct ext_handle h;
	const char *json = NULL;
	PyObject *s = NULL;
	int rc;

	(void)unused;
	if (ext_pool_take_open(self, &h) != 0)
		return NULL;
	rc = bale_reader_info(h.r, &json);
	s = rc == BALE_OK ? PyUnicode_FromString(json ? json : "{}") :
	    ext_raise(rc, bale_reader_errmsg(h.r));
	ext_pool_give(self, h);
	return s;
}

static PyObject *ext_reader_files(PyObject *o, PyObject *unused)
{
	ext_reader *self = (ext_reader *)o;
	const char *const *list = NULL;
	struct ext_handle h;
	PyObject *files = NULL;
	PyObject *name;
	int rc;

	(void)unused;
	if (ext_pool_take_open(self, &h) != 0)
		return NULL;
	rc = bale_reader_files(h.r, &list);
	if (rc != BALE_OK)
		ext_raise(rc, bale_reader_errmsg(h.r));
	else
		files = PyList_New(0);
	for (; files && list && *list; list++) {
		name = PyUnicode_DecodeFSDefault(*list);
		if (!name || PyList_Append(files, name) != 0)
			Py_CLEAR(files);
		Py_XDECREF(name);
	}
	ext_pool_give(self, h);
	return files;
}

/* For tests: the process that opened each handle the next call may
 * use. */
static PyObject *ext_reader_handle_pids(PyObject *o, PyObject *unused)
{
	ext_reader *self = (ext_reader *)o;
	PyObject *list;
	size_t i;

	(void)unused;
	ext_pool_check_fork(self);
	list = PyList_New((Py_ssize_t)self->nidle);
	for (i = 0; list && i < self->nidle; i++)
		PyList_SET_ITEM(list, (Py_ssize_t)i,
		    PyLong_FromLong((long)self->idle[i].pid));
	return list;
}

static PyObject *ext_reader_format(PyObject *o, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(((ext_reader *)o)->opened_as);
}

static PyObject *ext_reader_path(PyObject *o, void *closure)
{
	(void)closure;
	return PyUnicode_DecodeFSDefault(((ext_reader *)o)->path);
}

/* Free the idle handles (their files and maps); a handle in use by
 * another thread goes when it is given back. */
static PyObject *ext_reader_close(PyObject *o, PyObject *unused)
{
	ext_reader *self = (ext_reader *)o;
	size_t i;

	(void)unused;
	ext_pool_check_fork(self);	/* inherited handles: left alone */
	for (i = 0; i < self->nidle; i++)
		bale_reader_free(self->idle[i].r);
	self->nidle = 0;
	self->closed = 1;
	Py_RETURN_NONE;
}

static PyMethodDef ext_reader_methods[] = {
	{ "close", ext_reader_close, METH_NOARGS,
	  "close() -> release the output's files; later reads raise "
	  "ValueError (also when the Reader is used as a context manager)" },
	{ "labels", ext_reader_labels, METH_NOARGS,
	  "labels() -> every sample's label, in order, without reading the "
	  "samples' bytes (bale's formats keep labels apart)" },
	{ "_labels_into", ext_reader_labels_into, METH_VARARGS,
	  "_labels_into(buffer, first=0): labels from first on into an "
	  "int64 buffer" },
	{ "_info_json", ext_reader_info, METH_NOARGS,
	  "JSON text of what the output records about itself" },
	{ "_set_convert", ext_reader_set_convert, METH_VARARGS,
	  "_set_convert(fn, always=False): fn(bytes) -> the sample's data" },
	{ "files", ext_reader_files, METH_NOARGS,
	  "files() -> the files that back the output" },
	{ "_handle_pids", ext_reader_handle_pids, METH_NOARGS,
	  "the process that opened each idle handle (for tests)" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef ext_reader_getset[] = {
	{ "format", ext_reader_format, NULL, "the output's format", NULL },
	{ "path", ext_reader_path, NULL, "the path it was opened with", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PySequenceMethods ext_reader_seq = {
	.sq_length = ext_reader_len,
	.sq_item = ext_reader_item,
};

static PyMappingMethods ext_reader_map = {
	.mp_length = ext_reader_len,
	.mp_subscript = ext_reader_subscript,
};

PyTypeObject ext_reader_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bale._bale.Reader",
	.tp_basicsize = sizeof(ext_reader),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Reader(path, format=None, options=None): one packed "
	    "output; r[i] -> bale.Sample (bale.Reader is the one to use)",
	.tp_new = PyType_GenericNew,
	.tp_init = ext_reader_init,
	.tp_dealloc = ext_reader_dealloc,
	.tp_as_sequence = &ext_reader_seq,
	.tp_as_mapping = &ext_reader_map,
	.tp_methods = ext_reader_methods,
	.tp_getset = ext_reader_getset,
};
