/* format_flags.c - bale pack's flags for the formats' writer options.
 *
 * Each format declares its options in a table (bale_backend.h); those
 * with a cli name become flags here, so a format's option gets its flag
 * and its --help line without this tool knowing the format. A flag that
 * several formats declare (--fsync) is one flag setting the bare key,
 * which every chosen format that takes it applies.
 */
#include "format_flags.h"

#include "bale_backend.h"

#include <stdlib.h>
#include <string.h>

struct format_flag {
	const struct bale_option *o;
	const char *format;	/* NULL: several formats declare it */
};

static struct format_flag flags[FORMAT_FLAGS_MAX];
static size_t nflags;
static int built;

static struct format_flag *format_flag_find(const char *cli)
{
	size_t i;

	for (i = 0; i < nflags; i++)
		if (strcmp(flags[i].o->cli, cli) == 0)
			return &flags[i];
	return NULL;
}

static void format_flags_build(void)
{
	const char *const *names = bale_backend_names();
	const struct bale_backend *be;
	const struct bale_option *o;
	struct format_flag *seen;
	size_t i;

	for (i = 0; !built && names[i]; i++) {
		be = bale_backend_find(names[i]);
		for (o = be ? be->writer_options : NULL; o && o->key; o++) {
			if (!o->cli)
				continue;
			if ((seen = format_flag_find(o->cli)))
				seen->format = NULL;
			else if (nflags < FORMAT_FLAGS_MAX)
				flags[nflags++] = (struct format_flag){ o,
				    be->name };
		}
	}
	built = 1;
}

size_t format_flags_longopts(struct option *opts, size_t n)
{
	size_t i;

	format_flags_build();
	for (i = 0; i < nflags; i++)
		opts[n++] = (struct option){ flags[i].o->cli, flags[i].o->arg ?
		    required_argument : no_argument, NULL,
		    FORMAT_FLAG_FIRST + (int)i };
	opts[n] = (struct option){ NULL, 0, NULL, 0 };
	return n;
}

char *format_flag_option(int c, const char *arg)
{
	const struct format_flag *f;
	const char *value;
	size_t len;
	char *kv;

	format_flags_build();
	if (c < FORMAT_FLAG_FIRST || c >= FORMAT_FLAG_FIRST + (int)nflags)
		return NULL;
	f = &flags[c - FORMAT_FLAG_FIRST];
	value = f->o->arg ? arg : "1";
	len = strlen(f->format ? f->format : "") + strlen(f->o->key) +
	    strlen(value) + 3;
	if (!(kv = malloc(len)))
		return NULL;
	snprintf(kv, len, "%s%s%s=%s", f->format ? f->format : "",
	    f->format ? "." : "", f->o->key, value);
	return kv;
}

/* @text from column 24, wrapped before column 78. */
static void format_flags_wrap(FILE *f, int col, const char *text)
{
	const char *end;
	int len;

	while (*text) {
		fprintf(f, "%*s", col < 24 ? 24 - col : 0, "");
		len = (int)strlen(text);
		if (len > 54) {		/* break at the last space that fits */
			for (end = text + 54; end > text && *end != ' '; end--)
				;
			len = end > text ? (int)(end - text) : 54;
		}
		fprintf(f, "%.*s\n", len, text);
		text += len;
		text += *text == ' ';
		col = 0;
	}
}

void format_flags_help(FILE *f)
{
	char line[160];
	size_t i;
	int n;

	format_flags_build();
	for (i = 0; i < nflags; i++) {
		n = snprintf(line, sizeof(line), "      --%s%s%s",
		    flags[i].o->cli, flags[i].o->arg ? " " : "",
		    flags[i].o->arg ? flags[i].o->arg : "");
		fputs(line, f);
		if (n > 23) {		/* the text on the next line */
			fputs("\n", f);
			n = 0;
		} else
			fputs(" ", f), n++;
		snprintf(line, sizeof(line), "%s%s%s", flags[i].format ?
		    flags[i].format : "", flags[i].format ? ": " : "",
		    flags[i].o->help);
		format_flags_wrap(f, n, line);
	}
}
