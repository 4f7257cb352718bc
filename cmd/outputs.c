/* outputs.c - find the outputs in a folder, open one for reading. */
#include "outputs.h"

#include "bale_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int outputs_add(char ***paths, size_t *n, char *path)
{
	char **np = path ? realloc(*paths, (*n + 1) * sizeof(char *)) : NULL;

	if (!np) {
		free(path);
		return -1;
	}
	*paths = np;
	(*paths)[(*n)++] = path;
	return 0;
}

static int outputs_journal(void *arg, const char *name, int is_dir)
{
	static const char tail[] = "-resume.json";
	size_t len = strlen(name);

	(void)arg;
	(void)is_dir;
	return (len > sizeof(tail) - 1 && strcmp(name + len -
	    (sizeof(tail) - 1), tail) == 0) || (name[0] == '.' &&
	    len > 8 && strcmp(name + len - 8, "-replace") == 0);
}

/* Does folder @dir hold what an interrupted pack leaves (a resume
 * journal, NAME-resume.json, at the top or in a replacement's staging
 * folder)? */
static int outputs_interrupted(const char *dir)
{
	struct bale_errbuf err;

	return bale_store_list(dir, outputs_journal, NULL, &err) == 1;
}

/* Is @path a folder? When it cannot be told, why is said. */
static int outputs_is_dir(const char *cmd, const char *path)
{
	struct bale_store_stat st;
	struct bale_errbuf err;

	if (bale_store_stat(path, &st, &err) != BALE_OK) {
		fprintf(stderr, "bale %s: '%s' is not an output nor a folder "
		    "of outputs: %s\n", cmd, path, err.msg);
		return -1;
	}
	return st.is_dir;
}

int cli_find_outputs(const char *cmd, const char *arg, const char *format,
    char ***paths, size_t *n)
{
	int is_dir;

	*paths = NULL;
	*n = 0;
	/* in an object store, what is there comes first: a store that
	 * cannot be reached, or refuses, is said once, not after a probe's
	 * retries as well */
	is_dir = bale_store_is_local(arg) ? 0 : outputs_is_dir(cmd, arg);
	if (is_dir < 0)
		return -1;
	if (bale_output_format(arg) ||
	    (format && strcmp(format, "folder") == 0))
		return outputs_add(paths, n, strdup(arg));
	is_dir = is_dir ? is_dir : outputs_is_dir(cmd, arg);
	if (is_dir <= 0) {
		if (is_dir == 0)
			fprintf(stderr, "bale %s: '%s' is not an output nor a "
			    "folder of outputs\n", cmd, arg);
		return -1;
	}
	if (bale_outputs_in(arg, format, paths, n) != BALE_OK || *n == 0) {
		fprintf(stderr, "bale %s: no %s output in '%s'%s\n", cmd,
		    format ? format : "bale", arg, outputs_interrupted(arg) ?
		    ": a run into it was interrupted (its journal is there); "
		    "'bale pack' with the same arguments and --resume "
		    "finishes it" : "");
		return -1;
	}
	return 0;
}

/* Which of @n outputs a command that reads one takes (bale_output_pick):
 * when it chose among formats of one dataset, said on stderr. */
static long outputs_pick(const char *cmd, const char *arg, char **paths,
    size_t n)
{
	char name[256];
	long i = bale_output_pick((const char *const *)paths, n, name,
	    sizeof(name));

	if (i >= 0 && n > 1)
		fprintf(stderr, "bale %s: '%s' holds dataset '%s' in %zu "
		    "formats: reading '%s' (the one that reads fastest at "
		    "random; -f chooses)\n", cmd, arg, name, n, paths[i]);
	return i;
}

void cli_free_outputs(char **paths, size_t n)
{
	bale_outputs_free(paths, n);
}

struct bale_reader *cli_open_one(const char *cmd, const char *arg,
    const char *format)
{
	struct bale_reader *r = NULL;
	char **paths;
	long pick;
	size_t n;

	if (cli_find_outputs(cmd, arg, format, &paths, &n) != 0)
		return NULL;
	pick = outputs_pick(cmd, arg, paths, n);
	if (pick < 0) {
		fprintf(stderr, "bale %s: '%s' holds %zu outputs of different "
		    "datasets; name one, or choose with -f\n", cmd, arg, n);
	} else if (bale_reader_new(&r) != BALE_OK ||
	    bale_reader_open(r, format, paths[pick]) != BALE_OK) {
		fprintf(stderr, "bale %s: %s\n", cmd,
		    r ? bale_reader_errmsg(r) : "out of memory");
		bale_reader_free(r);
		r = NULL;
	}
	cli_free_outputs(paths, n);
	return r;
}
