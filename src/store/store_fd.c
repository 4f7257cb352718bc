/* store_fd.c - a file of any store behind a descriptor number.
 *
 * The archive readers (tar, zip, compressed tar) and the tables of the
 * walk work on descriptors, and index tables by them. An object in a
 * store gets one too: a descriptor of /dev/null held for it, which the
 * reads here take to the object. A local file's descriptor is its own,
 * read with pread.
 *
 * A scan (a tar's headers, a zip's directory, a compressed stream) reads
 * front to back in small steps: an object is read for it by windows of
 * up to 8 MiB, one GET each (64 KiB first, doubling as the scan goes
 * on), and the small reads are served from the window.
 * A member's bytes are read by any worker, each read its own request,
 * unless the store's prefetch thread has its blocks already.
 */
#include "store.h"

#include "bale_backend_util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FD_WINDOW ((size_t)8 << 20)
/* A scan's first window: a look at an object's head (which kind of
 * archive is it?) costs no 8 MiB; each window past the last doubles. */
#define FD_WINDOW_FIRST ((size_t)64 << 10)

/* An object behind a descriptor. */
struct fd_object {
	char *name;
	uint64_t size;
	pthread_mutex_t lock;	/* the window's: one scan at a time */
	unsigned char *window;
	uint64_t at;		/* where the window starts */
	size_t len;		/* bytes in it */
	size_t span;		/* bytes the next window reads */
};

static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fd_object **fd_objects;	/* by descriptor */
static size_t fd_cap;

static struct fd_object *fd_object_of(int fd)
{
	struct fd_object *o = NULL;

	pthread_mutex_lock(&fd_lock);
	if (fd >= 0 && (size_t)fd < fd_cap)
		o = fd_objects[fd];
	pthread_mutex_unlock(&fd_lock);
	return o;
}

/* Keep @o under descriptor @fd. @return 0, or -1 without memory */
static int fd_keep(int fd, struct fd_object *o)
{
	int rc = 0;

	pthread_mutex_lock(&fd_lock);
	if ((size_t)fd >= fd_cap)
		rc = bale_grow_array((void **)&fd_objects, &fd_cap,
		    (size_t)fd + 1, sizeof(*fd_objects));
	if (rc == 0)
		fd_objects[fd] = o;
	pthread_mutex_unlock(&fd_lock);
	return rc;
}

static void fd_object_free(struct fd_object *o)
{
	if (!o)
		return;
	pthread_mutex_destroy(&o->lock);
	free(o->window);
	free(o->name);
	free(o);
}

static int fd_open_local(const char *name, uint64_t *size,
    struct bale_errbuf *err)
{
	int fd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		return bale_errbuf_set(err, errno == ENOENT ? BALE_ENOENT :
		    BALE_EIO, "cannot open '%s': %s", name, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return bale_errbuf_set(err, BALE_EINPUT, "'%s' is not a "
		    "regular file", name);
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

int bale_store_fd_open(const char *name, uint64_t *size,
    struct bale_errbuf *err)
{
	struct bale_sfile *f = NULL;
	struct fd_object *o;
	int fd, rc;

	if (bale_store_is_local(name))
		return fd_open_local(name, size, err);
	rc = bale_sfile_open(&f, name, err);	/* there, and its size */
	if (rc != BALE_OK)
		return rc;
	*size = bale_sfile_size(f);
	bale_sfile_close(f);
	o = calloc(1, sizeof(*o));
	if (o && !(o->name = strdup(name))) {
		free(o);
		o = NULL;
	}
	if (!o)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	o->size = *size;
	pthread_mutex_init(&o->lock, NULL);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fd_keep(fd, o) != 0) {
		rc = fd < 0 ? bale_errbuf_set(err, BALE_EIO, "cannot open "
		    "/dev/null: %s", strerror(errno)) :
		    bale_errbuf_set(err, BALE_ENOMEM, "no memory");
		if (fd >= 0)
			close(fd);
		fd_object_free(o);
		return rc;
	}
	return fd;
}

int bale_store_fd_remote(int fd)
{
	return fd_object_of(fd) != NULL;
}

uint64_t bale_store_fd_size(int fd)
{
	struct fd_object *o = fd_object_of(fd);
	struct stat st;

	if (o)
		return o->size;
	return fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Exactly @n bytes at @off of object @o, in one request. */
static int fd_object_read(const struct fd_object *o, void *buf, size_t n,
    uint64_t off, struct bale_errbuf *err)
{
	struct bale_sfile *f = NULL;
	int rc = bale_sfile_open_sized(&f, o->name, o->size, err);

	if (rc == BALE_OK)
		rc = bale_sfile_pread(f, buf, n, off, err);
	bale_sfile_close(f);
	return rc;
}

int bale_store_fd_pread(int fd, void *buf, size_t n, uint64_t off,
    struct bale_errbuf *err)
{
	struct fd_object *o = fd_object_of(fd);
	size_t got;

	if (o)
		return off > o->size || n > o->size - off ?
		    bale_errbuf_set(err, BALE_EINPUT, "'%s' ends before byte "
		    "%llu", o->name, (unsigned long long)(off + n)) :
		    fd_object_read(o, buf, n, off, err);
	if (bale_file_pread_full(fd, buf, n, off, &got) != 0)
		return bale_errbuf_set(err, BALE_EIO, "cannot read: %s",
		    strerror(errno));
	return got == n ? BALE_OK : bale_errbuf_set(err, BALE_EINPUT,
	    "the file ends before byte %llu", (unsigned long long)(off + n));
}

/* The window over [@off, ...) of @o, read if it is not there, not past
 * @limit. Under o->lock. */
static int fd_window_at(struct fd_object *o, uint64_t off, uint64_t limit,
    struct bale_errbuf *err)
{
	size_t n;
	int rc;

	if (o->span == 0)
		o->span = FD_WINDOW_FIRST;
	else if (off >= o->at + o->len && o->span < FD_WINDOW)
		o->span *= 2;	/* on forward */
	if (!o->window && !(o->window = malloc(FD_WINDOW)))
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	n = limit - off < o->span ? (size_t)(limit - off) : o->span;
	o->len = 0;
	rc = fd_object_read(o, o->window, n, off, err);
	if (rc == BALE_OK) {
		o->at = off;
		o->len = n;
	}
	return rc;
}

/* What the window holds of [*@off, ...) into @p, up to @n bytes; *@off
 * and *@got move on. Under o->lock. */
static void fd_window_take(struct fd_object *o, unsigned char *p, size_t n,
    uint64_t *off, size_t *got)
{
	size_t take;

	if (*off < o->at || *off >= o->at + o->len)
		return;
	take = o->at + o->len - *off < n - *got ?
	    (size_t)(o->at + o->len - *off) : n - *got;
	memcpy(p + *got, o->window + (*off - o->at), take);
	*got += take;
	*off += take;
}

/* A scan's read of an object: from the window, refilled where it does
 * not hold @off (not past @limit, where the caller's region ends); what
 * is left of a read as large as the window goes alone. */
static int fd_object_scan(struct fd_object *o, void *buf, size_t n,
    uint64_t off, uint64_t limit, size_t *got, struct bale_errbuf *err)
{
	unsigned char *p = buf;
	int rc = BALE_OK;

	*got = 0;
	if (off >= o->size)
		return BALE_OK;
	if (n > o->size - off)
		n = (size_t)(o->size - off);
	if (limit > o->size || limit < off + n)
		limit = limit < off + n ? off + n : o->size;
	pthread_mutex_lock(&o->lock);
	fd_window_take(o, p, n, &off, got);
	if (n - *got >= FD_WINDOW) {
		rc = fd_object_read(o, p + *got, n - *got, off, err);
		*got = rc == BALE_OK ? n : 0;
	}
	while (rc == BALE_OK && *got < n) {
		rc = fd_window_at(o, off, limit, err);
		if (rc == BALE_OK)
			fd_window_take(o, p, n, &off, got);
	}
	pthread_mutex_unlock(&o->lock);
	return rc;
}

int bale_store_fd_scan_within(int fd, void *buf, size_t n, uint64_t off,
    uint64_t limit, size_t *got, struct bale_errbuf *err)
{
	struct fd_object *o = fd_object_of(fd);

	if (o)
		return fd_object_scan(o, buf, n, off, limit, got, err);
	if (bale_file_pread_full(fd, buf, n, off, got) != 0)
		return bale_errbuf_set(err, BALE_EIO, "cannot read: %s",
		    strerror(errno));
	return BALE_OK;
}

int bale_store_fd_scan(int fd, void *buf, size_t n, uint64_t off,
    size_t *got, struct bale_errbuf *err)
{
	return bale_store_fd_scan_within(fd, buf, n, off, UINT64_MAX, got,
	    err);
}

int bale_store_fd_prefetch(int fd, uint64_t off, size_t n, unsigned reads,
    uint64_t gen)
{
	struct fd_object *o = fd_object_of(fd);
	struct bale_sfile *f = NULL;
	struct bale_errbuf err;
	int rc = 0;

	if (!o) {
		(void)posix_fadvise(fd, (off_t)off, (off_t)n,
		    POSIX_FADV_WILLNEED);
		return 0;
	}
	if (off >= o->size)
		return 0;
	if (n > o->size - off)	/* a stretch asked with a margin */
		n = (size_t)(o->size - off);
	if (bale_sfile_open_sized(&f, o->name, o->size, &err) == BALE_OK)
		rc = bale_sfile_prefetch_blocks(f, off, n, reads, gen);
	bale_sfile_close(f);
	return rc;
}

void bale_store_fd_close(int fd)
{
	struct fd_object *o = NULL;

	if (fd < 0)
		return;
	pthread_mutex_lock(&fd_lock);
	if ((size_t)fd < fd_cap) {
		o = fd_objects[fd];
		fd_objects[fd] = NULL;
	}
	pthread_mutex_unlock(&fd_lock);
	fd_object_free(o);
	close(fd);
}
