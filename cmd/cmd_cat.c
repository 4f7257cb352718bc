/* cmd_cat.c - bale cat: one sample's bytes to stdout. */
#include "cli.h"
#include "outputs.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

static const char cat_help[] =
"usage: bale cat OUT INDEX|KEY|PATH [-f FORMAT] > FILE\n"
"\n"
"Write one sample's stored bytes to stdout (never to a terminal). The\n"
"sample is named by its index (negative counts from the end: -1 is the\n"
"last), by its ten-digit key (as in the tar member names) or by its\n"
"source path (class/name.jpg, as bale ls shows it).\n"
"\n"
"  -f, --format F  the output of format F in OUT (bale formats lists\n"
"                  them); OUT holding one dataset in several formats\n"
"                  reads the one that reads fastest at random\n"
"\nExample: bale cat out/ -1 > last.jpg\n";

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

/* The sample packed from source path @path: a scan, reading each. */
static int cat_find_path(struct bale_reader *r, uint64_t n, const char *path,
    uint64_t *out)
{
	struct bale_blob b;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (bale_reader_get(r, i, &b) != BALE_OK)
			return -1;
		if (b.path && strcmp(b.path, path) == 0) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

/* @which as an index (-k: the k-th from the end), a key or a path. */
static int cat_find(struct bale_reader *r, uint64_t n, const char *which,
    uint64_t *out)
{
	uint64_t k;

	if (strlen(which) == 10 && strspn(which, "0123456789") == 10)
		return cat_find_key(r, n, which, out);
	if (which[0] == '-' && cli_parse_u64(which + 1, &k) == 0)
		return k >= 1 && k <= n ? (*out = n - k, 0) : -1;
	if (cli_parse_u64(which, out) == 0)
		return *out < n ? 0 : -1;
	return cat_find_path(r, n, which, out);
}

/* A negative index would be taken for an option: it goes after "--". */
static char **cat_args(int argc, char **argv, int *nargc)
{
	char **v = calloc((size_t)argc + 2, sizeof(*v));
	int i, k = 0, neg = 0;

	if (!v)
		return NULL;
	for (i = 0; i < argc; i++)
		if (i == 0 || argv[i][0] != '-' || !isdigit(
		    (unsigned char)argv[i][1]))
			v[k++] = argv[i];
	v[k++] = "--";
	for (i = 1; i < argc; i++)
		if (argv[i][0] == '-' && isdigit((unsigned char)argv[i][1])) {
			v[k++] = argv[i];
			neg++;
		}
	*nargc = neg ? k : k - 1;
	return v;
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

static int cat_run(int argc, char **argv)
{
	struct bale_reader *r;
	struct cli_read a = { "cat", cat_help, 2, "OUT and INDEX, KEY or PATH",
	    NULL, NULL };
	const char *which;
	uint64_t n = 0;
	uint64_t i = 0;
	int rc = CLI_FAILED;
	int c;

	c = cli_read_args(argc, argv, &a);
	if (c >= 0)
		return c;
	if (isatty(STDOUT_FILENO))
		return cli_usage_error("cat", "stdout is a terminal: send the "
		    "bytes to a file (> x.jpg) or a pipe");
	which = argv[optind + 1];
	r = cli_open_one("cat", argv[optind], a.format);
	if (!r)
		return CLI_FAILED;
	bale_reader_count(r, &n);
	if (cat_find(r, n, which, &i) != 0)
		fprintf(stderr, "bale cat: no sample '%s' (%" PRIu64
		    " samples)\n", which, n);
	else
		rc = cat_write(r, i);
	bale_reader_free(r);
	return rc;
}

int cmd_cat(int argc, char **argv)
{
	int nargc = 0;
	char **v = cat_args(argc, argv, &nargc);
	int rc;

	if (!v) {
		fprintf(stderr, "bale cat: out of memory\n");
		return CLI_FAILED;
	}
	rc = cat_run(nargc, v);
	free(v);
	return rc;
}
