/* cli.c - messages and small parsers shared by the subcommands. */
#include "cli.h"

#include "bale.h"
#include "bale_backend.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_error(const char *cmd, int rc, const char *msg)
{
	if (msg && *msg)
		fprintf(stderr, "bale %s: %s\n", cmd, msg);
	else
		fprintf(stderr, "bale %s: %s\n", cmd, bale_strerror(rc));
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bale %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'bale %s --help'.\n", cmd);
	return CLI_USAGE;
}

int cli_bad_option(const char *cmd, char *const *argv, const char *shortopts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (optopt > 0 && optopt < 256 && !strchr(shortopts, optopt))
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	if (optopt > 0)
		return cli_usage_error(cmd, "option '%s' needs a value", arg);
	return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

int cli_flag_number(const char *cmd, const char *flag, const char *v,
    uint64_t *out, int is_size)
{
	int bad = is_size ? bale_parse_size(v, out) != BALE_OK :
	    cli_parse_u64(v, out) != 0;

	if (bad && is_size)
		return cli_usage_error(cmd, "%s: '%s' is not a size (bytes, or "
		    "with K, M, G, T: 512M)", flag, v);
	if (bad)
		return cli_usage_error(cmd, "%s: '%s' is not a whole number "
		    "of 0 or more", flag, v);
	return 0;
}

/* -f names a format this build reads, or the raw folder. */
int cli_check_reader(const char *cmd, const char *format)
{
	const char *const *names = bale_backend_names();
	const struct bale_backend *be = bale_backend_find(format);
	char list[256] = "";
	size_t i, len;

	if (be && be->reader)
		return 0;
	for (i = 0; names[i]; i++) {
		be = bale_backend_find(names[i]);
		len = strlen(list);
		if (be->reader)
			snprintf(list + len, sizeof(list) - len, "%s%s",
			    len ? ", " : "", names[i]);
	}
	return cli_usage_error(cmd, "-f: unknown format '%s' (this build "
	    "reads %s)", format, list);
}

int cli_read_args(int argc, char **argv, struct cli_read *r)
{
	int c;

	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	r->format = NULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(r->help, stdout);
			return CLI_OK;
		}
		if (c == 'F' && r->force)
			*r->force = 1;
		else if (c == 'F')
			return cli_usage_error(r->cmd, "unknown option "
			    "'--force'");
		else if (c != 'f')
			return cli_bad_option(r->cmd, argv, "f:h");
		else if (cli_check_reader(r->cmd, optarg) != 0)
			return CLI_USAGE;
		else
			r->format = optarg;
	}
	if (optind != argc - r->nargs)
		return cli_usage_error(r->cmd, "expected %s", r->expect);
	return -1;
}
