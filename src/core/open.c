/* open.c - which backend reads a path: the one named, else the format
 * whose probe recognises it, else a folder is the raw "folder" source
 * read in place (the benchmark's baseline); and which writes a format. */
#include "handle.h"
#include "registry.h"

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_store.h"

#include <string.h>

static const char *open_guess(const char *path)
{
	const char *f = bale_output_format(path);
	struct bale_store_stat st;
	struct bale_errbuf err;

	if (f)
		return f;
	if (bale_store_stat(path, &st, &err) == BALE_OK && st.is_dir)
		return "folder";
	return NULL;
}

/* What @path is when no format recognises it: missing (or its store
 * said why not), or not one. */
static int open_not_an_output(struct bale_reader *r, const char *path)
{
	struct bale_store_stat st;
	struct bale_errbuf err;
	int rc = bale_store_stat(path, &st, &err);

	if (rc != BALE_OK)
		return bale_reader_seterr(r, rc, "%s", err.msg);
	return bale_reader_seterr(r, BALE_EINPUT, "'%s' is not a bale output: "
	    "no format built in recognises it", path);
}

int bale_reader_open(struct bale_reader *r, const char *format,
    const char *path)
{
	const char *name = format && strcmp(format, "auto") != 0 ? format :
	    open_guess(path);
	const struct bale_backend *be = name ? bale_backend_find(name) : NULL;

	if (!name)
		return open_not_an_output(r, path);
	if (!be || !be->reader)
		return bale_reader_seterr(r, BALE_EINVAL,
		    "unknown format '%s' (not built in, or no reader)", name);
	return bale_reader_open_with(r, be, path);
}

int bale_writer_set_backend(struct bale_writer *w, const char *name)
{
	const struct bale_backend *be = bale_backend_find(name);

	if (!be)
		return bale_writer_seterr(w, BALE_ENOENT,
		    "unknown format '%s'", name);
	if (!be->writer)
		return bale_writer_seterr(w, BALE_ENOENT,
		    "format '%s' is read-only", name);
	return bale_writer_use(w, be);
}
