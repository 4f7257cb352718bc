/* cmd_info.c - bale info: what an output holds and how it was made. */
#include "cli.h"
#include "outputs.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>

static const char info_help[] =
"usage: bale info OUT [-f FORMAT]\n"
"\n"
"For every output in OUT: its format, sample count, backing files and\n"
"their size, and what it records about itself (bale version, layout,\n"
"class names ...), the last as one line of JSON.\n"
"\nExample: bale info out/ -f lmdb\n";

static int info_one(const char *path, const char *format)
{
	struct bale_reader *r = NULL;
	const char *const *files;
	const char *json = "{}";
	uint64_t bytes = 0;
	uint64_t n = 0;
	struct stat st;
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
	for (nfiles = 0; files[nfiles]; nfiles++)
		if (stat(files[nfiles], &st) == 0)
			bytes += (uint64_t)st.st_size;
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
