/* module.c - bale._bale: the exceptions, the small functions, and the
 * module's set-up. The Python-facing API is the bale package around it
 * (python/bale/__init__.py). */
#include "ext.h"

#include "bale_store.h"

#include <pthread.h>

PyObject *ext_error;
PyObject *ext_not_found;
unsigned long ext_fork_generation;

static void ext_after_fork_child(void)
{
	ext_fork_generation++;
}

PyObject *ext_raise(int rc, const char *msg)
{
	PyObject *type = ext_error;

	if (rc == BALE_ENOMEM)
		return PyErr_NoMemory();
	if (rc == BALE_ENOENT)
		type = ext_not_found;
	PyErr_SetString(type, msg && msg[0] ? msg : bale_strerror(rc));
	return NULL;
}

static PyObject *ext_output_format(PyObject *self, PyObject *arg)
{
	PyObject *path = NULL;
	const char *format;

	(void)self;
	if (!PyUnicode_FSConverter(arg, &path))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	format = bale_output_format(PyBytes_AS_STRING(path));
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	if (!format)
		Py_RETURN_NONE;
	return PyUnicode_FromString(format);
}

static PyObject *ext_output_pick(PyObject *self, PyObject *arg)
{
	PyObject *keep = PyList_New(0);
	const char **paths = keep ? ext_path_array(arg, keep) : NULL;
	size_t n = 0;
	long pick;

	(void)self;
	if (!paths) {
		Py_XDECREF(keep);
		return NULL;
	}
	while (paths[n])
		n++;
	Py_BEGIN_ALLOW_THREADS
	pick = bale_output_pick(paths, n, NULL, 0);
	Py_END_ALLOW_THREADS
	PyMem_Free(paths);
	Py_DECREF(keep);
	return PyLong_FromLong(pick);
}

/* @paths as a list of str (file system encoded), or NULL with an
 * exception. */
static PyObject *ext_path_list(char **paths, size_t n)
{
	PyObject *list = PyList_New(0);
	PyObject *item;
	size_t i;

	for (i = 0; list && i < n; i++) {
		item = PyUnicode_DecodeFSDefault(paths[i]);
		if (!item || PyList_Append(list, item) != 0) {
			Py_XDECREF(item);
			Py_CLEAR(list);
		}
		Py_XDECREF(item);
	}
	return list;
}

static PyObject *ext_outputs_in(PyObject *self, PyObject *args)
{
	PyObject *dir = NULL, *list = NULL;
	const char *format = NULL;
	char **paths = NULL;
	size_t n = 0;
	int rc;

	(void)self;
	if (!PyArg_ParseTuple(args, "O&z", PyUnicode_FSConverter, &dir,
	    &format))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = bale_outputs_in(PyBytes_AS_STRING(dir), format, &paths, &n);
	Py_END_ALLOW_THREADS
	if (rc == BALE_OK)
		list = ext_path_list(paths, n);
	else
		ext_raise(rc, rc == BALE_ENOENT ? "not a folder" : NULL);
	bale_outputs_free(paths, n);
	Py_DECREF(dir);
	return list;
}

/* What is at a path or URL, through bale's stores (local files, s3://,
 * https://): (is_dir, size); a name with nothing there raises
 * NotFoundError, a store's refusal Error, with the store's words. */
static PyObject *ext_store_stat(PyObject *self, PyObject *arg)
{
	PyObject *path = NULL;
	struct bale_store_stat st;
	struct bale_errbuf err;
	int rc;

	(void)self;
	if (!PyUnicode_FSConverter(arg, &path))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = bale_store_stat(PyBytes_AS_STRING(path), &st, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	if (rc != BALE_OK)
		return ext_raise(rc, err.msg);
	return Py_BuildValue("(OK)", st.is_dir ? Py_True : Py_False,
	    (unsigned long long)st.size);
}

/* (requests, bytes, seconds waited) of this process's stores so far. */
static PyObject *ext_store_counts(PyObject *self, PyObject *unused)
{
	uint64_t requests, bytes, wait_ns;

	(void)self;
	(void)unused;
	bale_store_counts(&requests, &bytes, &wait_ns);
	return Py_BuildValue("(KKd)", (unsigned long long)requests,
	    (unsigned long long)bytes, (double)wait_ns / 1e9);
}

/* Bytes [off, off + n) of a file in any store, fewer at its end: what
 * ShardStream reads an object store's shards with, in large pieces; with
 * the file's size given, a remote store is not asked for it each time. */
static PyObject *ext_store_read(PyObject *self, PyObject *args)
{
	PyObject *path = NULL, *out = NULL;
	unsigned long long off, n, size = 0;
	struct bale_errbuf err;
	struct bale_sfile *f = NULL;
	int rc;

	(void)self;
	if (!PyArg_ParseTuple(args, "O&KK|K", PyUnicode_FSConverter, &path,
	    &off, &n, &size))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = bale_sfile_open_sized(&f, PyBytes_AS_STRING(path), size, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	if (rc != BALE_OK)
		return ext_raise(rc, err.msg);
	off = off < bale_sfile_size(f) ? off : bale_sfile_size(f);
	n = n < bale_sfile_size(f) - off ? n : bale_sfile_size(f) - off;
	out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
	if (out) {
		Py_BEGIN_ALLOW_THREADS
		rc = bale_sfile_pread(f, PyBytes_AS_STRING(out), (size_t)n, off,
		    &err);
		Py_END_ALLOW_THREADS
	}
	bale_sfile_close(f);
	if (out && rc != BALE_OK) {
		Py_CLEAR(out);
		ext_raise(rc, err.msg);
	}
	return out;
}

static int ext_list_entry(void *arg, const char *entry, int is_dir)
{
	PyObject *item = Py_BuildValue("(sO)", entry, is_dir ? Py_True :
	    Py_False);
	int rc = item ? PyList_Append(arg, item) : -1;

	Py_XDECREF(item);
	return rc == 0 ? 0 : BALE_ENOMEM;
}

/* [(name, is_dir)] of a folder (an object store's prefix) in any store. */
static PyObject *ext_store_list(PyObject *self, PyObject *arg)
{
	PyObject *path = NULL, *list = PyList_New(0);
	struct bale_errbuf err;
	int rc;

	(void)self;
	if (!list || !PyUnicode_FSConverter(arg, &path)) {
		Py_XDECREF(list);
		return NULL;
	}
	/* the callback makes Python objects: the GIL stays held */
	rc = bale_store_list(PyBytes_AS_STRING(path), ext_list_entry, list,
	    &err);
	Py_DECREF(path);
	if (rc != BALE_OK) {
		Py_DECREF(list);
		return PyErr_Occurred() ? NULL : ext_raise(rc, err.msg);
	}
	return list;
}

static PyObject *ext_backend_names(PyObject *self, PyObject *unused)
{
	const char *const *names = bale_backend_names();
	PyObject *list = PyList_New(0);
	PyObject *name;

	(void)self;
	(void)unused;
	for (; list && *names; names++) {
		name = PyUnicode_FromString(*names);
		if (!name || PyList_Append(list, name) != 0) {
			Py_XDECREF(name);
			Py_CLEAR(list);
			break;
		}
		Py_DECREF(name);
	}
	return list;
}

static PyMethodDef ext_methods[] = {
	{ "output_format", ext_output_format, METH_O,
	  "output_format(path) -> the format of the output at path, or None" },
	{ "output_pick", ext_output_pick, METH_O,
	  "output_pick(paths) -> the index of the output a reader takes (of "
	  "one dataset's, the format that reads fastest at random), or -1" },
	{ "store_counts", ext_store_counts, METH_NOARGS,
	  "store_counts() -> (HTTP requests sent, body bytes received, "
	  "seconds readers waited for them)" },
	{ "store_read", ext_store_read, METH_VARARGS,
	  "store_read(path, off, n, size=0) -> bytes of a file in any store "
	  "(its size, when known, spares asking it)" },
	{ "store_list", ext_store_list, METH_O,
	  "store_list(dir) -> [(name, is_dir)] of a folder in any store" },
	{ "store_stat", ext_store_stat, METH_O,
	  "store_stat(path) -> (is_dir, size) of a path or URL" },
	{ "outputs_in", ext_outputs_in, METH_VARARGS,
	  "outputs_in(dir, format) -> the outputs in folder dir (of format, "
	  "if not None), sorted by name" },
	{ "backend_names", ext_backend_names, METH_NOARGS,
	  "backend_names() -> the formats built into the library" },
	{ "pack", (PyCFunction)(void (*)(void))ext_pack,
	  METH_VARARGS | METH_KEYWORDS,
	  "pack(src, out, formats, ...) -> statistics; see bale.pack" },
	{ "merge", (PyCFunction)(void (*)(void))ext_merge,
	  METH_VARARGS | METH_KEYWORDS,
	  "merge(out, parts, formats, name, copy, replace); see bale.merge" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef ext_module = {
	PyModuleDef_HEAD_INIT, "_bale",
	"The C part of the bale package: use bale, not this.", -1,
	ext_methods, NULL, NULL, NULL, NULL,
};

static int ext_add_errors(PyObject *m)
{
	PyObject *bases;

	ext_error = PyErr_NewExceptionWithDoc("bale.Error",
	    "A bale call failed; the message says why.", NULL, NULL);
	if (!ext_error)
		return -1;
	bases = Py_BuildValue("(OO)", ext_error, PyExc_FileNotFoundError);
	if (!bases)
		return -1;
	ext_not_found = PyErr_NewExceptionWithDoc("bale.NotFoundError",
	    "No such output, file or format.", bases, NULL);
	Py_DECREF(bases);
	if (!ext_not_found)
		return -1;
	Py_INCREF(ext_error);
	Py_INCREF(ext_not_found);
	if (PyModule_AddObject(m, "Error", ext_error) != 0 ||
	    PyModule_AddObject(m, "NotFoundError", ext_not_found) != 0)
		return -1;
	return 0;
}

const char **ext_path_array(PyObject *seq, PyObject *keep)
{
	Py_ssize_t n = PySequence_Size(seq);
	const char **a;
	PyObject *item, *bytes;
	Py_ssize_t i;

	if (n < 0)
		return NULL;
	a = PyMem_Calloc((size_t)n + 1, sizeof(char *));
	if (!a)
		return (const char **)PyErr_NoMemory();
	for (i = 0; i < n; i++) {
		item = PySequence_GetItem(seq, i);
		bytes = NULL;
		if (!item || !PyUnicode_FSConverter(item, &bytes) ||
		    PyList_Append(keep, bytes) != 0) {
			Py_XDECREF(item);
			Py_XDECREF(bytes);
			PyMem_Free(a);
			return NULL;
		}
		a[i] = PyBytes_AS_STRING(bytes);
		Py_DECREF(bytes);	/* @keep holds it */
		Py_DECREF(item);
	}
	return a;
}

PyTypeObject *ext_sample_type;

static PyStructSequence_Field ext_sample_fields[] = {
	{ "data", "the stored bytes; for outputs made with --pixels, a "
	  "read-only numpy uint8 array of H x W x 3" },
	{ "label", "the class index (-1: none)" },
	{ "key", "the sample's key in the output" },
	{ "path", "its source path below the packed folder (None when the "
	  "output does not record it, or the Reader was opened with "
	  "meta=False)" },
	{ "crc32", "the stored zlib CRC-32 of data's bytes, or None" },
	{ NULL, NULL },
};

static PyStructSequence_Desc ext_sample_desc = {
	"bale.Sample", "One stored sample: (data, label, key, path, crc32).",
	ext_sample_fields, 5,
};

/* A sample without its bytes: how many, or the array's shape. */
static PyObject *ext_sample_repr(PyObject *o)
{
	PyObject *data = PyStructSequence_GetItem(o, 0);
	PyObject *dims = PyBytes_Check(data) ? NULL :
	    PyObject_GetAttrString(data, "shape");
	PyObject *shape;
	PyObject *r;

	PyErr_Clear();		/* no shape: not an array */
	if (PyBytes_Check(data))
		shape = PyUnicode_FromFormat("<%zd bytes>",
		    PyBytes_GET_SIZE(data));
	else if (dims)
		shape = PyUnicode_FromFormat("<array %R>", dims);
	else
		shape = PyObject_Repr(data);
	Py_XDECREF(dims);
	if (!shape)
		return NULL;
	r = PyUnicode_FromFormat("bale.Sample(data=%U, label=%R, key=%R, "
	    "path=%R, crc32=%R)", shape, PyStructSequence_GetItem(o, 1),
	    PyStructSequence_GetItem(o, 2), PyStructSequence_GetItem(o, 3),
	    PyStructSequence_GetItem(o, 4));
	Py_DECREF(shape);
	return r;
}

PyMODINIT_FUNC PyInit__bale(void)
{
	PyObject *m;

	if (PyType_Ready(&ext_reader_type) != 0 ||
	    PyType_Ready(&ext_loader_type) != 0)
		return NULL;
	ext_sample_type = PyStructSequence_NewType(&ext_sample_desc);
	if (!ext_sample_type)
		return NULL;
	ext_sample_type->tp_repr = ext_sample_repr;
	m = PyModule_Create(&ext_module);
	if (!m)
		return NULL;
	Py_INCREF(&ext_reader_type);
	Py_INCREF(&ext_loader_type);
	Py_INCREF(ext_sample_type);	/* one for the module, one kept */
	if (ext_add_errors(m) != 0 ||
	    PyModule_AddObject(m, "Reader", (PyObject *)&ext_reader_type) ||
	    PyModule_AddObject(m, "Loader", (PyObject *)&ext_loader_type) ||
	    PyModule_AddObject(m, "Sample", (PyObject *)ext_sample_type) ||
	    PyModule_AddStringConstant(m, "version", bale_version()) != 0 ||
	    pthread_atfork(NULL, NULL, ext_after_fork_child) != 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
