/* cmd_ls.c - bale ls: one line per sample. */
#include "cli.h"
#include "outputs.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

static const char ls_help[] =
"usage: bale ls OUT [-f FORMAT]\n"
"\n"
"One tab-separated line per sample: index, key, label, size, crc32 (as\n"
"stored; '-' if none), path.\n"
"\nExample: bale ls out/ -f wds | head\n";

int cmd_ls(int argc, char **argv)
{
	struct bale_reader *r;
	struct cli_read a = { "ls", ls_help, 1, "one OUT", NULL, NULL };
	struct bale_blob b;
	uint64_t n = 0;
	uint64_t i;
	int c;

	c = cli_read_args(argc, argv, &a);
	if (c >= 0)
		return c;
	r = cli_open_one("ls", argv[optind], a.format);
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
