/* cmd_cat.c - bale cat: one sample's bytes to stdout. */
#include "cli.h"
#include "outputs.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

static const char cat_help[] =
"usage: bale cat OUT INDEX|KEY [-f FORMAT]\n"
"\n"
"Write one sample's stored bytes to stdout. A ten-digit argument is a\n"
"sample key (as in the tar member names); anything else an index.\n";

/* Keys sort like the samples, so a key is found by bisection. */
static int cat_find_key(struct bale_reader *r, uint64_t n, const char *key,
    uint64_t *out)
{
	struct bale_blob b;
	uint64_t lo = 0;
	uint64_t hi = n;
	uint64_t mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (bale_reader_get(r, mid, &b) != BALE_OK)
			return -1;
		c = strcmp(b.key, key);
		if (c == 0) {
			*out = mid;
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int cat_write(struct bale_reader *r, uint64_t i)
{
	struct bale_blob b;

	if (bale_reader_get(r, i, &b) != BALE_OK) {
		fprintf(stderr, "bale cat: %s\n", bale_reader_errmsg(r));
		return CLI_FAILED;
	}
	if (b.size && fwrite(b.data, 1, b.size, stdout) != b.size) {
		perror("bale cat: stdout");
		return CLI_FAILED;
	}
	return fflush(stdout) == 0 ? CLI_OK : CLI_FAILED;
}

int cmd_cat(int argc, char **argv)
{
	struct bale_reader *r;
	const char *format;
	const char *which;
	uint64_t n = 0;
	uint64_t i = 0;
	int rc = CLI_FAILED;
	int c;

	c = cli_read_args(argc, argv, "cat", cat_help, 2,
	    "OUT and INDEX or KEY", &format);
	if (c >= 0)
		return c;
	which = argv[optind + 1];
	r = cli_open_one("cat", argv[optind], format);
	if (!r)
		return CLI_FAILED;
	bale_reader_count(r, &n);
	if (strlen(which) == 10 && strspn(which, "0123456789") == 10 ?
	    cat_find_key(r, n, which, &i) != 0 :
	    cli_parse_u64(which, &i) != 0 || i >= n)
		fprintf(stderr, "bale cat: no sample '%s' (%" PRIu64
		    " samples)\n", which, n);
	else
		rc = cat_write(r, i);
	bale_reader_free(r);
	return rc;
}
