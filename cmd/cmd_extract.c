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
"usage: bale extract OUT DIR [-f FORMAT]\n"
"\n"
"Write every sample of OUT to DIR under its original relative path.\n"
"Paths that would leave DIR are refused and reported.\n"
"Exit status: 0 all written, 1 some sample was refused or failed.\n"
"\nExample: bale extract out/data.h5 back/ && diff -r train/ back/\n";

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

static int extract_write(int dirfd, const struct bale_blob *b)
{
	char *path = strdup(b->path);
	const char *base;
	int pfd;
	int fd = -1;
	int ok = 0;

	pfd = path ? extract_parent(dirfd, path, &base) : -1;
	if (pfd >= 0)
		fd = openat(pfd, base, O_WRONLY | O_CREAT | O_TRUNC |
		    O_NOFOLLOW | O_CLOEXEC, 0644);
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

static int extract_all(struct bale_reader *r, int dirfd, const char *dir)
{
	struct bale_blob b;
	uint64_t n = 0;
	uint64_t i;
	uint64_t bad = 0;

	bale_reader_count(r, &n);
	for (i = 0; i < n; i++) {
		if (bale_reader_get(r, i, &b) != BALE_OK) {
			fprintf(stderr, "bale extract: %s\n",
			    bale_reader_errmsg(r));
			bad++;
		} else if (!b.path || !extract_safe(b.path)) {
			fprintf(stderr, "bale extract: sample %" PRIu64 ": "
			    "refusing path '%s' (not a plain relative path)\n",
			    i, b.path ? b.path : "");
			bad++;
		} else if (extract_write(dirfd, &b) != 0) {
			fprintf(stderr, "bale extract: cannot write '%s/%s': "
			    "%s\n", dir, b.path, strerror(errno));
			bad++;
		}
	}
	return bad ? CLI_FAILED : CLI_OK;
}

int cmd_extract(int argc, char **argv)
{
	struct bale_reader *r;
	const char *format;
	const char *dir;
	int dirfd;
	int rc;
	int c;

	c = cli_read_args(argc, argv, "extract", extract_help, 2,
	    "OUT and DIR", &format);
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
	r = cli_open_one("extract", argv[optind], format);
	rc = r ? extract_all(r, dirfd, dir) : CLI_FAILED;
	bale_reader_free(r);
	close(dirfd);
	return rc;
}
