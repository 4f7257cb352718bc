/* spill.c - bytes appended during a run and wanted whole at its end (an
 * LMDB key list), kept in a file beside the output once they outgrow a
 * small buffer, so a run's memory does not grow with its samples. The
 * file is unlinked from the start: nothing is left behind, whatever
 * ends the run. */
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPILL_BUFFER (1 << 20)

int bale_spill_init(struct bale_spill *s, const char *dir)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->dir = strdup(dir);
	return s->dir ? 0 : -1;
}

/* An unlinked file in the spill's folder (O_TMPFILE where the file
 * system has it, else a named one removed at once). */
static int spill_open_file(struct bale_spill *s)
{
	char *name;
	int fd = open(s->dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	name = bale_strfmt("%s/.bale-spill-XXXXXX", s->dir);
	if (!name)
		return -1;
	fd = mkostemp(name, O_CLOEXEC);
	if (fd >= 0)
		unlink(name);
	free(name);
	return fd;
}

static int spill_flush(struct bale_spill *s)
{
	if (s->fd < 0 && (s->fd = spill_open_file(s)) < 0)
		return -1;
	if (bale_file_write_all(s->fd, s->buf.data, s->buf.len) != 0)
		return -1;
	s->written += s->buf.len;
	bale_buf_reset(&s->buf);
	return 0;
}

void bale_spill_add(struct bale_spill *s, const void *p, size_t n)
{
	if (s->failed)
		return;
	bale_buf_add(&s->buf, p, n);
	if (s->buf.failed || (s->buf.len >= SPILL_BUFFER &&
	    spill_flush(s) != 0)) {
		s->failed = 1;
		s->err = s->buf.failed ? ENOMEM : errno;
	}
}

uint64_t bale_spill_size(const struct bale_spill *s)
{
	return s->written + s->buf.len;
}

int bale_spill_pread(const struct bale_spill *s, void *out, size_t n,
    uint64_t off)
{
	size_t got, from_file = 0;

	if (s->failed) {
		errno = s->err;
		return -1;
	}
	if (off + n > bale_spill_size(s)) {
		errno = EINVAL;
		return -1;
	}
	if (off < s->written) {
		from_file = s->written - off < n ? (size_t)(s->written - off) :
		    n;
		if (bale_file_pread_full(s->fd, out, from_file, off, &got) != 0)
			return -1;
		if (got != from_file) {
			errno = EIO;	/* the file lost what went to it */
			return -1;
		}
	}
	if (n > from_file)
		memcpy((char *)out + from_file, s->buf.data + (off + from_file -
		    s->written), n - from_file);
	return 0;
}

int bale_spill_read(const struct bale_spill *s, void *out)
{
	return bale_spill_pread(s, out, (size_t)bale_spill_size(s), 0);
}

void bale_spill_release(struct bale_spill *s)
{
	if (!s->dir)	/* never set up (a zeroed one has fd 0) */
		return;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	bale_buf_release(&s->buf);
	free(s->dir);
	s->dir = NULL;
}
