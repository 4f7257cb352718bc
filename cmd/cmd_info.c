/* cmd_info.c - bale info: what an output holds and how it was made. */
#include "cli.h"
#include "outputs.h"

#include "bale_backend.h"

#include <dirent.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static const char info_help[] =
"usage: bale info OUT [-f FORMAT]\n"
"\n"
"For every output in OUT: its format, sample count, backing files and\n"
"their size, and what it records about itself (bale version, layout,\n"
"class names ...), the last as one line of JSON.\n"
"\nExample: bale info out/ -f lmdb\n";

/* Bytes of the file at @dir/@name, or of the files in that folder (an
 * LMDB output is a folder of two). */
static uint64_t info_size(const char *dir, const char *name)
{
	char path[4096];
	char inner[4096 + 256];
	struct dirent *de;
	struct stat st;
	uint64_t bytes = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return (uint64_t)st.st_size;
	while ((de = readdir(d))) {
		snprintf(inner, sizeof(inner), "%s/%s", path, de->d_name);
		if (stat(inner, &st) == 0 && S_ISREG(st.st_mode))
			bytes += (uint64_t)st.st_size;
	}
	closedir(d);
	return bytes;
}

/* The files of the output at @path (its own and its side files, as its
 * backend @be names them) and their bytes; 0 when its name is not the
 * backend's. */
static size_t info_files(const char *path, const struct bale_backend *be,
    uint64_t *bytes)
{
	char *dcopy = strdup(path);
	char *bcopy = strdup(path);
	char *dir = dcopy ? dirname(dcopy) : NULL;
	char *name = bcopy ? basename(bcopy) : NULL;
	size_t suffix = be && be->suffix ? strlen(be->suffix) : 0;
	size_t len = name ? strlen(name) : 0;
	struct dirent *de;
	size_t n = 0;
	DIR *d = NULL;

	*bytes = 0;
	if (suffix && len > suffix && strcmp(name + len - suffix,
	    be->suffix) == 0)
		d = opendir(dir);
	if (d)
		name[len - suffix] = '\0';	/* NAME, as the pack gave it */
	while (d && (de = readdir(d))) {
		if (!bale_backend_owns(be, name, de->d_name))
			continue;
		n++;
		*bytes += info_size(dir, de->d_name);
	}
	if (d)
		closedir(d);
	free(dcopy);
	free(bcopy);
	return n;
}

static size_t info_read_files(const char *const *files, uint64_t *bytes)
{
	struct stat st;
	size_t n;

	for (n = 0; files[n]; n++)
		if (stat(files[n], &st) == 0)
			*bytes += (uint64_t)st.st_size;
	return n;
}

static int info_one(const char *path, const char *format)
{
	struct bale_reader *r = NULL;
	const char *const *files;
	const char *json = "{}";
	uint64_t bytes = 0;
	uint64_t n = 0;
	size_t nfiles;

	if (bale_reader_new(&r) != BALE_OK ||
	    bale_reader_open(r, format, path) != BALE_OK ||
	    bale_reader_count(r, &n) != BALE_OK ||
	    bale_reader_files(r, &files) != BALE_OK ||
	    bale_reader_info(r, &json) != BALE_OK) {
		fprintf(stderr, "bale info: %s\n", r ? bale_reader_errmsg(r) :
		    "out of memory");
		bale_reader_free(r);
		return 1;
	}
	nfiles = info_files(path, bale_backend_find(bale_reader_format(r)),
	    &bytes);
	if (!nfiles)	/* named otherwise: the files its reads come from */
		nfiles = info_read_files(files, &bytes);
	printf("%s\n  format:  %s\n  samples: %" PRIu64 "\n  files:   %zu, "
	    "%.1f MB\n  details: %s\n", path, bale_reader_format(r), n,
	    nfiles, (double)bytes / 1e6, json);
	bale_reader_free(r);
	return 0;
}

int cmd_info(int argc, char **argv)
{
	const char *format;
	char **paths;
	size_t n;
	size_t i;
	int bad = 0;
	int c;

	c = cli_read_args(argc, argv, "info", info_help, 1,
	    "one OUT", &format);
	if (c >= 0)
		return c;
	if (cli_find_outputs("info", argv[optind], format, &paths, &n) != 0)
		return CLI_FAILED;
	for (i = 0; i < n; i++)
		bad |= info_one(paths[i], format);
	cli_free_outputs(paths, n);
	return bad ? CLI_FAILED : CLI_OK;
}
