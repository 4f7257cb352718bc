/* merge.c - _bale.merge(): bale merge, the parts of one run joined. */
#include "ext.h"

/* The part folders as file-system paths: bytes objects in @keep, their
 * strings in a new array (NULL-terminated). */
static const char **ext_merge_parts(PyObject *seq, PyObject *keep)
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

PyObject *ext_merge(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "out", "parts", "formats", "name", "copy",
	    "replace", NULL };
	struct bale_merge_opts o = { NULL, NULL, 0, 0 };
	PyObject *out = NULL, *seq = NULL, *result = NULL;
	PyObject *keep = PyList_New(0);
	const char **parts = NULL;
	char msg[600];
	size_t n = 0;
	int rc;

	(void)self;
	if (!keep || !PyArg_ParseTupleAndKeywords(args, kw, "O&O|zzpp", kwlist,
	    PyUnicode_FSConverter, &out, &seq, &o.formats, &o.name, &o.copy,
	    &o.replace) || !(parts = ext_merge_parts(seq, keep)))
		goto done;
	while (parts[n])
		n++;
	Py_BEGIN_ALLOW_THREADS
	rc = bale_merge_parts(PyBytes_AS_STRING(out), parts, n, &o, msg,
	    sizeof(msg));
	Py_END_ALLOW_THREADS
	if (rc != BALE_OK)
		ext_raise(rc, msg);
	else
		result = Py_NewRef(Py_None);
done:
	PyMem_Free(parts);
	Py_XDECREF(keep);
	Py_XDECREF(out);
	return result;
}
