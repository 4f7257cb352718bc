/* cmd_ls.c - bale ls: one line per sample. */
#include "cli.h"
#include "outputs.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

static const char ls_help[] =
"usage: bale ls OUT [-f FORMAT]\n"
"\n"
"One tab-separated line per sample: index, key, label, size, crc32 (as\n"
"stored; '-' if none), path.\n";

int cmd_ls(int argc, char **argv)
{
	struct bale_reader *r;
	const char *format = NULL;
	struct bale_blob b;
	uint64_t n = 0;
	uint64_t i;
	int c;

	optind = 1;
	while ((c = getopt(argc, argv, "f:h")) != -1) {
		if (c == 'h') {
			fputs(ls_help, stdout);
			return CLI_OK;
		}
		if (c != 'f')
			return cli_usage_error("ls", "bad option");
		format = optarg;
	}
	if (optind != argc - 1)
		return cli_usage_error("ls", "expected one OUT");
	r = cli_open_one("ls", argv[optind], format);
	if (!r)
		return CLI_FAILED;
	bale_reader_count(r, &n);
	for (i = 0; i < n; i++) {
		if (bale_reader_get(r, i, &b) != BALE_OK) {
			fprintf(stderr, "bale ls: %s\n", bale_reader_errmsg(r));
			bale_reader_free(r);
			return CLI_FAILED;
		}
		printf("%" PRIu64 "\t%s\t%" PRId64 "\t%zu\t", i, b.key, b.label,
		    b.size);
		if (b.has_crc32)
			printf("%08" PRIx32, b.crc32);
		else
			printf("-");
		printf("\t%s\n", b.path ? b.path : "");
	}
	bale_reader_free(r);
	return CLI_OK;
}
