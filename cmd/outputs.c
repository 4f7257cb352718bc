/* outputs.c - find the outputs in a folder, open one for reading. */
#include "outputs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int outputs_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int outputs_add(char ***paths, size_t *n, char *path)
{
	char **np = realloc(*paths, (*n + 1) * sizeof(char *));

	if (!np || !path) {
		free(path);
		return -1;
	}
	*paths = np;
	(*paths)[(*n)++] = path;
	return 0;
}

/* "@dir/@name", or NULL without memory. */
static char *outputs_join(const char *dir, const char *name)
{
	size_t len = strlen(dir);
	char *path = malloc(len + strlen(name) + 2);

	if (path)
		sprintf(path, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" :
		    "/", name);
	return path;
}

/* Every output in folder @dir (of @format, if not NULL), recognised by
 * content, whatever its name. */
static int outputs_scan(const char *dir, const char *format, char ***paths,
    size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	const char *f;
	char *path;
	int rc = 0;

	if (!d)
		return -1;
	while (rc == 0 && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		path = outputs_join(dir, de->d_name);
		f = path ? bale_output_format(path) : NULL;
		if (path && (!f || (format && strcmp(f, format) != 0)))
			free(path);
		else
			rc = outputs_add(paths, n, path);
	}
	closedir(d);
	if (*n > 1)
		qsort(*paths, *n, sizeof(char *), outputs_cmp);
	return rc;
}

static int outputs_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cli_find_outputs(const char *cmd, const char *arg, const char *format,
    char ***paths, size_t *n)
{
	*paths = NULL;
	*n = 0;
	if (bale_output_format(arg) ||
	    (format && strcmp(format, "folder") == 0))
		return outputs_add(paths, n, strdup(arg));
	if (!outputs_is_dir(arg)) {
		fprintf(stderr, "bale %s: '%s' is not an output nor a folder "
		    "of outputs\n", cmd, arg);
		return -1;
	}
	if (outputs_scan(arg, format, paths, n) != 0 || *n == 0) {
		fprintf(stderr, "bale %s: no %s output in '%s'\n", cmd,
		    format ? format : "bale", arg);
		return -1;
	}
	return 0;
}

void cli_free_outputs(char **paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

struct bale_reader *cli_open_one(const char *cmd, const char *arg,
    const char *format)
{
	struct bale_reader *r = NULL;
	char **paths;
	size_t n;

	if (cli_find_outputs(cmd, arg, format, &paths, &n) != 0)
		return NULL;
	if (n > 1) {
		fprintf(stderr, "bale %s: '%s' holds %zu outputs; name one, or "
		    "choose with -f\n", cmd, arg, n);
	} else if (bale_reader_new(&r) != BALE_OK ||
	    bale_reader_open(r, format, paths[0]) != BALE_OK) {
		fprintf(stderr, "bale %s: %s\n", cmd,
		    r ? bale_reader_errmsg(r) : "out of memory");
		bale_reader_free(r);
		r = NULL;
	}
	cli_free_outputs(paths, n);
	return r;
}
