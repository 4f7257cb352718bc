/* relpath.c - the path from one folder to a file, as "../x/y": what a
 * file that names another (an HDF5 virtual dataset's source) stores, so
 * the two can move together. */
#include "relpath.h"

#include "bale_backend.h"
#include "bale_backend_util.h"

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

/* @path resolved as far as it exists, the rest appended as written. */
static int relpath_resolve(const char *path, char out[PATH_MAX])
{
	char head[PATH_MAX];
	const char *rest = "";
	char *slash;

	if (strlen(path) >= PATH_MAX)
		return -1;
	strcpy(head, path);
	while (!realpath(head, out)) {
		slash = strrchr(head, '/');
		if (!slash) {	/* a relative name: below the current one */
			rest = path;
			if (!realpath(".", out))
				return -1;
			break;
		}
		*slash = '\0';
		rest = path + (slash - head) + 1;
		if (!*head && !realpath("/", out))
			return -1;
		if (!*head)
			break;
	}
	if (*rest && strlen(out) + 1 + strlen(rest) < PATH_MAX) {
		if (strcmp(out, "/") != 0)
			strcat(out, "/");
		strcat(out, rest);
	}
	return 0;
}

int bale_path_inside(const char *path, const char *folder)
{
	char p[PATH_MAX], f[PATH_MAX];
	size_t n;

	if (!realpath(folder, f) || relpath_resolve(path, p) != 0)
		return 0;
	n = strlen(f);
	if (strcmp(f, "/") == 0)
		return 1;
	return strncmp(p, f, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

int bale_path_trim_len(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	return (int)len;
}
