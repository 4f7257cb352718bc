/* cmd_pack.c - bale pack: parse, run the pipeline, report. */
#include "cli.h"
#include "encode_flags.h"
#include "format_flags.h"
#include "progress.h"

#include "bale.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PACK_MAX_OPTIONS 64

struct pack_args {
	struct bale_pack_opts opts;
	struct bale_encode_opts encode;
	const char *options[PACK_MAX_OPTIONS + 1];
	size_t noptions;
	char *owned[PACK_MAX_OPTIONS];	/* strings we built for options */
	size_t nowned;
	const char *report;
	int verbose;
	int quiet;
};

static const char pack_help[] =
"usage: bale pack SRC [SRC...] -f FORMAT[,FORMAT...] -o OUTDIR [options]\n"
"\n"
"Pack the ImageFolder tree SRC (one subfolder per class) into OUTDIR,\n"
"reading every input once for all formats: NAME-*.tar (wds), NAME.lmdb\n"
"(lmdb), NAME.h5 (hdf5). SRC may also be a tar, a tar of per-class tars\n"
"or a zip, read in place, or a compressed tar (.tar.gz, .tar.xz, ...),\n"
"streamed within --window (the same rules on member paths); several\n"
"archives pack as one dataset. SRC may be an output to convert: bale's\n"
"LMDB, HDF5 file or shard list, a Caffe LMDB, or WebDataset shards (a\n"
"folder of .tar or .tar.gz files, a brace pattern 'a-{000..009}.tar').\n"
"SRC may be Parquet files as Hugging Face datasets are published (an\n"
"image struct and a label column; several files, a folder of them, a\n"
"pattern 'train-*.parquet'): rows in order, the dataset's class names.\n"
"\n";

static const char pack_help_options[] =
"  -f, --format LIST     output formats, comma-separated (built: see\n"
"                        'bale --help')\n"
"  -o, --output DIR      output folder (created if missing)\n"
"      --name NAME       file prefix inside OUTDIR (default: data)\n"
"      --list FILE       take samples from FILE (PATH<TAB>LABEL per line,\n"
"                        paths relative to SRC, or member paths of its\n"
"                        archives) instead of walking SRC\n"
"  -j, --threads N       reader threads, 0..256 (default 0: one per CPU\n"
"                        the process may use, by affinity, cgroup quota\n"
"                        and Slurm's share; more while reads wait on the\n"
"                        disk)\n"
"      --shuffle         permute the sample order (seeded, reproducible)\n"
"      --part I/N        pack only part I (from 0) of N contiguous slices\n"
"                        of the final order; keys stay the whole run's,\n"
"                        and NAME-part.json marks the part complete (a\n"
"                        rerun of a complete part does nothing). 'auto':\n"
"                        the rank and count Slurm or Kubernetes gives\n"
"      --seed S          shuffle seed (default: 0)\n"
"  -O, --option K=V      format option, as FORMAT.KEY=VALUE or KEY=VALUE\n"
"                        (e.g. lmdb.map_size=2G: the initial LMDB map,\n"
"                        which grows by itself anyway); sizes take\n"
"                        K/M/G/T suffixes, powers of 1024\n"
"      --window SIZE     read-ahead memory bound (default 256M)\n"
"      --upload-part SIZE  OUTDIR in an object store (s3://): each\n"
"                        shard goes up as a multipart upload of parts\n"
"                        of SIZE (default 8M; S3 takes 5M to 5G)\n"
"      --uploads N       and N parts at once (default 4): a shard going\n"
"                        up holds (N + 1) x SIZE of memory at most\n"
"      --validate        decode every image (stored as it is) and skip\n"
"                        those that do not decode (cut, corrupt, not an\n"
"                        image), with why; JPEG and PNG are checked\n"
"      --strict          fail on the first input that cannot be packed\n"
"      --archive-root DIR  an archive source: the folder inside it that\n"
"                        holds the class folders ('.': its top level).\n"
"                        Without it: the top level, or the one top folder\n"
"                        every image is below when some lie in its\n"
"                        sub-folders (as 'tar -cf t.tar train' makes)\n"
"      --image-column COL  Parquet files: the column of image bytes, or\n"
"                        the struct whose 'bytes' it is (default: 'image',\n"
"                        else the one binary column)\n"
"      --label-column COL  Parquet files: the column of labels, integers\n"
"                        or class names (default: 'label')\n"
"      --allow-damaged   an archive source damaged part-way (cut short, a\n"
"                        bad header): pack the members before the damage,\n"
"                        with a warning (without it the run fails: what\n"
"                        follows the damage would be missing)\n"
"      --force           replace an existing output\n"
"      --resume          carry on from where an interrupted or failed run\n"
"                        with the same inputs and settings stopped (its\n"
"                        journal is OUTDIR/NAME-resume.json); without a\n"
"                        journal, start from the beginning\n"
"      --update          pack only what changed since OUTDIR was made\n"
"                        with --update (new, changed and removed files,\n"
"                        by size and time; labels stay as they were, new\n"
"                        classes numbered next): the same command every\n"
"                        night. The first run packs everything and keeps\n"
"                        OUTDIR/NAME-manifest.jsonl\n"
"      --relabel         with --update: rebuild everything, classes\n"
"                        numbered as torchvision does\n"
"      --report FILE     write a JSON report of the run to FILE\n"
"  -v, --verbose         progress lines even when stderr is not a terminal\n"
"  -q, --quiet           no progress, no summary\n"
"\n";

static const char pack_help_exit[] =
"Exit status: 0 done; 1 failed (no output looks complete); 2 bad usage;\n"
"3 done, but some inputs were skipped (each is listed on stderr and in\n"
"the report); 130 / 143 stopped by SIGINT / SIGTERM (only what is\n"
"checkpointed is kept, for --resume; a second signal kills at once).\n";

static const char pack_help_examples[] =
"\nExamples:\n"
"  bale pack train/ -f lmdb,hdf5,wds -o out/\n"
"  bale pack train/ -f wds -o out/ --shuffle --shard-size 512M\n"
"  bale pack train/ -f lmdb -o out/ --resize shorter:256 --quality 90\n"
"  bale pack train/ -f wds,lmdb -o out/ --update        (every night)\n";

enum pack_longopt {
	OPT_NAME = 256, OPT_LIST, OPT_SHUFFLE, OPT_SEED, OPT_WINDOW,
	OPT_STRICT, OPT_FORCE, OPT_REPORT, OPT_RESUME, OPT_PART, OPT_UPDATE,
	OPT_RELABEL, OPT_ALLOW_DAMAGED, OPT_VALIDATE,
	OPT_ARCHIVE_ROOT, OPT_UPLOAD_PART, OPT_UPLOADS, OPT_IMAGE_COLUMN,
	OPT_LABEL_COLUMN,
};

static const struct option pack_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "threads", required_argument, NULL, 'j' },
	{ "option", required_argument, NULL, 'O' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "list", required_argument, NULL, OPT_LIST },
	{ "shuffle", no_argument, NULL, OPT_SHUFFLE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "resume", no_argument, NULL, OPT_RESUME },
	{ "part", required_argument, NULL, OPT_PART },
	{ "update", no_argument, NULL, OPT_UPDATE },
	{ "relabel", no_argument, NULL, OPT_RELABEL },
	{ "allow-damaged", no_argument, NULL, OPT_ALLOW_DAMAGED },
	{ "validate", no_argument, NULL, OPT_VALIDATE },
	{ "archive-root", required_argument, NULL, OPT_ARCHIVE_ROOT },
	{ "image-column", required_argument, NULL, OPT_IMAGE_COLUMN },
	{ "label-column", required_argument, NULL, OPT_LABEL_COLUMN },
	{ "upload-part", required_argument, NULL, OPT_UPLOAD_PART },
	{ "uploads", required_argument, NULL, OPT_UPLOADS },
	ENCODE_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

static int pack_add_option(struct pack_args *a, const char *kv, int owned)
{
	if (a->noptions == PACK_MAX_OPTIONS)
		return cli_usage_error("pack", "too many options");
	a->options[a->noptions++] = kv;
	if (owned)
		a->owned[a->nowned++] = (char *)kv;
	return 0;
}

/* A format's flag (format_flags.c) as the writer option it stands for. */
static int pack_format_flag(struct pack_args *a, int c, const char *arg)
{
	char *kv = format_flag_option(c, arg);

	if (!kv)
		return cli_usage_error("pack", "out of memory");
	return pack_add_option(a, kv, 1);
}

static int pack_flag(struct pack_args *a, int c, const char *arg)
{
	struct bale_errbuf err;
	uint64_t n;

	if (c >= OPT_ENC_FIRST && c <= OPT_ENC_LAST) {
		a->opts.encode = &a->encode;
		return encode_flag(&a->encode, c, arg);
	}
	if (c >= FORMAT_FLAG_FIRST)
		return pack_format_flag(a, c, arg);
	switch (c) {
	case 'f':
		if (a->opts.formats)	/* the last one would win, unseen */
			return cli_usage_error("pack", "-f given twice: list "
			    "the formats once, comma-separated (-f hdf5,lmdb)");
		a->opts.formats = arg;
		return 0;
	case 'o': a->opts.out = arg; return 0;
	case 'O': return pack_add_option(a, arg, 0);
	case 'v': a->verbose = 1; return 0;
	case 'q': a->quiet = 1; return 0;
	case OPT_NAME: a->opts.name = arg; return 0;
	case OPT_LIST: a->opts.list = arg; return 0;
	case OPT_SHUFFLE: a->opts.shuffle = 1; return 0;
	case OPT_STRICT: a->opts.strict = 1; return 0;
	case OPT_FORCE: a->opts.replace = 1; return 0;
	case OPT_ALLOW_DAMAGED: a->opts.allow_damaged = 1; return 0;
	case OPT_VALIDATE: a->opts.validate = 1; return 0;
	case OPT_ARCHIVE_ROOT: a->opts.archive_root = arg; return 0;
	case OPT_IMAGE_COLUMN: a->opts.image_column = arg; return 0;
	case OPT_LABEL_COLUMN: a->opts.label_column = arg; return 0;
	case OPT_REPORT: a->report = arg; return 0;
	case OPT_RESUME: a->opts.resume = 1; return 0;
	case OPT_UPDATE: a->opts.update = 1; return 0;
	case OPT_RELABEL: a->opts.relabel = 1; return 0;
	case OPT_SEED:
		return cli_flag_number("pack", "--seed", arg, &a->opts.seed, 0);
	case OPT_PART:
		if (bale_part_parse(arg, &a->opts.part_index,
		    &a->opts.part_count, &err) != BALE_OK)
			return cli_usage_error("pack", "--part %s: %s", arg,
			    err.msg);
		return 0;
	case 'j':	/* 0: one per CPU, as threads=0 from Python */
		if (cli_flag_number("pack", "-j", arg, &n, 0))
			return CLI_USAGE;
		if (n > 256)
			return cli_usage_error("pack", "-j: '%s': at most 256 "
			    "threads (0: one per CPU)", arg);
		a->opts.threads = (unsigned)n;
		return 0;
	case OPT_WINDOW:
		if (cli_flag_number("pack", "--window", arg, &n, 1))
			return CLI_USAGE;
		a->opts.window_bytes = (size_t)n;
		return 0;
	case OPT_UPLOAD_PART:
		if (cli_flag_number("pack", "--upload-part", arg, &n, 1))
			return CLI_USAGE;
		a->opts.upload_part = (size_t)n;
		return 0;
	case OPT_UPLOADS:
		if (cli_flag_number("pack", "--uploads", arg, &n, 0))
			return CLI_USAGE;
		if (n < 1 || n > 64)
			return cli_usage_error("pack", "--uploads: '%s': 1 to "
			    "64 parts at once", arg);
		a->opts.uploads = (unsigned)n;
		return 0;
	default:
		return cli_usage_error("pack", "bad option");
	}
}

/* The fixed flags, then the formats' (from their option tables). */
static void pack_all_longopts(struct option *opts)
{
	size_t n = 0;

	while (pack_longopts[n].name) {
		opts[n] = pack_longopts[n];
		n++;
	}
	format_flags_longopts(opts, n);
}

static int pack_parse(int argc, char **argv, struct pack_args *a)
{
	struct option longopts[sizeof(pack_longopts) / sizeof(*pack_longopts) +
	    FORMAT_FLAGS_MAX];
	int c;

	pack_all_longopts(longopts);
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:j:O:vqh", longopts,
	    NULL)) != -1) {
		if (c == 'h') {
			fputs(pack_help, stdout);
			fputs(pack_help_options, stdout);
			fputs("Format options (from each format's table; -O "
			    "FORMAT.KEY=VALUE sets any):\n", stdout);
			format_flags_help(stdout);
			fputs("\n", stdout);
			fputs(pack_help_exit, stdout);
			fputs("\n", stdout);
			fputs(encode_help, stdout);
			fputs(pack_help_examples, stdout);
			exit(CLI_OK);
		}
		if (c == '?')
			return cli_bad_option("pack", argv, "f:o:j:O:vqh");
		if (pack_flag(a, c, optarg) != 0)
			return CLI_USAGE;
	}
	if (optind >= argc)
		return cli_usage_error("pack", "expected a SRC folder, archive "
		    "or output");
	a->opts.src = argv[optind];
	if (optind + 1 < argc)	/* argv is NULL-terminated */
		a->opts.more_srcs = (const char *const *)argv + optind + 1;
	if (!a->opts.formats)
		return cli_usage_error("pack", "choose a format with -f");
	if (!a->opts.out)
		return cli_usage_error("pack", "choose an output with -o");
	a->options[a->noptions] = NULL;
	a->opts.options = a->options;
	return 0;
}

/* The library's sentence, and what to do about it in this tool's
 * flags. */
static void pack_error(const struct bale_pipeline *p, int rc)
{
	static const char *const hints[] = {
		[BALE_REMEDY_REPLACE] = " (use --force to replace it)",
		[BALE_REMEDY_ALLOW_DAMAGED] = " (--allow-damaged packs what "
		    "comes before the damage)",
		[BALE_REMEDY_RESUME] = ": run again with --resume to carry on",
		[BALE_REMEDY_START_OVER] = ": run without --resume to start "
		    "over",
		[BALE_REMEDY_RELABEL] = " (add --relabel: the update then "
		    "rebuilds the output)",
		[BALE_REMEDY_START_UPDATES] = " (add --force: with --update, "
		    "the rebuild writes the manifest later updates compare "
		    "against)",
		[BALE_REMEDY_FREE_SPACE] = ": free space there, then run "
		    "again",
		[BALE_REMEDY_FREE_SPACE_RESUME] = ": free space there, then "
		    "run again with --resume to carry on",
	};
	int remedy = p ? bale_pipeline_remedy(p) : BALE_REMEDY_NONE;
	const char *hint = remedy > 0 && remedy < (int)(sizeof(hints) /
	    sizeof(hints[0])) ? hints[remedy] : NULL;

	if (!p) {
		cli_error("pack", rc, "");
		return;
	}
	fprintf(stderr, "bale pack: %s%s\n", bale_pipeline_errmsg(p),
	    hint ? hint : "");
}

/* Every skipped input, then one summary line. */
static void pack_summary(const struct bale_pipeline *p,
    const struct pack_args *a, int done)
{
	struct bale_pack_stats st;
	const char *path;
	const char *why;
	size_t i;

	bale_pipeline_stats(p, &st);
	for (i = 0; bale_pipeline_warning(p, i, &path, &why) == BALE_OK; i++)
		fprintf(stderr, "bale pack: %s: %s\n", path, why);
	for (i = 0; bale_pipeline_skipped(p, i, &path, &why) == BALE_OK; i++)
		fprintf(stderr, "bale pack: skipped '%s': %s\n", path, why);
	if (a->quiet || !done)
		return;
	if (st.version)
		fprintf(stderr, "bale pack: version %llu of the dataset: %llu "
		    "added, %llu replaced, %llu removed, %llu unchanged, %llu "
		    "new classes\n", (unsigned long long)st.version,
		    (unsigned long long)st.added,
		    (unsigned long long)st.replaced,
		    (unsigned long long)st.removed,
		    (unsigned long long)st.unchanged,
		    (unsigned long long)st.new_classes);
	if (st.resumed_at && st.resumed_at == st.found)
		return;	/* nothing was left to do: the warning said so */
	if (st.resumed_at)
		fprintf(stderr, "bale pack: resumed at input %llu of %llu: "
		    "the %llu samples an earlier run wrote before it are "
		    "kept\n",
		    (unsigned long long)st.resumed_at,
		    (unsigned long long)st.found,
		    (unsigned long long)st.resumed_kept);
	fprintf(stderr, "bale pack: %llu samples (%.1f MB) into '%s' in %.2f s"
	    " (%.0f samples/s); %llu skipped, %llu non-image files ignored",
	    (unsigned long long)st.packed, (double)st.bytes / 1e6,
	    a->opts.out, st.seconds,
	    st.seconds > 0 ? (double)st.packed / st.seconds : 0.0,
	    (unsigned long long)st.skipped, (unsigned long long)st.ignored);
	if (st.reencoded)	/* nobody loses quality unawares */
		fprintf(stderr, "; %llu of the samples re-encoded",
		    (unsigned long long)st.reencoded);
	if (st.resumed_at)
		fprintf(stderr, "; the output holds %llu samples",
		    (unsigned long long)(st.resumed_kept + st.packed));
	fputc('\n', stderr);
}

/* SIGINT and SIGTERM stop the run cleanly; a second one kills, as the
 * handler is reset to the default when it runs. */
static struct bale_pipeline *pack_running;
static volatile sig_atomic_t pack_signal;

static void pack_on_signal(int sig)
{
	pack_signal = sig;
	if (pack_running)
		bale_pipeline_stop(pack_running);
}

static void pack_catch_signals(struct bale_pipeline *p)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pack_on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	pack_running = p;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int pack_exit(const struct bale_pipeline *p, int rc)
{
	struct bale_pack_stats st;

	if (rc == BALE_EINTR && pack_signal)
		return 128 + pack_signal;	/* as the shell reports it */
	if (rc != BALE_OK && bale_pipeline_remedy(p) ==
	    BALE_REMEDY_CHANGE_OPTIONS)
		return CLI_USAGE;
	if (rc != BALE_OK)
		return CLI_FAILED;
	bale_pipeline_stats(p, &st);
	return st.skipped ? CLI_SKIPPED : CLI_OK;
}

int cmd_pack(int argc, char **argv)
{
	struct pack_args a;
	struct cli_progress cp;
	struct bale_pipeline *p = NULL;
	size_t i;
	int rc;

	memset(&a, 0, sizeof(a));
	if (pack_parse(argc, argv, &a) != 0) {
		rc = CLI_USAGE;
		goto out_free;
	}
	if (cli_progress_init(&cp, a.verbose, a.quiet)) {
		a.opts.progress = cli_progress_show;
		a.opts.progress_arg = &cp;
	}
	rc = bale_pipeline_new(&p);
	if (rc == BALE_OK) {
		pack_catch_signals(p);
		rc = bale_pipeline_run(p, &a.opts);
	}
	if (rc != BALE_OK)
		pack_error(p, rc);
	if (p)
		pack_summary(p, &a, rc == BALE_OK);
	if (p && a.report &&
	    bale_pipeline_write_report(p, &a.opts, a.report) != BALE_OK) {
		fprintf(stderr, "bale pack: cannot write report '%s'\n",
		    a.report);
		rc = rc ? rc : BALE_EIO;
	}
	rc = pack_exit(p, rc);
	pack_running = NULL;
	bale_pipeline_free(p);
out_free:
	for (i = 0; i < a.nowned; i++)
		free(a.owned[i]);
	return rc;
}
