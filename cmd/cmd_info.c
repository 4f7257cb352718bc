/* cmd_info.c - bale info: what an output holds and how it was made. */
#include "cli.h"
#include "outputs.h"

#include "bale_backend.h"
#include "bale_store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char info_help[] =
"usage: bale info OUT [-f FORMAT]\n"
"\n"
"For every output in OUT: its format, sample count, files and their\n"
"size, how it was made (order and seed, encode settings, format\n"
"options: NAME-made.json beside it, when bale pack or merge wrote one)\n"
"and what it records about itself (bale version, layout, class names\n"
"...), the last two as one line of JSON each.\n"
"\nExample: bale info out/ -f lmdb\n";

/* Bytes of the file at @path (0: none there). */
static uint64_t info_file_bytes(const char *path)
{
	struct bale_store_stat st;
	struct bale_errbuf err;

	return bale_store_stat(path, &st, &err) == BALE_OK && !st.is_dir ?
	    st.size : 0;
}

/* The files an output's folder holds, counted and their bytes summed
 * (an LMDB output is a folder of two). */
struct info_walk {
	const char *dir;
	const char *name;		/* the output's; NULL: every file */
	const struct bale_backend *be;
	size_t n;
	uint64_t bytes;
};

static uint64_t info_size(const char *dir, const char *name);

static int info_entry(void *arg, const char *entry, int is_dir)
{
	struct info_walk *w = arg;
	char path[4096];

	if (w->name && !bale_backend_owns(w->be, w->name, entry))
		return 0;
	w->n++;
	if (!w->name && is_dir)
		return 0;
	if (w->name) {
		w->bytes += info_size(w->dir, entry);
	} else if (snprintf(path, sizeof(path), "%s/%s", w->dir, entry) <
	    (int)sizeof(path)) {
		w->bytes += info_file_bytes(path);
	}
	return 0;
}

/* Bytes of the file at @dir/@name, or of the files in that folder. */
static uint64_t info_size(const char *dir, const char *name)
{
	struct info_walk inner = { NULL, NULL, NULL, 0, 0 };
	struct bale_store_stat st;
	struct bale_errbuf err;
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path) || bale_store_stat(path, &st, &err) != BALE_OK)
		return 0;	/* a path too long is no file of ours */
	if (!st.is_dir)
		return st.size;
	inner.dir = path;
	bale_store_list(path, info_entry, &inner, &err);
	return inner.bytes;
}

/* The output at @path as its folder and NAME (the dataset name
 * bale_output_pick() gives: the file name less the format's suffix),
 * each in @cap bytes. @return 0, or -1 when it names none */
static int info_name(const char *path, char *dir, char *name, size_t cap)
{
	const char *slash = strrchr(path, '/');

	if (bale_output_pick(&path, 1, name, cap) < 0)
		return -1;
	if (!slash)
		snprintf(dir, cap, ".");
	else
		snprintf(dir, cap, "%.*s", slash == path ? 1 :
		    (int)(slash - path), path);
	return 0;
}

/* The files of output NAME in @dir (its own and its side files, as its
 * backend @be names them) and their bytes. */
static size_t info_files(const char *dir, const char *name,
    const struct bale_backend *be, uint64_t *bytes)
{
	struct info_walk w = { dir, name, be, 0, 0 };
	struct bale_errbuf err;

	bale_store_list(dir, info_entry, &w, &err);
	*bytes = w.bytes;
	return w.n;
}

/* How output NAME in @dir was made: NAME-made.json's line, or NULL
 * (made before bale kept it, or not by bale). Free it. */
static char *info_made(const char *dir, const char *name)
{
	struct bale_errbuf err;
	char path[4096];
	char *text;
	size_t n;

	if (snprintf(path, sizeof(path), "%s/%s-made.json", dir, name) >=
	    (int)sizeof(path) ||
	    bale_store_read_all(path, &text, &n, &err) != BALE_OK)
		return NULL;
	text[strcspn(text, "\n")] = '\0';
	if (text[0])
		return text;
	free(text);
	return NULL;
}

static size_t info_read_files(const char *const *files, uint64_t *bytes)
{
	size_t n;

	for (n = 0; files[n]; n++)
		*bytes += info_file_bytes(files[n]);
	return n;
}

static int info_one(const char *path, const char *format)
{
	struct bale_reader *r = NULL;
	const char *const *files;
	const char *json = "{}";
	const struct bale_backend *be;
	char dir[4096], name[sizeof(dir)];	/* one cap for both */
	char *made = NULL;
	uint64_t bytes = 0;
	uint64_t n = 0;
	size_t nfiles = 0;

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
	be = bale_backend_find(bale_reader_format(r));
	if (info_name(path, dir, name, sizeof(name)) == 0) {
		nfiles = info_files(dir, name, be, &bytes);
		made = info_made(dir, name);
	}
	if (!nfiles)	/* named otherwise: the files its reads come from */
		nfiles = info_read_files(files, &bytes);
	printf("%s\n  format:  %s\n  samples: %" PRIu64 "\n  files:   %zu, "
	    "%.1f MB\n  made:    %s\n  details: %s\n", path,
	    bale_reader_format(r), n, nfiles, (double)bytes / 1e6,
	    made ? made : "(not recorded)", json);
	free(made);
	bale_reader_free(r);
	return 0;
}

int cmd_info(int argc, char **argv)
{
	struct cli_read a = { "info", info_help, 1, "one OUT", NULL, NULL };
	char **paths;
	size_t n;
	size_t i;
	int bad = 0;
	int c;

	c = cli_read_args(argc, argv, &a);
	if (c >= 0)
		return c;
	if (cli_find_outputs("info", argv[optind], a.format, &paths, &n) != 0)
		return CLI_FAILED;
	for (i = 0; i < n; i++)
		bad |= info_one(paths[i], a.format);
	cli_free_outputs(paths, n);
	return bad ? CLI_FAILED : CLI_OK;
}
