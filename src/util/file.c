/* file.c - atomic replace, full reads and writes, mkdir -p. */
#include "bale_backend.h"
#include "bale_backend_util.h"


#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bale_file_write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int bale_file_pread_full(int fd, void *buf, size_t n, uint64_t off,
    size_t *got)
{
	ssize_t r;

	*got = 0;
	while (*got < n) {
		r = pread(fd, (char *)buf + *got, n - *got,
		    (off_t)(off + *got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return 0;
}

static int file_write_pieces(int fd, const struct iovec *pieces, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (bale_file_write_all(fd, pieces[i].iov_base,
		    pieces[i].iov_len) != 0)
			return -1;
	return 0;
}

static int file_write_partialv(const char *path, const struct iovec *pieces,
    int n, int sync)
{
	char *tmp = bale_strfmt("%s%s", path, BALE_PARTIAL);
	int saved;
	int fd;

	if (!tmp)
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out_free;
	if (file_write_pieces(fd, pieces, n) != 0 ||
	    (sync && fsync(fd) != 0))
		goto out_close;
	if (close(fd) != 0) {
		fd = -1;
		goto out_close;
	}
	free(tmp);
	return 0;
out_close:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = saved;
out_free:
	saved = errno;
	free(tmp);
	errno = saved;
	return -1;
}

int bale_file_write_partial(const char *path, const void *data, size_t n,
    int sync)
{
	struct iovec piece = { (void *)data, n };

	return file_write_partialv(path, &piece, 1, sync);
}

int bale_file_write_atomicv(const char *path, const struct iovec *pieces,
    int n, int sync)
{
	if (file_write_partialv(path, pieces, n, sync) != 0)
		return -1;
	return bale_file_publish(path, sync);
}

int bale_file_sync(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int bale_file_sync_parent(const char *path)
{
	char *dir = strdup(path);
	char *slash;
	int rc;

	if (!dir)
		return -1;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	rc = bale_file_sync(slash ? dir : ".");
	free(dir);
	return rc;
}

int bale_file_publish(const char *path, int sync)
{
	char *tmp = bale_strfmt("%s%s", path, BALE_PARTIAL);
	int rc;

	if (!tmp)
		return -1;
	rc = rename(tmp, path);
	free(tmp);
	if (rc == 0 && sync)
		rc = bale_file_sync_parent(path);
	return rc;
}

int bale_file_write_atomic(const char *path, const void *data, size_t n,
    int sync)
{
	if (bale_file_write_partial(path, data, n, sync) != 0)
		return -1;
	return bale_file_publish(path, sync);
}

int bale_file_pread_int32s(int fd, uint64_t off, uint64_t n, int64_t *out)
{
	int32_t chunk[16384];
	uint64_t done = 0, k, i;
	size_t got;

	while (done < n) {
		k = n - done < 16384 ? n - done : 16384;
		if (bale_file_pread_full(fd, chunk, (size_t)k * 4,
		    off + done * 4, &got) != 0)
			return -1;
		if (got != k * 4) {
			errno = EIO;	/* the file is shorter than its index */
			return -1;
		}
		for (i = 0; i < k; i++)
			out[done + i] = chunk[i];
		done += k;
	}
	return 0;
}

int bale_file_mkdirs(const char *path)
{
	char *copy = strdup(path);
	char *p;
	int rc = 0;

	if (!copy)
		return -1;
	for (p = copy + 1; *p && rc == 0; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) != 0 && errno != EEXIST)
			rc = -1;
		*p = '/';
	}
	if (rc == 0 && mkdir(copy, 0777) != 0 && errno != EEXIST)
		rc = -1;
	free(copy);
	return rc;
}

char *bale_file_read_all(const char *path, size_t *n)
{
	struct bale_buf b = BALE_BUF_INIT;
	char chunk[65536];
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while ((got = read(fd, chunk, sizeof(chunk))) > 0)
		bale_buf_add(&b, chunk, (size_t)got);
	close(fd);
	if (got < 0 || b.failed) {
		if (b.failed)
			errno = ENOMEM;
		bale_buf_release(&b);
		return NULL;
	}
	*n = b.len;
	return b.data ? b.data : calloc(1, 1);
}

int bale_file_copy_range(int in, uint64_t off, int out, uint64_t len)
{
	loff_t at = (loff_t)off;
	char buf[1 << 16];
	ssize_t got = 1;
	size_t n;

	while (len > 0 && got > 0) {
		got = copy_file_range(in, &at, out, NULL, (size_t)len, 0);
		if (got > 0)
			len -= (uint64_t)got;
	}
	if (len == 0)
		return 0;
	if (got < 0 && errno != EXDEV && errno != ENOSYS &&
	    errno != EOPNOTSUPP && errno != EINVAL)
		return -1;
	for (; len > 0; len -= n, at += (loff_t)n) {	/* by hand */
		n = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		got = pread(in, buf, n, at);
		if (got >= 0 && got != (ssize_t)n)
			errno = EIO;	/* @in ends before */
		if (got != (ssize_t)n || bale_file_write_all(out, buf, n) != 0)
			return -1;
	}
	return 0;
}

int bale_file_copy(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	int out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0644);
	struct stat sb;
	int rc = out >= 0 && fstat(in, &sb) == 0 ? bale_file_copy_range(in, 0,
	    out, (uint64_t)sb.st_size) : -1;
	int sys = errno;

	if (out >= 0 && close(out) != 0 && rc == 0) {
		rc = -1;
		sys = errno;
	}
	if (in >= 0)
		close(in);
	if (rc != 0 && out >= 0)
		unlink(dst);
	errno = sys;
	return rc;
}

static int file_remove_one(const char *path, const struct stat *sb, int type,
    struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) == 0 ||
	    errno == ENOENT ? 0 : -1;
}

int bale_file_remove_tree(const char *path)
{
	struct stat sb;

	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? 0 : -1;
	return nftw(path, file_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *bale_file_stage_new(const char *prefix)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = bale_strfmt("%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
	    prefix);

	if (dir && !mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}
