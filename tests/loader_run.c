/* loader_run.c - bale_loader from C, for the tests: one line per batch
 * (epoch, index, samples, the crc32 of its images, its labels), so runs
 * with other thread counts, or resumed, can be compared byte for byte.
 *   bale-loader-run OUT THREADS EPOCHS [--from EPOCH BATCH] [--eval]
 *       [--size N] [--batch B] [--rank R --world W] [--drop-last]
 *       [--exact] [--strict | --skip | --replace] [--hwc]
 *       [--runs LEN] [--io-requests N] */
#include "bale.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_epoch(struct bale_loader *l, const struct bale_loader_opts *o,
    uint64_t epoch)
{
	size_t bytes = (size_t)o->width * o->height * 3;
	struct bale_batch b;
	unsigned i;
	int rc;

	while ((rc = bale_loader_next(l, &b)) == BALE_OK) {
		printf("%" PRIu64 " %" PRIu64 " %u %08" PRIx32, epoch, b.index,
		    b.n, bale_crc32(b.images, bytes * b.n));
		for (i = 0; i < b.n; i++)
			printf(" %" PRId64, b.labels[i]);
		printf("\n");
	}
	return rc == BALE_ENOENT ? BALE_OK : rc;
}

static void parse(int argc, char **argv, struct bale_loader_opts *o,
    uint64_t *from_epoch, uint64_t *from_batch)
{
	int i;

	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--from") && i + 2 < argc) {
			*from_epoch = strtoull(argv[++i], NULL, 10);
			*from_batch = strtoull(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--eval")) {
			o->train = 0;
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			o->width = o->height = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
			o->batch_size = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--rank") && i + 1 < argc) {
			o->rank = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--world") && i + 1 < argc) {
			o->world_size = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--drop-last")) {
			o->drop_last = 1;
		} else if (!strcmp(argv[i], "--exact")) {
			o->exact = 1;
		} else if (!strcmp(argv[i], "--strict")) {
			o->strict = 1;
		} else if (!strcmp(argv[i], "--skip")) {
			o->on_bad = BALE_BAD_SKIP;
		} else if (!strcmp(argv[i], "--replace")) {
			o->on_bad = BALE_BAD_REPLACE;
		} else if (!strcmp(argv[i], "--hwc")) {
			o->channels_last = 1;
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			o->run_samples = (unsigned)atoi(argv[++i]);
			o->run_window = 3;
		} else if (!strcmp(argv[i], "--io-requests") && i + 1 < argc) {
			o->io_requests = (unsigned)atoi(argv[++i]);
		}
	}
}

int main(int argc, char **argv)
{
	struct bale_loader_opts o = { .batch_size = 8, .width = 32,
	    .height = 32, .train = 1, .seed = 7 };
	struct bale_loader *l = NULL;
	uint64_t from_epoch = 0, from_batch = 0, e, epochs;
	const char *why;
	uint64_t sample;
	size_t i;
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: bale-loader-run OUT THREADS EPOCHS "
		    "[options]\n");
		return 2;
	}
	o.threads = (unsigned)atoi(argv[2]);
	epochs = strtoull(argv[3], NULL, 10);
	parse(argc, argv, &o, &from_epoch, &from_batch);
	rc = bale_loader_new(&l);
	if (rc == BALE_OK)
		rc = bale_loader_open(l, argv[1], &o);
	for (e = from_epoch; rc == BALE_OK && e < epochs; e++) {
		rc = bale_loader_seek(l, e, e == from_epoch ? from_batch : 0);
		if (rc == BALE_OK)
			rc = run_epoch(l, &o, e);
	}
	for (i = 0; l && bale_loader_bad(l, i, &sample, &why) == BALE_OK; i++)
		fprintf(stderr, "bad %" PRIu64 ": %s\n", sample, why);
	if (rc != BALE_OK)
		fprintf(stderr, "bale-loader-run: %s\n", l ?
		    bale_loader_errmsg(l) : "no memory");
	bale_loader_free(l);
	return rc == BALE_OK ? 0 : 1;
}
