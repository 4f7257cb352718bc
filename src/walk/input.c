/* input.c - read one regular file whole, or one archive member through
 * its kind (source.h), reporting why one is unusable. */
#include "input.h"

#include "kind.h"

#include "bale_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bale_input_skip(struct bale_input *in, const char *what, int err)
{
	bale_input_close(in);
	if (err)
		return bale_errbuf_set(&in->err, BALE_EINPUT, "%s: %s", what,
		    strerror(err));
	return bale_errbuf_set(&in->err, BALE_EINPUT, "%s", what);
}

/* A failed open of a name that lstat() finds is a link gone bad. */
static int input_open_failed(struct bale_input *in, int dirfd,
    const char *rel, int err)
{
	struct stat st;

	if (err == ENOENT && fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0
	    && S_ISLNK(st.st_mode))
		return bale_input_skip(in, "broken symlink", 0);
	if (err == ELOOP)
		return bale_input_skip(in, "symlink loop", 0);
	return bale_input_skip(in, "cannot open", err);
}

int bale_input_open(struct bale_input *in, int dirfd, const char *rel)
{
	struct stat st;

	bale_errbuf_clear(&in->err);
	in->size = 0;
	in->is_member = 0;
	in->crc_known = 0;
	in->data = NULL;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	in->fd = openat(dirfd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY);
	if (in->fd < 0)
		return input_open_failed(in, dirfd, rel, errno);
	if (fstat(in->fd, &st) != 0)
		return bale_input_skip(in, "cannot stat", errno);
	if (!S_ISREG(st.st_mode))
		return bale_input_skip(in, "not a regular file", 0);
	if (st.st_size == 0)
		return bale_input_skip(in, "empty file (0 bytes)", 0);
	in->size = (size_t)st.st_size;
	return BALE_OK;
}

/* Is @rel's folder (its first @n bytes) the one @d holds? If not, it
 * becomes the one, not opened yet. */
static int input_same_dir(struct bale_input_dir *d, const char *rel, size_t n)
{
	if (d->path.data && d->path.len == n &&
	    memcmp(d->path.data, rel, n) == 0)
		return 1;
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	bale_buf_reset(&d->path);
	bale_buf_add(&d->path, rel, n);
	return 0;
}

int bale_input_dir_at(struct bale_input_dir *d, int rootfd, const char *rel,
    const char **name)
{
	const char *slash = strrchr(rel, '/');

	*name = rel;
	if (!slash || !input_same_dir(d, rel, (size_t)(slash - rel)) ||
	    d->path.failed)
		return rootfd;
	if (d->fd < 0)
		d->fd = openat(rootfd, d->path.data, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);
	if (d->fd < 0)
		return rootfd;
	*name = slash + 1;
	return d->fd;
}

int bale_input_open_in(struct bale_input *in, struct bale_input_dir *d,
    int rootfd, const char *rel)
{
	const char *name;
	int dirfd = bale_input_dir_at(d, rootfd, rel, &name);

	if (dirfd != rootfd && bale_input_open(in, dirfd, name) == BALE_OK)
		return BALE_OK;
	/* a failure is told as the whole path from the root tells it */
	return bale_input_open(in, rootfd, rel);
}

void bale_input_dir_release(struct bale_input_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	bale_buf_release(&d->path);
}

int bale_input_member(struct bale_input *in, const struct bale_walk_member *m,
    const char *root, const char *rel)
{
	in->root = root;
	in->rel = rel;
	bale_errbuf_clear(&in->err);
	in->fd = -1;
	in->data = NULL;
	in->crc_known = 0;
	in->is_member = 1;
	in->member = *m;
	in->size = (size_t)m->size;
	if (m->size == 0)
		return bale_input_skip(in, "empty file (0 bytes)", 0);
	return BALE_OK;
}

int bale_input_bytes(struct bale_input *in, unsigned char *data,
    size_t size)
{
	bale_errbuf_clear(&in->err);
	in->fd = -1;
	in->is_member = 0;
	in->crc_known = 0;
	in->data = data;
	in->size = size;
	if (size == 0)
		return bale_input_skip(in, "empty file (0 bytes)", 0);
	return BALE_OK;
}

int bale_input_pread_member(struct bale_input *in, unsigned char *buf,
    size_t n, uint64_t off)
{
	struct bale_errbuf why;
	size_t got;

	if (bale_store_fd_remote(in->member.fd))	/* the store says why */
		return bale_store_fd_pread(in->member.fd, buf, n, off,
		    &why) == BALE_OK ? BALE_OK : bale_input_skip(in, why.msg,
		    0);
	if (bale_file_pread_full(in->member.fd, buf, n, off, &got) != 0)
		return bale_input_skip(in, "read error in the archive", errno);
	if (got < n)
		return bale_input_skip(in, "the archive shrank while being "
		    "read", 0);
	return BALE_OK;
}

int bale_input_read_stored(struct bale_input *in, unsigned char *buf)
{
	return bale_input_pread_member(in, buf, in->size, in->member.offset);
}

int bale_input_read(struct bale_input *in, unsigned char *buf)
{
	size_t got = 0;
	unsigned char extra;
	ssize_t n;

	if (in->is_member)
		return in->member.kind->read(in, buf);
	while (got < in->size) {
		n = read(in->fd, buf + got, in->size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return bale_input_skip(in, "read error", errno);
		if (n == 0)
			return bale_input_skip(in,
			    "file shrank while being read", 0);
		got += (size_t)n;
	}
	if (read(in->fd, &extra, 1) > 0)
		return bale_input_skip(in, "file grew while being read", 0);
	bale_input_close(in);
	return BALE_OK;
}

void bale_input_close(struct bale_input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	free(in->data);
	in->data = NULL;
}
