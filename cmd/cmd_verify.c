/* cmd_verify.c - bale verify: re-read every sample and check it. */
#include "cli.h"
#include "outputs.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static const char verify_help[] =
"usage: bale verify OUT [-f FORMAT]\n"
"\n"
"Read back every sample of every output in OUT (a folder, or one output)\n"
"and check the count, that each sample can be read, and its checksum.\n"
"Exit status: 0 all good, 1 some sample is missing or differs, 2 usage.\n";

/* Check one output; returns the number of bad samples (or 1 if it
 * cannot be opened at all). */
static uint64_t verify_one(const char *path)
{
	struct bale_reader *r = NULL;
	struct bale_blob b;
	uint64_t n = 0;
	uint64_t bad = 0;
	uint64_t unchecked = 0;
	uint64_t i;
	uint32_t crc;

	if (bale_reader_new(&r) != BALE_OK || bale_reader_open(r, NULL, path)
	    != BALE_OK || bale_reader_count(r, &n) != BALE_OK) {
		fprintf(stderr, "bale verify: %s\n", r ? bale_reader_errmsg(r) :
		    "out of memory");
		bale_reader_free(r);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (bale_reader_get(r, i, &b) != BALE_OK) {
			fprintf(stderr, "bale verify: '%s' sample %" PRIu64
			    ": %s\n", path, i, bale_reader_errmsg(r));
			bad++;
			continue;
		}
		if (!b.has_crc32) {
			unchecked++;
			continue;
		}
		crc = bale_crc32(b.data, b.size);
		if (crc != b.crc32) {
			fprintf(stderr, "bale verify: '%s' sample %" PRIu64
			    " (key %s): checksum %08" PRIx32 " but stored %08"
			    PRIx32 "\n", path, i, b.key, crc, b.crc32);
			bad++;
		}
	}
	printf("%s (%s): %" PRIu64 " samples, %" PRIu64 " bad%s\n", path,
	    bale_reader_format(r), n, bad, unchecked ?
	    " (no checksums stored: read back only)" : "");
	bale_reader_free(r);
	return bad;
}

int cmd_verify(int argc, char **argv)
{
	const char *format;
	uint64_t bad = 0;
	char **paths;
	size_t n;
	size_t i;
	int c;

	c = cli_read_args(argc, argv, "verify", verify_help, 1,
	    "one OUT", &format);
	if (c >= 0)
		return c;
	if (cli_find_outputs("verify", argv[optind], format, &paths, &n) != 0)
		return CLI_FAILED;
	for (i = 0; i < n; i++)
		bad += verify_one(paths[i]);
	cli_free_outputs(paths, n);
	return bad ? CLI_FAILED : CLI_OK;
}
