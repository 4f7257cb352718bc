/* store_local.c - files on this machine's file systems: pread, stat,
 * readdir; written as "NAME.partial", renamed when whole. */
#include "store.h"

#include "bale_backend_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct local_file {
	int fd;
	char *name;
};

static int local_claims(const char *name)
{
	(void)name;
	return 1;
}

static int local_fail(struct bale_errbuf *err, const char *what,
    const char *name)
{
	return bale_errbuf_set(err, errno == ENOENT ? BALE_ENOENT : BALE_EIO,
	    "cannot %s '%s': %s", what, name, strerror(errno));
}

static int local_open(const char *name, void **h, uint64_t *size,
    struct bale_errbuf *err)
{
	struct local_file *f = malloc(sizeof(*f));
	struct stat st;

	if (f)
		f->name = strdup(name);
	if (!f || !f->name) {
		free(f);
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	f->fd = open(name, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) != 0) {
		int rc = local_fail(err, "open", name);

		if (f->fd >= 0)
			close(f->fd);
		free(f->name);
		free(f);
		return rc;
	}
	*size = (uint64_t)st.st_size;
	*h = f;
	return BALE_OK;
}

static int local_read(void *h, const struct iovec *iov, int iovcnt,
    uint64_t off, struct bale_errbuf *err)
{
	struct local_file *f = h;
	size_t want = 0;
	ssize_t got;
	int i;

	for (i = 0; i < iovcnt; i++)
		want += iov[i].iov_len;
	got = preadv(f->fd, iov, iovcnt, (off_t)off);
	if (got == (ssize_t)want)
		return BALE_OK;
	return bale_errbuf_set(err, BALE_EIO, "cannot read '%s': %s",
	    f->name, got < 0 ? strerror(errno) : "short read");
}

static void local_close(void *h)
{
	struct local_file *f = h;

	close(f->fd);
	free(f->name);
	free(f);
}

static int local_fd(void *h)
{
	return ((struct local_file *)h)->fd;
}

static int local_stat(const char *name, struct bale_store_stat *st,
    struct bale_errbuf *err)
{
	struct stat sb;

	if (stat(name, &sb) != 0)
		return local_fail(err, "stat", name);
	st->is_dir = S_ISDIR(sb.st_mode);
	st->size = (uint64_t)sb.st_size;
	if (!st->is_dir)
		snprintf(st->tag, sizeof(st->tag), "%llu-%lld.%09ld",
		    (unsigned long long)sb.st_size,
		    (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec);
	return BALE_OK;
}

static int local_list(const char *dir, bale_store_entry_fn fn, void *arg,
    struct bale_errbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = BALE_OK;

	if (!d)
		return local_fail(err, "list", dir);
	while (rc == BALE_OK && (de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			rc = fn(arg, de->d_name, de->d_type == DT_DIR);
	closedir(d);
	return rc;
}

/* A file being written. */
struct local_out {
	int fd;
	char *name;
	char *tmp;		/* NAME.partial */
};

static void local_out_free(struct local_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	free(o->name);
	free(o->tmp);
	free(o);
}

static int local_wopen(const char *name, void **h, struct bale_errbuf *err)
{
	struct local_out *o = calloc(1, sizeof(*o));

	if (!o)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	o->fd = -1;
	o->name = strdup(name);
	o->tmp = bale_strfmt("%s" BALE_PARTIAL, name);
	if (!o->name || !o->tmp) {
		local_out_free(o);
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0) {
		int rc = local_fail(err, "create", o->tmp);

		local_out_free(o);
		return rc;
	}
	*h = o;
	return BALE_OK;
}

static int local_wwrite(void *h, const void *p, size_t n,
    struct bale_errbuf *err)
{
	struct local_out *o = h;

	return bale_file_write_all(o->fd, p, n) == 0 ? BALE_OK :
	    local_fail(err, "write", o->tmp);
}

static void local_wabort(void *h)
{
	struct local_out *o = h;

	unlink(o->tmp);
	local_out_free(o);
}

static int local_wfinish(void *h, struct bale_errbuf *err)
{
	struct local_out *o = h;
	int rc = BALE_OK;

	if (close(o->fd) != 0)
		rc = local_fail(err, "write", o->tmp);
	o->fd = -1;
	if (rc == BALE_OK && rename(o->tmp, o->name) != 0)
		rc = local_fail(err, "rename", o->tmp);
	if (rc != BALE_OK) {
		local_wabort(o);
		return rc;
	}
	local_out_free(o);
	return BALE_OK;
}

static int local_wfd(void *h)
{
	return ((struct local_out *)h)->fd;
}

static int local_remove(const char *name, struct bale_errbuf *err)
{
	if (unlink(name) == 0 || errno == ENOENT)
		return BALE_OK;
	return local_fail(err, "remove", name);
}

/* A folder a run's outputs go in: one to write in, or none yet (made
 * then); said before the source is walked, in the words of the cause. */
static int local_writable(const char *dir, struct bale_errbuf *err)
{
	struct stat sb;

	if (stat(dir, &sb) != 0)
		return BALE_OK;
	if (!S_ISDIR(sb.st_mode))
		return bale_errbuf_set(err, BALE_EINVAL, "the output '%s' is a "
		    "file: the output is a folder (created if missing)", dir);
	if (access(dir, W_OK | X_OK) != 0)
		return bale_errbuf_set(err, BALE_EIO, "cannot write in '%s': "
		    "%s", dir, strerror(errno));
	return BALE_OK;
}

const struct bale_store bale_store_local = {
	.name = "file",
	.claims = local_claims,
	.open = local_open,
	.read = local_read,
	.close = local_close,
	.stat = local_stat,
	.list = local_list,
	.fd = local_fd,
	.wopen = local_wopen,
	.wwrite = local_wwrite,
	.wfinish = local_wfinish,
	.wabort = local_wabort,
	.wfd = local_wfd,
	.remove = local_remove,
	.writable = local_writable,
};
