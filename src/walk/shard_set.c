/* shard_set.c - which sources name a set of files (WebDataset shards,
 * Parquet files): a folder holding such files and no subfolder (an
 * ImageFolder tree has class folders), a brace pattern as webdataset
 * takes it ("train-{000000..000146}.tar", "{a,b}.tar"), or a wildcard
 * pattern ('train-*.parquet') no file is named; in an object store, a
 * folder (prefix) or a wildcard in the last part, by listing it. */
#include "shard_set.h"

#include "bale.h"
#include "bale_backend_util.h"
#include "bale_store.h"
#include "relpath.h"
#include "walk.h"

#include <dirent.h>
#include <glob.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* More names than any dataset has shards: a pattern past it is a typo. */
#define SHARD_MAX_NAMES 1000000

struct shard_names {
	char **v;
	size_t n;
	size_t cap;
	int nomem;
};

static void shard_add(struct shard_names *s, char *name)
{
	char **v;

	if (!name || s->nomem) {
		s->nomem = 1;
		free(name);
		return;
	}
	if (s->n == s->cap) {
		v = realloc(s->v, (s->cap ? s->cap * 2 : 64) * sizeof(*v));
		if (!v) {
			s->nomem = 1;
			free(name);
			return;
		}
		s->v = v;
		s->cap = s->cap ? s->cap * 2 : 64;
	}
	s->v[s->n++] = name;
}

static int shard_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A shard's file name: a tar, compressed or not (webdataset reads both). */
static int shard_is_name(const char *name)
{
	static const char *const exts[] = { ".tar", ".tar.gz", ".tgz",
	    ".tar.bz2", ".tar.xz", ".tar.zst", ".tar.lz4" };
	size_t n = strlen(name);
	size_t i, k;

	for (i = 0; i < sizeof(exts) / sizeof(*exts); i++) {
		k = strlen(exts[i]);
		if (n > k && strcasecmp(name + n - k, exts[i]) == 0)
			return 1;
	}
	return 0;
}

/* The files of folder @dir that @want takes, sorted; 0 when it has a
 * subfolder (or no such file): then it is not a folder of them. */
static int shard_folder(const char *dir, int (*want)(const char *name),
    struct shard_names *s)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	char *path;
	int subdir = 0;

	if (!d)
		return 0;
	while (!subdir && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			s->nomem = 1;
			break;
		}
		if (stat(path, &st) != 0)
			st.st_mode = 0;	/* gone, or a broken link */
		subdir = S_ISDIR(st.st_mode);
		if (S_ISREG(st.st_mode) && want(de->d_name))
			shard_add(s, path);
		else
			free(path);
	}
	closedir(d);
	if (subdir)
		return 0;
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), shard_cmp);
	return s->n > 0;
}

/* "{lo..hi}": the two numbers and the width to pad to (when either is
 * written with a leading zero). 0 if @body is not such a range. */
static int shard_range(const char *body, size_t len, long *lo, long *hi,
    int *width)
{
	char buf[64];
	char *dots;
	char *end;

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, body, len);
	buf[len] = '\0';
	dots = strstr(buf, "..");
	if (!dots || dots == buf)
		return 0;
	*dots = '\0';
	errno = 0;
	*lo = strtol(buf, &end, 10);
	if (*end || errno)
		return 0;
	*hi = strtol(dots + 2, &end, 10);
	if (*end || errno || dots[2] == '\0')
		return 0;
	*width = (buf[0] == '0' && buf[1]) || (dots[2] == '0' && dots[3]) ?
	    (int)(strlen(buf) > strlen(dots + 2) ? strlen(buf) :
	    strlen(dots + 2)) : 0;
	return 1;
}

static void shard_expand(struct shard_names *s, const char *done,
    const char *rest);

/* One alternative of a brace: @head + @alt, then the rest expanded. */
static void shard_alternative(struct shard_names *s, const char *done,
    size_t dlen, const char *alt, size_t alen, const char *rest)
{
	char *head;

	if (asprintf(&head, "%.*s%.*s", (int)dlen, done, (int)alen, alt) < 0) {
		s->nomem = 1;
		return;
	}
	shard_expand(s, head, rest);
	free(head);
}

static void shard_expand_brace(struct shard_names *s, const char *done,
    const char *open, const char *close)
{
	const char *body = open + 1;
	size_t len = (size_t)(close - body);
	size_t dlen = strlen(done);
	char num[32];
	long lo, hi, i;
	int width;
	const char *c;

	if (shard_range(body, len, &lo, &hi, &width)) {
		for (i = lo; !s->nomem && s->n <= SHARD_MAX_NAMES;
		    i += lo <= hi ? 1 : -1) {
			snprintf(num, sizeof(num), "%0*ld", width, i);
			shard_alternative(s, done, dlen, num, strlen(num),
			    close + 1);
			if (i == hi)
				break;
		}
		return;
	}
	for (c = body; !s->nomem && s->n <= SHARD_MAX_NAMES; c++) {
		const char *comma = memchr(c, ',', (size_t)(close - c));
		const char *e = comma ? comma : close;

		shard_alternative(s, done, dlen, c, (size_t)(e - c), close + 1);
		if (!comma)
			break;
		c = comma;
	}
}

/* Expand the first brace of @rest (after @done, already literal). */
static void shard_expand(struct shard_names *s, const char *done,
    const char *rest)
{
	const char *open = strchr(rest, '{');
	const char *close = open ? strchr(open, '}') : NULL;
	char *head;

	if (s->nomem || s->n > SHARD_MAX_NAMES)
		return;
	if (!close) {
		if (asprintf(&head, "%s%s", done, rest) < 0)
			head = NULL;
		shard_add(s, head);
		return;
	}
	if (asprintf(&head, "%s%.*s", done, (int)(open - rest), rest) < 0) {
		s->nomem = 1;
		return;
	}
	shard_expand_brace(s, head, open, close);
	free(head);
}

void bale_shard_set_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

/* The files a wildcard pattern ('train-*.parquet') matches, that @want
 * takes, sorted by name. */
static int shard_glob(const char *pattern, int (*want)(const char *name),
    struct shard_names *s)
{
	glob_t g;
	size_t i;

	if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
		return 0;
	for (i = 0; i < g.gl_pathc; i++)
		if (want(g.gl_pathv[i]))
			shard_add(s, strdup(g.gl_pathv[i]));
	globfree(&g);
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), shard_cmp);
	return s->n > 0;
}

/* A remote folder being listed for the files @want takes. */
struct remote_set {
	const char *dir;	/* the folder, its length: */
	int dirlen;
	const char *pattern;	/* the names' wildcard pattern, or NULL */
	int (*want)(const char *name);
	struct shard_names *s;
};

#define REMOTE_SUBDIR 1		/* a listing's stop: a subfolder */

static int remote_entry(void *arg, const char *entry, int is_dir)
{
	struct remote_set *r = arg;
	char *path;

	if (is_dir)	/* a tree, unless a pattern picks names */
		return r->pattern ? 0 : REMOTE_SUBDIR;
	if (!r->want(entry) || (r->pattern && fnmatch(r->pattern, entry,
	    FNM_PERIOD) != 0))
		return 0;
	if (asprintf(&path, "%.*s/%s", r->dirlen, r->dir, entry) < 0) {
		r->s->nomem = 1;
		return 0;
	}
	shard_add(r->s, path);
	return 0;
}

/* The files of a folder in an object store (none if it has a
 * subfolder), or those of its folder a wildcard pattern in its last
 * part matches. @return 1 found, 0 none, or the listing's error */
static int shard_remote(const char *src, int (*want)(const char *name),
    struct shard_names *s, struct bale_errbuf *err)
{
	const char *slash = strrchr(src, '/');
	struct remote_set r = { src, bale_path_trim_len(src), NULL, want, s };
	char *dir;
	int rc;

	if (slash && strpbrk(slash + 1, "*?[")) {
		r.pattern = slash + 1;
		r.dirlen = (int)(slash - src);
	}
	dir = strndup(src, (size_t)r.dirlen);
	if (!dir)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	rc = bale_store_list(dir, remote_entry, &r, err);
	free(dir);
	if (rc == REMOTE_SUBDIR || rc == BALE_ENOENT) {
		bale_shard_set_free(s->v, s->n);
		memset(s, 0, sizeof(*s));
		return 0;
	}
	if (rc != BALE_OK)
		return rc;
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), shard_cmp);
	return s->n > 0;
}

/* Is @src a folder (named with its slash: any other name would cost
 * every remote source a listing) or a wildcard pattern in an object
 * store? (A brace pattern names its files: they are not listed.) */
static int shard_is_remote_set(const char *src)
{
	const char *slash = strrchr(src, '/');

	if (bale_store_is_local(src) || !slash || (strchr(src, '{') &&
	    strchr(src, '}')))
		return 0;
	return slash[1] == '\0' || strpbrk(slash + 1, "*?[") != NULL;
}

int bale_file_set(const char *src, int (*want)(const char *name),
    char ***paths, size_t *n, struct bale_errbuf *err)
{
	struct shard_names s = { NULL, 0, 0, 0 };
	struct stat st;
	int found;

	*paths = NULL;
	*n = 0;
	if (shard_is_remote_set(src))
		found = shard_remote(src, want, &s, err);
	else if (stat(src, &st) == 0)
		found = S_ISDIR(st.st_mode) && shard_folder(src, want, &s);
	else if (strchr(src, '{') && strchr(src, '}')) {
		shard_expand(&s, "", src);
		found = 1;
	} else
		found = strpbrk(src, "*?[") && shard_glob(src, want, &s);
	if (found < 0) {
		bale_shard_set_free(s.v, s.n);
		return found;
	}
	if (s.nomem || s.n > SHARD_MAX_NAMES) {
		bale_shard_set_free(s.v, s.n);
		return s.nomem ? bale_errbuf_set(err, BALE_ENOMEM, "no memory")
		    : bale_errbuf_set(err, BALE_EINVAL, "'%s' names over a "
		    "million shards", src);
	}
	if (!found) {
		bale_shard_set_free(s.v, s.n);
		return 0;
	}
	*paths = s.v;
	*n = s.n;
	return 1;
}

int bale_shard_set(const char *src, char ***paths, size_t *n,
    struct bale_errbuf *err)
{
	return bale_file_set(src, shard_is_name, paths, n, err);
}
