/* cli.h - what the subcommands share: exit codes, messages, parsing. */
#ifndef BALE_CLI_H
#define BALE_CLI_H

#include <stdint.h>

/* Exit status of every subcommand (documented in README.md). */
enum cli_exit {
	CLI_OK = 0,		/* done, nothing skipped */
	CLI_FAILED = 1,		/* the run failed; no output looks complete */
	CLI_USAGE = 2,		/* bad command line */
	CLI_SKIPPED = 3,	/* done, but some inputs were skipped */
};

/** "bale CMD: MESSAGE" on stderr; @msg may be empty. */
void cli_error(const char *cmd, int rc, const char *msg);

/** Print a usage hint for @cmd and return CLI_USAGE. */
/** getopt found a bad option (opterr is 0: nothing was said yet): say
 *  which, as cli_usage_error() does. @return CLI_USAGE */
int cli_bad_option(const char *cmd, char *const *argv, const char *shortopts);
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** -f @format names a format this build reads; else say which it
 *  reads. @return 0, or CLI_USAGE after saying why */
int cli_check_reader(const char *cmd, const char *format);

/** What a command that reads outputs takes, and what it was given. */
struct cli_read {
	const char *cmd;
	const char *help;
	int nargs;		/* operands, from argv[optind] */
	const char *expect;	/* them, in words, for the error */
	const char *format;	/* out: -f FORMAT, or NULL */
	int *force;		/* NULL: no --force; else out: it was given */
};

/** The options of the commands that read outputs: -f FORMAT, -h and,
 *  where @r->force is set, --force; then exactly @r->nargs operands.
 *  @return -1 when parsing may go on, else the exit status (CLI_OK
 *  after --help, CLI_USAGE on a bad command line) */
int cli_read_args(int argc, char **argv, struct cli_read *r);

/** Parse a non-negative decimal integer. @return 0 or -1 */
int cli_parse_u64(const char *s, uint64_t *out);

/** The value @v of @cmd's option @flag: a number, or with @is_size a
 *  size with K/M/G/T suffixes. @return 0, or CLI_USAGE after saying why */
int cli_flag_number(const char *cmd, const char *flag, const char *v,
    uint64_t *out, int is_size);

int cmd_bench(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_verify(int argc, char **argv);

#endif
