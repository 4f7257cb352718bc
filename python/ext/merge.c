/* merge.c - _bale.merge(): bale merge, the parts of one run joined. */
#include "ext.h"

PyObject *ext_merge(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "out", "parts", "formats", "name", "copy",
	    "replace", NULL };
	struct bale_merge_opts o = { NULL, NULL, 0, 0 };
	PyObject *out = NULL, *seq = NULL, *result = NULL;
	PyObject *keep = PyList_New(0);
	const char **parts = NULL;
	struct bale_errbuf err;
	char msg[600];
	size_t n = 0;
	int rc;

	(void)self;
	if (!keep || !PyArg_ParseTupleAndKeywords(args, kw, "O&O|zzpp", kwlist,
	    PyUnicode_FSConverter, &out, &seq, &o.formats, &o.name, &o.copy,
	    &o.replace) || !(parts = ext_path_array(seq, keep)))
		goto done;
	while (parts[n])
		n++;
	Py_BEGIN_ALLOW_THREADS
	rc = bale_merge_parts(PyBytes_AS_STRING(out), parts, n, &o, &err);
	Py_END_ALLOW_THREADS
	if (rc != BALE_OK) {
		/* the remedy in this API's words */
		snprintf(msg, sizeof(msg), "%s%s", err.msg,
		    err.remedy == BALE_REMEDY_REPLACE ?
		    " (pass replace=True to replace it)" : "");
		ext_raise(rc, msg);
	}
	else
		result = Py_NewRef(Py_None);
done:
	PyMem_Free(parts);
	Py_XDECREF(keep);
	Py_XDECREF(out);
	return result;
}
