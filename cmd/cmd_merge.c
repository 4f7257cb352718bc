/* cmd_merge.c - bale merge: the parts of one run as one dataset. */
#include "cli.h"

#include "bale.h"

#include <getopt.h>
#include <stdio.h>

static const char merge_help[] =
"usage: bale merge OUT PART... [-f FORMAT[,FORMAT...]] [--name NAME]\n"
"                  [--copy] [--force]\n"
"\n"
"Join the parts of one run (bale pack --part I/N, each in its own\n"
"folder; give them in any order, e.g. parts/*) into one dataset in OUT,\n"
"the same as a single run's: same samples, order, keys, labels, bytes.\n"
"Every part must be complete (its NAME-part.json), of one run, and given\n"
"once: a missing, doubled or foreign part is named and nothing is done.\n"
"wds: the parts' shards are linked into OUT (hard links, else symbolic\n"
"ones: no shard data is copied), numbered in run order, under one shard\n"
"list written last. lmdb: one environment, the parts' records copied in\n"
"key order (MDB_APPEND). hdf5: one file whose images are a virtual\n"
"dataset over the parts' files, named by their paths from OUT (move OUT\n"
"and the parts together; bale's readers name a part that is missing).\n"
"\n"
"  -f, --format LIST   formats to merge (default: all the parts hold)\n"
"      --name NAME     file prefix of the parts and of OUT (default: data)\n"
"      --copy          copy the parts' shards and images into OUT: an\n"
"                      output that stands alone (the parts can go)\n"
"      --force         replace a merged output already in OUT\n"
"\nExample: bale merge out/ parts/*   (parts packed with --part I/N)\n";

enum { OPT_NAME = 256, OPT_FORCE, OPT_COPY };

static const struct option merge_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "copy", no_argument, NULL, OPT_COPY },
	{ NULL, 0, NULL, 0 },
};

int cmd_merge(int argc, char **argv)
{
	struct bale_merge_opts o = { NULL, NULL, 0, 0 };
	struct bale_errbuf err;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:h", merge_longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'h': fputs(merge_help, stdout); return CLI_OK;
		case 'f': o.formats = optarg; break;
		case OPT_NAME: o.name = optarg; break;
		case OPT_FORCE: o.replace = 1; break;
		case OPT_COPY: o.copy = 1; break;
		default: return cli_bad_option("merge", argv, "f:h");
		}
	}
	if (argc - optind < 2)
		return cli_usage_error("merge", "expected OUT and the PARTs");
	if (bale_merge_parts(argv[optind], (const char *const *)argv +
	    optind + 1, (size_t)(argc - optind - 1), &o, &err) != BALE_OK) {
		fprintf(stderr, "bale merge: %s%s\n", err.msg,
		    err.remedy == BALE_REMEDY_REPLACE ?
		    " (use --force to replace it)" : "");
		return CLI_FAILED;
	}
	return CLI_OK;
}
