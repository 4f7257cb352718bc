/* cmd_extract.c - bale extract: rebuild the source tree from an output.
 *
 * Stored paths are untrusted: an absolute path, a ".." or "." component,
 * or an empty one is refused, and every folder is opened relative to its
 * parent with O_NOFOLLOW, so nothing is written outside DIR even if a
 * symlink inside DIR points elsewhere.
 */
#include "cli.h"
#include "outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char extract_help[] =
"usage: bale extract OUT DIR [-f FORMAT] [--force]\n"
"\n"
"Write every sample of OUT to DIR under its original relative path.\n"
"Paths that would leave DIR are refused and reported. A file already in\n"
"DIR is left as it is, and reported, unless --force.\n"
"\n"
"  -f, --format F  the output of format F in OUT\n"
"      --force     replace files already in DIR\n"
"\n"
"Exit status: 0 all written, 1 some sample was refused or failed, or its\n"
"file was there already; 2 usage.\n"
"\nExample: bale extract out/data.h5 back/ && diff -r train/ back/\n";

/* Files in the way said one by one up to this many, then counted. */
#define EXTRACT_SAY_EXISTING 10

struct extract_run {
	int dirfd;
	const char *dir;
	int force;		/* replace files in the way */
	uint64_t bad;
	uint64_t existing;	/* files in the way, left as they were */
};

/* 1 if @path is relative and every component is a plain name. */
static int extract_safe(const char *path)
{
	const char *p = path;
	size_t n;

	if (!*p || *p == '/')
		return 0;
	while (*p) {
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n;
		if (*p == '/')
			p++;
		if (!*p && p[-1] == '/')
			return 0;
	}
	return 1;
}

/* Open (creating) each folder of @path below @dirfd; returns the fd of
 * the last folder and sets *base to the file name, or -1. */
static int extract_parent(int dirfd, char *path, const char **base)
{
	int fd = dup(dirfd);
	char *slash;
	char *name = path;
	int next;

	while (fd >= 0 && (slash = strchr(name, '/'))) {
		*slash = '\0';
		if (mkdirat(fd, name, 0777) != 0 && errno != EEXIST)
			next = -1;
		else
			next = openat(fd, name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		*slash = '/';
		close(fd);
		fd = next;
		name = slash + 1;
	}
	*base = name;
	return fd;
}

static int extract_write(const struct extract_run *x,
    const struct bale_blob *b)
{
	char *path = strdup(b->path);
	const char *base;
	int pfd;
	int fd = -1;
	int ok = 0;

	pfd = path ? extract_parent(x->dirfd, path, &base) : -1;
	if (pfd >= 0)
		fd = openat(pfd, base, O_WRONLY | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC | (x->force ? O_TRUNC : O_EXCL), 0644);
	if (fd >= 0) {
		ok = (b->size == 0 || write(fd, b->data, b->size) ==
		    (ssize_t)b->size);
		ok = close(fd) == 0 && ok;
	}
	if (pfd >= 0)
		close(pfd);
	free(path);
	return ok ? 0 : -1;
}

/* Sample @i could not be written: in the way, or an error. */
static void extract_failed(struct extract_run *x, uint64_t i,
    const struct bale_blob *b)
{
	if (errno != EEXIST || x->force) {
		fprintf(stderr, "bale extract: cannot write '%s/%s': %s\n",
		    x->dir, b->path, strerror(errno));
		x->bad++;
		return;
	}
	if (x->existing++ < EXTRACT_SAY_EXISTING)
		fprintf(stderr, "bale extract: sample %" PRIu64 ": '%s/%s' "
		    "exists: left as it was\n", i, x->dir, b->path);
}

static int extract_all(struct bale_reader *r, struct extract_run *x)
{
	struct bale_blob b;
	uint64_t n = 0;
	uint64_t i;

	bale_reader_count(r, &n);
	for (i = 0; i < n; i++) {
		if (bale_reader_get(r, i, &b) != BALE_OK) {
			fprintf(stderr, "bale extract: %s\n",
			    bale_reader_errmsg(r));
			x->bad++;
		} else if (!b.path || !extract_safe(b.path)) {
			fprintf(stderr, "bale extract: sample %" PRIu64 ": "
			    "refusing path '%s' (not a plain relative path)\n",
			    i, b.path ? b.path : "");
			x->bad++;
		} else if (extract_write(x, &b) != 0) {
			extract_failed(x, i, &b);
		}
	}
	if (x->existing)
		fprintf(stderr, "bale extract: %" PRIu64 " file%s already in "
		    "'%s' left as %s (--force replaces them)\n", x->existing,
		    x->existing > 1 ? "s" : "", x->dir, x->existing > 1 ?
		    "they were" : "it was");
	return x->bad || x->existing ? CLI_FAILED : CLI_OK;
}

int cmd_extract(int argc, char **argv)
{
	struct extract_run x = { -1, NULL, 0, 0, 0 };
	struct cli_read a = { "extract", extract_help, 2, "OUT and DIR", NULL,
	    &x.force };
	struct bale_reader *r;
	const char *dir;
	int dirfd;
	int rc;
	int c;

	c = cli_read_args(argc, argv, &a);
	if (c >= 0)
		return c;
	dir = argv[optind + 1];
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "bale extract: cannot create '%s': %s\n", dir,
		    strerror(errno));
		return CLI_FAILED;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		fprintf(stderr, "bale extract: cannot open '%s': %s\n", dir,
		    strerror(errno));
		return CLI_FAILED;
	}
	x.dirfd = dirfd;
	x.dir = dir;
	r = cli_open_one("extract", argv[optind], a.format);
	rc = r ? extract_all(r, &x) : CLI_FAILED;
	bale_reader_free(r);
	close(dirfd);
	return rc;
}
