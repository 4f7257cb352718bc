/* relpath.c - the path from one folder to a file, as "../x/y": what a
 * file that names another (an HDF5 virtual dataset's source) stores, so
 * the two can move together. */
#include "bale_backend.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Length of the leading folders @a and @b share, ending at a '/'. */
static size_t relpath_common(const char *a, const char *b)
{
	size_t i, last = 0;

	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			last = i;
	/* @a whole is a folder of @b */
	if (a[i] == '\0' && b[i] == '/')
		last = i;
	return last;
}

char *bale_file_relpath(const char *from_dir, const char *to)
{
	char from[PATH_MAX], target[PATH_MAX];
	struct bale_buf out;
	const char *p;
	size_t common;

	if (!realpath(from_dir, from) || !realpath(to, target))
		return NULL;
	if (strcmp(from, "/") == 0)
		from[0] = '\0';
	common = relpath_common(from, target);
	memset(&out, 0, sizeof(out));
	/* one "../" for each folder of @from below the common ones */
	for (p = from + common; *p; p++)
		if (*p == '/')
			bale_buf_puts(&out, "../");
	bale_buf_puts(&out, target + common + 1);
	if (out.failed) {
		bale_buf_release(&out);
		return NULL;
	}
	return out.data;
}
