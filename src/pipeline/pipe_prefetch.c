/* pipe_prefetch.c - ask the kernel to read ahead what the workers of an
 * archive source will read next, in the archive's own order.
 *
 * The workers read members in torchvision order, which for a tar made by
 * `tar -cf` (directory order) jumps about inside each class's stretch of
 * the archive: on a cold cache every member is then a small read of its
 * own. The members of the next few megabytes of output lie in a few
 * stretches of the archive, so they are gathered, sorted by offset,
 * merged where they (nearly) touch, and handed to posix_fadvise as a few
 * large reads, ahead of the workers. Files of a folder source have no use
 * for it: each is read whole, with its own read-ahead.
 */
#include "pipeline.h"

#include "source.h"

#include <fcntl.h>
#include <stdlib.h>

/* One batch: at most this many samples or bytes of output. */
#define PREFETCH_SAMPLES 512
#define PREFETCH_BYTES ((uint64_t)32 << 20)
/* Members closer than this are read as one stretch. */
#define PREFETCH_GAP ((uint64_t)256 << 10)

struct prefetch_extent {
	int fd;
	uint64_t start;
	uint64_t end;
};

static int prefetch_cmp(const void *pa, const void *pb)
{
	const struct prefetch_extent *a = pa;
	const struct prefetch_extent *b = pb;

	if (a->fd != b->fd)
		return a->fd < b->fd ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Gather the members at output positions from @from on (one batch).
 * @return the position after the last one gathered */
static uint64_t prefetch_gather(const struct pipe_run *run, uint64_t from,
    struct prefetch_extent *ext, size_t *n)
{
	uint64_t total = run->plan.count;
	struct bale_walk_member m;
	uint64_t bytes = 0;
	uint64_t pos;

	*n = 0;
	for (pos = from; pos < total && *n < PREFETCH_SAMPLES &&
	    bytes < PREFETCH_BYTES; pos++) {
		if (!bale_walk_member(run->in.walk,
		    bale_order_at(&run->plan.order, pos), &m) ||
		    bale_source_member_fed(&m))
			continue;
		ext[*n].fd = m.fd;
		ext[*n].start = m.offset;
		ext[*n].end = m.offset + m.csize;
		bytes += m.csize;
		(*n)++;
	}
	return pos;
}

/* Merge the sorted extents that nearly touch, and read each ahead. */
static void prefetch_issue(struct prefetch_extent *ext, size_t n)
{
	struct prefetch_extent cur;
	size_t i;

	if (n == 0)
		return;
	qsort(ext, n, sizeof(*ext), prefetch_cmp);
	cur = ext[0];
	for (i = 1; i <= n; i++) {
		if (i < n && ext[i].fd == cur.fd &&
		    ext[i].start <= cur.end + PREFETCH_GAP) {
			if (ext[i].end > cur.end)
				cur.end = ext[i].end;
			continue;
		}
		(void)posix_fadvise(cur.fd, (off_t)cur.start,
		    (off_t)(cur.end - cur.start), POSIX_FADV_WILLNEED);
		if (i < n)
			cur = ext[i];
	}
}

void bale_pipe_prefetch(struct pipe_run *run, uint64_t pos)
{
	struct prefetch_extent ext[PREFETCH_SAMPLES];
	size_t n;

	if (bale_source_can(&run->in.source, BALE_SOURCE_TREE))
		return;
	pos += run->plan.first;
	/* one worker issues a batch; the others need not wait for it */
	if (pthread_mutex_trylock(&run->pf.lock) != 0)
		return;
	/* keep one batch ahead of the workers: the next starts when they
	 * pass half of the last */
	if (pos + PREFETCH_SAMPLES / 2 >= run->pf.upto) {
		if (run->pf.upto < pos)
			run->pf.upto = pos;
		run->pf.upto = prefetch_gather(run, run->pf.upto, ext,
		    &n);
		prefetch_issue(ext, n);
	}
	pthread_mutex_unlock(&run->pf.lock);
}
