/* cmd_formats.c - bale formats: the backends built in, as they describe
 * themselves. */
#include "cli.h"

#include "bale_backend.h"

#include <stdio.h>
#include <string.h>

static const char formats_help[] =
"usage: bale formats\n"
"\n"
"One line per format built in: its name, what it can do (write, read,\n"
"random: any sample at the same cost, threads: several readers at once,\n"
"empty: stores 0-byte samples, remote: reads from object stores (s3://,\n"
"https://), remote-out: packs into one (s3://), resume: pack --resume\n"
"carries on what it wrote, merge: bale merge joins its parts, update:\n"
"pack --update changes it in place, remote-update: there too in an\n"
"object store, remote-merge: merges parts in one), its library and what\n"
"it is.\n"
"\nExample: bale formats\n";

static void formats_caps(char *out, size_t n, const struct bale_backend *be)
{
	snprintf(out, n, "%s%s%s%s%s%s%s%s%s%s%s%s", be->writer ? "write," :
	    "",
	    be->reader ? "read," : "", be->caps & BALE_CAP_RANDOM ?
	    "random," : "", be->caps & BALE_CAP_THREADS ? "threads," : "",
	    be->caps & BALE_CAP_EMPTY ? "empty," : "",
	    be->caps & BALE_CAP_REMOTE ? "remote," : "",
	    be->caps & BALE_CAP_WRITE_REMOTE ? "remote-out," : "",
	    be->writer && be->writer->resume ? "resume," : "",
	    be->merge ? "merge," : "", be->update ? "update," : "",
	    be->caps & BALE_CAP_UPDATE_REMOTE ? "remote-update," : "",
	    be->caps & BALE_CAP_MERGE_REMOTE ? "remote-merge," : "");
	if (out[0])
		out[strlen(out) - 1] = '\0';
}

int cmd_formats(int argc, char **argv)
{
	const char *const *names = bale_backend_names();
	const struct bale_backend *be;
	char caps[160];
	size_t i;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		fputs(formats_help, stdout);
		return CLI_OK;
	}
	if (argc > 1)
		return cli_usage_error("formats", "takes no arguments");
	for (i = 0; names[i]; i++) {
		be = bale_backend_find(names[i]);
		formats_caps(caps, sizeof(caps), be);
		printf("%-7s %-58s %-11s %s\n", be->name, caps,
		    be->library ? be->library : "-", be->summary);
	}
	return CLI_OK;
}
