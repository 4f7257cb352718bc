/* cmd_merge.c - bale merge: the parts of one run as one dataset. */
#include "cli.h"

#include "bale.h"

#include <getopt.h>
#include <stdio.h>

static const char merge_help[] =
"usage: bale merge OUT PART... [-f FORMAT[,FORMAT...]] [--name NAME]\n"
"                  [--force]\n"
"\n"
"Join the parts of one run (bale pack --part I/N, each in its own\n"
"folder; give them in any order, e.g. parts/*) into one dataset in OUT,\n"
"the same as a single run's: same samples, order, keys, labels, bytes.\n"
"Every part must be complete (its NAME-part.json), of one run, and given\n"
"once: a missing, doubled or foreign part is named and nothing is done.\n"
"wds: the parts' shards are linked into OUT (hard links, else symbolic\n"
"ones: no shard data is copied), numbered in run order, under one shard\n"
"list written last. lmdb: one environment, the parts' records copied in\n"
"key order (MDB_APPEND). hdf5: not merged yet.\n"
"\n"
"  -f, --format LIST   formats to merge (default: all the parts hold)\n"
"      --name NAME     file prefix of the parts and of OUT (default: data)\n"
"      --force         replace a merged output already in OUT\n";

enum { OPT_NAME = 256, OPT_FORCE };

static const struct option merge_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ NULL, 0, NULL, 0 },
};

int cmd_merge(int argc, char **argv)
{
	struct bale_merge_opts o = { NULL, NULL, 0 };
	char msg[600];
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:h", merge_longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'h': fputs(merge_help, stdout); return CLI_OK;
		case 'f': o.formats = optarg; break;
		case OPT_NAME: o.name = optarg; break;
		case OPT_FORCE: o.replace = 1; break;
		default: return cli_usage_error("merge", "bad option");
		}
	}
	if (argc - optind < 2)
		return cli_usage_error("merge", "expected OUT and the PARTs");
	if (bale_merge_parts(argv[optind], (const char *const *)argv +
	    optind + 1, (size_t)(argc - optind - 1), &o, msg,
	    sizeof(msg)) != BALE_OK) {
		cli_error("merge", 0, msg);
		return CLI_FAILED;
	}
	return CLI_OK;
}
