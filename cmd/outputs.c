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

static int outputs_scan(const char *dir, const char *format, char ***paths,
    size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	const char *f;
	size_t len;
	int rc = 0;

	if (!d)
		return -1;
	while (rc == 0 && (de = readdir(d))) {
		f = bale_output_format(de->d_name);
		if (!f || (format && strcmp(f, format) != 0))
			continue;
		len = strlen(dir);
		rc = outputs_add(paths, n, malloc(len + strlen(de->d_name) + 2));
		if (rc == 0)
			sprintf((*paths)[*n - 1], "%s%s%s", dir,
			    len && dir[len - 1] == '/' ? "" : "/", de->d_name);
	}
	closedir(d);
	qsort(*paths, *n, sizeof(char *), outputs_cmp);
	return rc;
}

int cli_find_outputs(const char *cmd, const char *arg, const char *format,
    char ***paths, size_t *n)
{
	struct stat st;

	*paths = NULL;
	*n = 0;
	if (bale_output_format(arg) ||
	    (format && strcmp(format, "folder") == 0))
		return outputs_add(paths, n, strdup(arg));
	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode)) {
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
