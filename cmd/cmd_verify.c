/* cmd_verify.c - bale verify: re-read every sample and check it. */
#include "cli.h"
#include "outputs.h"
#include "progress.h"

#include "bale_tools.h"

#include <ctype.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char verify_help[] =
"usage: bale verify OUT [-f FORMAT] [--decode] [-v | -q]\n"
"\n"
"Read back every sample of every output in OUT (a folder, or one output)\n"
"and check the count, that each sample can be read, and its checksum.\n"
"\n"
"  -f, --format F  only outputs of format F in OUT (bale formats lists\n"
"                  them)\n"
"      --decode    also decode every image (JPEG and PNG; others are\n"
"                  counted as unchecked): a file cut or corrupt before\n"
"                  it was packed decodes no better from the output\n"
"  -v, --verbose   progress lines even when stderr is not a terminal\n"
"  -q, --quiet     no progress line\n"
"\n"
"On a terminal a progress line (samples checked, rate, time left) is\n"
"redrawn as it goes.\n"
"The same error on consecutive samples (a shard cut short) is said once,\n"
"with how many samples it covers.\n"
"An index kept beside the data (.bidx) that is damaged or stale is said\n"
"once; the samples it concerns are read the slower way and count as bad\n"
"only if that fails too. A file cut short: the samples past its end.\n"
"Exit status: 0 all good, 1 some sample is missing, differs or does not\n"
"decode, or an index is damaged; 2 usage.\n"
"\nExample: bale verify out/ --decode\n";

/* One output's check: counts, and the error being repeated. */
struct verify_run {
	const char *path;
	struct bale_decode_check *check;	/* --decode, or NULL */
	uint64_t bad;
	uint64_t unchecked;	/* no stored checksum */
	uint64_t undecoded;	/* a format --decode cannot check */
	char last[512];		/* the last error said */
	uint64_t repeats;	/* samples since with the same error */
	char last_note[512];	/* the last index note said */
	uint64_t notes;		/* index notes said (each once) */
	struct cli_progress *cp;	/* shown, or NULL */
	struct timespec t0;
	uint64_t bytes;		/* read so far */
};

/* Samples between two looks at the clock for the progress line. */
#define VERIFY_PROGRESS_EVERY 4096

static void verify_progress(struct verify_run *v, uint64_t done,
    uint64_t total, int final)
{
	struct bale_progress p;
	struct timespec t;

	if (!v->cp)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	p.done = done;
	p.total = total;
	p.bytes = v->bytes;
	p.seconds = (double)(t.tv_sec - v->t0.tv_sec) +
	    (double)(t.tv_nsec - v->t0.tv_nsec) / 1e9;
	p.final = final;
	cli_progress_show(&p, v->cp);
}

/* Equal but for their numbers: the same error on another sample. */
static int verify_same_error(const char *a, const char *b)
{
	for (;;) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (isdigit((unsigned char)*a))
				a++;
			while (isdigit((unsigned char)*b))
				b++;
			continue;
		}
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++;
		b++;
	}
}

static void verify_flush(struct verify_run *v)
{
	if (v->repeats)
		fprintf(stderr, "bale verify: '%s': the same for the next %"
		    PRIu64 " sample%s\n", v->path, v->repeats,
		    v->repeats > 1 ? "s" : "");
	v->repeats = 0;
	v->last[0] = '\0';
}

/* A bad sample: said, unless it repeats the error before it. */
static void verify_bad(struct verify_run *v, uint64_t i, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

static void verify_bad(struct verify_run *v, uint64_t i, const char *fmt,
    ...)
{
	char msg[sizeof(v->last)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	v->bad++;
	if (v->last[0] && verify_same_error(v->last, msg)) {
		v->repeats++;
		return;
	}
	verify_flush(v);
	fprintf(stderr, "bale verify: '%s' sample %" PRIu64 ": %s\n", v->path,
	    i, msg);
	snprintf(v->last, sizeof(v->last), "%s", msg);
}

/* A sample read fine, but an index beside it is damaged or stale:
 * said once for all the samples it concerns, not a bad sample. */
static void verify_note(struct verify_run *v, const char *note)
{
	if (v->last_note[0] && verify_same_error(v->last_note, note))
		return;
	verify_flush(v);
	fprintf(stderr, "bale verify: '%s': %s\n", v->path, note);
	snprintf(v->last_note, sizeof(v->last_note), "%s", note);
	v->notes++;
}

static void verify_sample(struct verify_run *v, uint64_t i,
    const struct bale_blob *b)
{
	uint32_t crc;
	int rc;

	if (!b->has_crc32) {
		v->unchecked++;
	} else if ((crc = bale_crc32(b->data, b->size)) != b->crc32) {
		verify_bad(v, i, "(key %s): checksum %08" PRIx32 " but stored "
		    "%08" PRIx32, b->key, crc, b->crc32);
		return;
	}
	if (!v->check)
		return;
	rc = bale_decode_check_run(v->check, b->data, b->size);
	if (rc == BALE_ENOTSUP)
		v->undecoded++;
	else if (rc != BALE_OK)
		verify_bad(v, i, "(key %s%s%s): does not decode: %s", b->key,
		    b->path ? ", " : "", b->path ? b->path : "",
		    bale_decode_check_errmsg(v->check));
}

/* Check one output; returns the number of bad samples and damaged
 * indexes (or 1 if it cannot be opened at all). */
static uint64_t verify_one(const char *path, struct bale_decode_check *check,
    struct cli_progress *cp)
{
	struct verify_run v = { path, check, 0, 0, 0, "", 0, "", 0, cp,
	    { 0, 0 }, 0 };
	struct bale_reader *r = NULL;
	struct bale_blob b;
	uint64_t before;
	uint64_t n = 0;
	uint64_t i;

	/* every index the output keeps beside its data is compared with it */
	if (bale_reader_new(&r) != BALE_OK ||
	    bale_reader_option(r, "check_indexes", "1") != BALE_OK ||
	    bale_reader_open(r, NULL, path) != BALE_OK ||
	    bale_reader_count(r, &n) != BALE_OK) {
		fprintf(stderr, "bale verify: %s\n", r ? bale_reader_errmsg(r) :
		    "out of memory");
		bale_reader_free(r);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &v.t0);
	for (i = 0; i < n; i++) {
		before = v.bad;
		if (bale_reader_get(r, i, &b) != BALE_OK) {
			verify_bad(&v, i, "%s", bale_reader_errmsg(r));
		} else {
			v.bytes += b.size;
			if (bale_reader_note(r))
				verify_note(&v, bale_reader_note(r));
			verify_sample(&v, i, &b);
		}
		if (v.bad == before)	/* a good one ends a repeated error */
			verify_flush(&v);
		if ((i + 1) % VERIFY_PROGRESS_EVERY == 0)
			verify_progress(&v, i + 1, n, 0);
	}
	verify_flush(&v);
	verify_progress(&v, n, n, 1);
	printf("%s (%s): %" PRIu64 " samples, %" PRIu64 " bad%s", path,
	    bale_reader_format(r), n, v.bad, v.unchecked ?
	    " (no checksums stored: read back only)" : "");
	if (check)
		printf(", decoded (%" PRIu64 " in formats bale does not "
		    "decode left unchecked)", v.undecoded);
	if (v.notes)
		printf("; an index beside the data is damaged (%" PRIu64
		    " note%s above): reads fall back to the slower way",
		    v.notes, v.notes > 1 ? "s" : "");
	printf("\n");
	bale_reader_free(r);
	return v.bad + v.notes;
}

/* What the command line asks for. */
struct verify_args {
	const char *format;
	int decode;
	int verbose;
	int quiet;
};

static int verify_args(int argc, char **argv, struct verify_args *a)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "decode", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:vqh", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(verify_help, stdout);
			return CLI_OK;
		}
		if (c == 'd')
			a->decode = 1;
		else if (c == 'v')
			a->verbose = 1;
		else if (c == 'q')
			a->quiet = 1;
		else if (c != 'f')
			return cli_bad_option("verify", argv, "f:vqh");
		else if (cli_check_reader("verify", optarg) != 0)
			return CLI_USAGE;
		else
			a->format = optarg;
	}
	if (optind != argc - 1)
		return cli_usage_error("verify", "expected one OUT");
	return -1;
}

int cmd_verify(int argc, char **argv)
{
	struct bale_decode_check *check = NULL;
	struct verify_args a = { NULL, 0, 0, 0 };
	struct cli_progress cp;
	uint64_t bad = 0;
	char **paths;
	size_t n;
	size_t i;
	int shown;
	int c;

	c = verify_args(argc, argv, &a);
	if (c >= 0)
		return c;
	shown = cli_progress_init(&cp, a.verbose, a.quiet);
	if (a.decode && bale_decode_check_new(&check) != BALE_OK) {
		fprintf(stderr, "bale verify: out of memory\n");
		return CLI_FAILED;
	}
	if (cli_find_outputs("verify", argv[optind], a.format, &paths, &n) !=
	    0) {
		bale_decode_check_free(check);
		return CLI_FAILED;
	}
	for (i = 0; i < n; i++)
		bad += verify_one(paths[i], check, shown ? &cp : NULL);
	cli_free_outputs(paths, n);
	bale_decode_check_free(check);
	return bad ? CLI_FAILED : CLI_OK;
}
