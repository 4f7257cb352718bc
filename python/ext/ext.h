/* ext.h - the parts of the bale._bale extension module (python/ext/). It
 * is built against include/ only: what Python gets is the public API. */
#ifndef BALE_EXT_H
#define BALE_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "bale.h"

/* bale.Error, and bale.NotFoundError (also a FileNotFoundError). */
extern PyObject *ext_error;
extern PyObject *ext_not_found;

/* Bumped in every child process right after fork(): a handle made in an
 * earlier generation belongs to an ancestor and must not be used. */
extern unsigned long ext_fork_generation;

/** Raise the exception for bale code @rc with message @msg; NULL. */
PyObject *ext_raise(int rc, const char *msg);

/** The items of @seq (str, bytes or path-like: paths, and the pack's
 *  option strings) as the file system encodes them: bytes objects
 *  appended to list @keep, their strings in a new array (NULL-terminated,
 *  PyMem_Free it); NULL with an exception set. */
const char **ext_path_array(PyObject *seq, PyObject *keep);

extern PyTypeObject ext_reader_type;
extern PyTypeObject ext_loader_type;	/* loader.c */

/* bale.Sample, a struct sequence: (data, label, key, path, crc32). */
extern PyTypeObject *ext_sample_type;

/** _bale.pack(...): run the pipeline (reader.c's sibling, pack.c). */
PyObject *ext_pack(PyObject *self, PyObject *args, PyObject *kw);

/** _bale.merge(out, parts, ...): bale merge (merge.c). */
PyObject *ext_merge(PyObject *self, PyObject *args, PyObject *kw);

#endif
