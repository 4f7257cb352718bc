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
 *
 * A remote source's members are asked for by the store's prefetch
 * thread, up to PREFETCH_REQUESTS GETs in flight and PREFETCH_HELD bytes
 * held or on their way; a worker's read then takes the answer, or waits
 * for it. A bucket's objects by their kind, one GET each; an archive
 * object's members by the blocks of it that hold them, one GET a block
 * whichever members of this batch or the next want it (ranges merged
 * batch by batch overlapped the next batch's, and a member read from
 * another's range left its own waiting: a thousand GETs of their own for
 * a 2000-member tar).
 */
#include "pipeline.h"

#include "bale_store.h"
#include "source.h"

#include <fcntl.h>
#include <stdlib.h>

/* One batch: at most this many samples or bytes of output. */
#define PREFETCH_SAMPLES 512
#define PREFETCH_BYTES ((uint64_t)32 << 20)
/* Members of a local archive closer than this are read as one
 * stretch. */
#define PREFETCH_GAP ((uint64_t)256 << 10)
/* A remote source: GETs in flight, and bytes of answers held. */
#define PREFETCH_REQUESTS 64
#define PREFETCH_HELD ((size_t)64 << 20)

struct prefetch_extent {
	int fd;
	uint64_t start;
	uint64_t end;
	unsigned reads;		/* members in it */
};

static int prefetch_cmp(const void *pa, const void *pb)
{
	const struct prefetch_extent *a = pa;
	const struct prefetch_extent *b = pb;

	if (a->fd != b->fd)
		return a->fd < b->fd ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The batch of output position @pos, for the store's blocks: they are
 * let go once the workers are a batch past the last that wants them. */
static uint64_t prefetch_gen(uint64_t pos)
{
	return 1 + pos / PREFETCH_SAMPLES;
}

/* Keep local archive member @m's stretch in @ext[*@n]. @return 1 */
static int prefetch_keep(const struct bale_walk_member *m,
    struct prefetch_extent *ext, size_t *n)
{
	ext[*n].fd = m->fd;
	ext[*n].start = m->offset;
	ext[*n].end = m->offset + m->csize;
	ext[*n].reads = 1;
	(*n)++;
	return 1;
}

/* Ask member @m at walk index @wi ahead, by its kind. @return as its
 * ahead() (-1: the store holds enough for now) */
static int prefetch_ask(struct pipe_run *run, size_t wi,
    const struct bale_walk_member *m)
{
	const char *rel = bale_walk_path(run->in.walk, wi, &run->pf.path);

	return rel ? m->kind->ahead(run->opts->src, rel, m) : 0;
}

/* Ask an archive object's member @m at output position @pos ahead by
 * the blocks that hold it. @return as bale_store_fd_prefetch() */
static int prefetch_blocks(const struct bale_walk_member *m, uint64_t pos)
{
	uint64_t n = m->csize;

	if (m->method & BALE_WALK_AT_HEADER)	/* read with its header */
		n += BALE_WALK_HEADER_ROOM;	/* (the store stops at the
						 * object's end) */
	return bale_store_fd_prefetch(m->fd, m->offset, (size_t)n, 1,
	    prefetch_gen(pos));
}

/* Gather the members at output positions from @from on (one batch);
 * those asked for by their kind or by blocks of an object are asked
 * now, a local archive's kept in @ext.
 * @return the position after the last one gathered */
static uint64_t prefetch_gather(struct pipe_run *run, uint64_t from,
    struct prefetch_extent *ext, size_t *n)
{
	uint64_t total = run->plan.count;
	struct bale_walk_member m;
	uint64_t bytes = 0;
	uint64_t pos;
	size_t wi, taken = 0;
	int rc;

	*n = 0;
	for (pos = from; pos < total && taken < PREFETCH_SAMPLES &&
	    bytes < PREFETCH_BYTES; pos++) {
		wi = bale_order_at(&run->plan.order, pos);
		if (!bale_walk_member(run->in.walk, wi, &m) ||
		    bale_source_member_fed(&m))
			continue;
		if (m.kind->ahead)
			rc = prefetch_ask(run, wi, &m);
		else if (bale_store_fd_remote(m.fd))
			rc = prefetch_blocks(&m, pos);
		else
			rc = prefetch_keep(&m, ext, n);
		if (rc < 0)
			break;	/* asked again from here */
		bytes += m.kind->ahead ? m.size : m.csize;
		taken++;
	}
	return pos;
}

/* Merge the sorted extents that nearly touch, and have the kernel read
 * each ahead. */
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
			cur.reads += ext[i].reads;
			continue;
		}
		(void)bale_store_fd_prefetch(cur.fd, cur.start,
		    (size_t)(cur.end - cur.start), cur.reads, 0);
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
	/* blocks a batch behind the workers are not read any more */
	if (run->pf.remote && pos / PREFETCH_SAMPLES > run->pf.expired) {
		run->pf.expired = pos / PREFETCH_SAMPLES;
		bale_store_prefetch_expire(run->pf.expired);
	}
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

int bale_pipe_prefetch_begin(struct pipe_run *run)
{
	pthread_mutex_init(&run->pf.lock, NULL);
	run->pf.upto = 0;
	run->pf.expired = 0;
	run->pf.path = (struct bale_buf)BALE_BUF_INIT;
	run->pf.remote = (run->in.source.kind && run->in.source.kind->ahead) ||
	    !bale_store_is_local(run->opts->src);
	if (!run->pf.remote)
		return BALE_OK;
	if (bale_store_prefetch_begin(PREFETCH_REQUESTS, PREFETCH_HELD) ==
	    BALE_OK)
		return BALE_OK;
	run->pf.remote = 0;
	pthread_mutex_destroy(&run->pf.lock);
	return BALE_ENOMEM;
}

void bale_pipe_prefetch_end(struct pipe_run *run)
{
	if (run->pf.remote)
		bale_store_prefetch_end();
	run->pf.remote = 0;
	bale_buf_release(&run->pf.path);
	pthread_mutex_destroy(&run->pf.lock);
}
