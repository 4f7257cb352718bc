/* prefetch.c - ranged GETs kept in flight ahead of the reads that want
 * them, for a reader that knows its order ahead (the Loader).
 *
 * One I/O thread per process drives a libcurl multi handle: up to
 * max_requests transfers at once over reused connections, their answers
 * held until the reads of that range (one, or each sample of a run
 * asked for at once) have taken them, at most max_bytes
 * held or on their way (queued requests count, so memory is bounded
 * before a byte arrives). When they are reached, nothing more is asked
 * until reads take some; what a reader will not take (its order moved
 * on: a seek, a new epoch) it lets go (bale_store_prefetch_drop). A
 * prefetch that failed is not retried here: the read
 * that wanted it asks again itself, with the retries and the words a
 * failure needs. Entries are found by name and offset, so the readers of
 * every Loader thread share them.
 */
#include "prefetch.h"
#include "store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PF_BUCKETS 4096
#define PF_SIGNS 8
#define PF_POLL_MS 100
/* An archive's members, read out of its order, are asked for by the
 * aligned blocks that hold them: a block is one GET whichever members
 * want it, and no two asked ranges overlap. A request costs about what
 * half a MiB of transfer does. */
#define PF_BLOCK ((uint64_t)1 << 20)

enum { PF_QUEUED, PF_FLIGHT, PF_DONE, PF_FAILED };

struct pf_entry {
	struct pf_entry *hnext;		/* its hash bucket's chain */
	struct pf_entry *prev, *next;	/* the queue or the done list */
	char *name;
	char *url;
	uint64_t off;
	size_t len;
	unsigned char *buf;
	int state;
	int waiters;
	int unwanted;		/* dropped on its way: let go on arrival */
	unsigned reads_left;	/* reads of parts of it still to come */
	uint64_t gen;		/* a block's: the last batch that wants it
				 * (0: not a block, it never expires) */
	struct bale_http_req q;
	struct bale_http_resp r;
	struct iovec iov;
	struct bale_http_xfer x;
};

struct pf_list {
	struct pf_entry *head, *tail;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;		/* an entry is done or failed */
	unsigned users;
	unsigned max_requests;
	size_t max_bytes;
	size_t bytes;			/* held, on their way or queued */
	unsigned inflight;
	struct pf_entry *buckets[PF_BUCKETS];
	struct pf_list queued, flight, done;
	struct bale_aws signs[PF_SIGNS];
	int nsigns;
	CURLM *multi;
	pthread_t thread;
	int stop;
} pf = { .lock = PTHREAD_MUTEX_INITIALIZER,
	.changed = PTHREAD_COND_INITIALIZER };

static pthread_once_t pf_fork_once = PTHREAD_ONCE_INIT;

/* ---- entries ---------------------------------------------------------- */

static size_t pf_hash(const char *name, uint64_t off)
{
	uint64_t h = 1469598103934665603ULL ^ off;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ULL;
	return (size_t)(h % PF_BUCKETS);
}

static struct pf_entry **pf_slot(const char *name, uint64_t off)
{
	struct pf_entry **p = &pf.buckets[pf_hash(name, off)];

	while (*p && ((*p)->off != off || strcmp((*p)->name, name) != 0))
		p = &(*p)->hnext;
	return p;
}

static void pf_push(struct pf_list *l, struct pf_entry *e)
{
	e->next = NULL;
	e->prev = l->tail;
	if (l->tail)
		l->tail->next = e;
	else
		l->head = e;
	l->tail = e;
}

static void pf_unlink(struct pf_list *l, struct pf_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		l->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		l->tail = e->prev;
	e->prev = e->next = NULL;
}

/* Forget a done or failed entry (under the lock). */
static void pf_drop(struct pf_entry *e)
{
	struct pf_entry **p = pf_slot(e->name, e->off);

	*p = e->hnext;
	pf_unlink(&pf.done, e);
	pf.bytes -= e->len;
	free(e->buf);
	free(e->url);
	free(e->name);
	free(e);
}

/* The copy of @sign the entries point at, or -1 when all are taken. */
static int pf_sign(const struct bale_aws *sign)
{
	int i;

	for (i = 0; i < pf.nsigns; i++)
		if (memcmp(&pf.signs[i], sign, sizeof(*sign)) == 0)
			return i;
	if (pf.nsigns == PF_SIGNS)
		return -1;
	pf.signs[pf.nsigns] = *sign;
	return pf.nsigns++;
}

/* ---- the I/O thread ------------------------------------------------- */

/* Start what the queue holds while transfers are free (under the lock). */
static void pf_start(void)
{
	struct pf_entry *e;

	while (pf.inflight < pf.max_requests && (e = pf.queued.head)) {
		pf_unlink(&pf.queued, e);
		e->buf = malloc(e->len ? e->len : 1);
		e->iov = (struct iovec){ e->buf, e->len };
		e->q.iov = &e->iov;
		e->q.iovcnt = 1;
		if (!e->buf || bale_http_multi_add(pf.multi, &e->x, &e->q,
		    &e->r, e) != 0) {
			e->state = PF_FAILED;
			pf_push(&pf.done, e);
			continue;
		}
		e->state = PF_FLIGHT;
		pf_push(&pf.flight, e);
		pf.inflight++;
	}
}

/* A transfer ended (@rc as bale_http_end(): 0, an answer): its entry
 * done, or failed (under the lock). */
static void pf_finish(struct pf_entry *e, int rc)
{
	pf_unlink(&pf.flight, e);
	pf.inflight--;
	e->state = rc == 0 && e->r.status >= 200 && e->r.status < 300 ?
	    PF_DONE : PF_FAILED;
	pf_push(&pf.done, e);
	pthread_cond_broadcast(&pf.changed);
	if (e->unwanted && e->waiters == 0)
		pf_drop(e);
}

static void pf_collect(void)
{
	struct pf_entry *e;
	int rc;

	while ((e = bale_http_multi_next(pf.multi, &rc))) {
		pthread_mutex_lock(&pf.lock);
		pf_finish(e, rc);
		pthread_mutex_unlock(&pf.lock);
	}
}

static void *pf_run(void *arg)
{
	int running;

	(void)arg;
	pthread_mutex_lock(&pf.lock);
	while (!pf.stop) {
		pf_start();
		pthread_mutex_unlock(&pf.lock);
		curl_multi_perform(pf.multi, &running);
		pf_collect();
		curl_multi_poll(pf.multi, NULL, 0, PF_POLL_MS, NULL);
		pthread_mutex_lock(&pf.lock);
	}
	pthread_mutex_unlock(&pf.lock);
	return NULL;
}

/* ---- begin and end -------------------------------------------------- */

/* A forked child has no I/O thread: it starts afresh, its parent's
 * entries and transfers left alone (their sockets are the parent's). */
static void pf_after_fork(void)
{
	pthread_mutex_init(&pf.lock, NULL);
	pthread_cond_init(&pf.changed, NULL);
	pf.users = 0;
	pf.bytes = 0;
	pf.inflight = 0;
	pf.nsigns = 0;
	memset(pf.buckets, 0, sizeof(pf.buckets));
	memset(&pf.queued, 0, sizeof(pf.queued));
	memset(&pf.flight, 0, sizeof(pf.flight));
	memset(&pf.done, 0, sizeof(pf.done));
	pf.multi = NULL;
}

static void pf_fork_guard(void)
{
	pthread_atfork(NULL, NULL, pf_after_fork);
}

int bale_store_prefetch_begin(unsigned max_requests, size_t max_bytes)
{
	int rc = BALE_OK;

	pthread_once(&pf_fork_once, pf_fork_guard);
	pthread_mutex_lock(&pf.lock);
	if (pf.users++ == 0) {
		pf.max_requests = max_requests ? max_requests : 1;
		pf.max_bytes = max_bytes;
		pf.stop = 0;
		bale_http_global_init();
		pf.multi = curl_multi_init();
		if (pf.multi)
			curl_multi_setopt(pf.multi,
			    CURLMOPT_MAX_HOST_CONNECTIONS,
			    (long)pf.max_requests);
		if (!pf.multi ||
		    pthread_create(&pf.thread, NULL, pf_run, NULL) != 0) {
			curl_multi_cleanup(pf.multi);
			pf.multi = NULL;
			pf.users = 0;
			rc = BALE_ENOMEM;
		}
	}
	pthread_mutex_unlock(&pf.lock);
	return rc;
}

/* Let every entry go (the thread stopped: under the lock). */
static void pf_clear(void)
{
	struct pf_entry *e;

	while ((e = pf.queued.head)) {
		pf_unlink(&pf.queued, e);
		pf_push(&pf.done, e);
	}
	for (e = pf.done.head; e; e = pf.done.head)
		pf_drop(e);
	memset(pf.buckets, 0, sizeof(pf.buckets));
	pf.nsigns = 0;
}

void bale_store_prefetch_end(void)
{
	int last;

	pthread_mutex_lock(&pf.lock);
	last = pf.users > 0 && --pf.users == 0;
	if (last)
		pf.stop = 1;
	pthread_mutex_unlock(&pf.lock);
	if (!last)
		return;
	curl_multi_wakeup(pf.multi);
	pthread_join(pf.thread, NULL);
	pthread_mutex_lock(&pf.lock);
	while (pf.flight.head) {	/* the transfers still on their way */
		bale_http_multi_drop(pf.multi, &pf.flight.head->x);
		pf_finish(pf.flight.head, -1);
	}
	pf_clear();
	curl_multi_cleanup(pf.multi);
	pf.multi = NULL;
	pthread_mutex_unlock(&pf.lock);
}

void bale_store_prefetch_drop(void)
{
	struct pf_entry *e, *next;

	pthread_mutex_lock(&pf.lock);
	while ((e = pf.queued.head)) {
		pf_unlink(&pf.queued, e);
		e->state = PF_FAILED;
		pf_push(&pf.done, e);
	}
	for (e = pf.done.head; e; e = next) {
		next = e->next;
		if (e->waiters == 0)
			pf_drop(e);
	}
	for (e = pf.flight.head; e; e = e->next)
		e->unwanted = 1;
	pthread_mutex_unlock(&pf.lock);
}

void bale_store_prefetch_expire(uint64_t gen)
{
	struct pf_entry *e, *next;

	pthread_mutex_lock(&pf.lock);
	for (e = pf.queued.head; e; e = next) {
		next = e->next;
		if (e->gen && e->gen < gen) {
			pf_unlink(&pf.queued, e);
			e->state = PF_FAILED;
			pf_push(&pf.done, e);
		}
	}
	for (e = pf.done.head; e; e = next) {
		next = e->next;
		if (e->gen && e->gen < gen && e->waiters == 0)
			pf_drop(e);
	}
	for (e = pf.flight.head; e; e = e->next)
		if (e->gen && e->gen < gen)
			e->unwanted = 1;
	pthread_mutex_unlock(&pf.lock);
}

/* ---- what stores.c asks ------------------------------------------- */

/* A new entry for [@off, @off + @len) of @name (under the lock, with
 * room made). NULL without memory */
static struct pf_entry *pf_new(const char *name, const char *url,
    const struct bale_aws *sign, uint64_t off, size_t len)
{
	struct pf_entry *e = calloc(1, sizeof(*e));

	if (e) {
		e->name = strdup(name);
		e->url = strdup(url);
	}
	if (!e || !e->name || !e->url) {
		if (e) {
			free(e->name);
			free(e->url);
		}
		free(e);
		return NULL;
	}
	e->off = off;
	e->len = len;
	e->q = (struct bale_http_req){ "GET", e->url, sign, off, NULL, 0,
	    NULL, 0, NULL, 0, NULL, NULL };
	e->state = PF_QUEUED;
	return e;
}

int bale_prefetch_add(const char *name, const char *url,
    const struct bale_aws *sign, uint64_t off, size_t len, unsigned reads)
{
	struct pf_entry **slot;
	struct pf_entry *e = NULL;
	int si = -1;

	pthread_mutex_lock(&pf.lock);
	if (!pf.users || !pf.multi) {
		pthread_mutex_unlock(&pf.lock);
		return 0;
	}
	slot = pf_slot(name, off);
	if (*slot) {		/* asked already */
		pthread_mutex_unlock(&pf.lock);
		return 1;
	}
	if (sign)
		si = pf_sign(sign);
	if (pf.bytes + len <= pf.max_bytes && (!sign || si >= 0))
		e = pf_new(name, url, si >= 0 ? &pf.signs[si] : NULL, off,
		    len);
	if (e) {
		*slot = e;
		e->reads_left = reads ? reads : 1;
		pf.bytes += len;
		pf_push(&pf.queued, e);
	}
	pthread_mutex_unlock(&pf.lock);
	if (!e)
		return -1;
	curl_multi_wakeup(pf.multi);
	return 1;
}

/* The bytes of the block at @b of an object of @size bytes. */
static size_t pf_block_len(uint64_t size, uint64_t b)
{
	return (size_t)(size - b < PF_BLOCK ? size - b : PF_BLOCK);
}

/* The bytes of the blocks of [@off, @off + @len) of an object of @size
 * bytes that are not asked for yet (under the lock). */
static size_t pf_blocks_new(const char *name, uint64_t size, uint64_t off,
    size_t len)
{
	uint64_t b, end = off + len;
	size_t bytes = 0;

	for (b = off - off % PF_BLOCK; b < end; b += PF_BLOCK)
		if (!*pf_slot(name, b))
			bytes += pf_block_len(size, b);
	return bytes;
}

int bale_prefetch_add_blocks(const char *name, const char *url,
    const struct bale_aws *sign, uint64_t size, uint64_t off, size_t len,
    unsigned reads, uint64_t gen)
{
	uint64_t b, end = off + len;
	struct pf_entry **slot;
	struct pf_entry *e;
	int si = -1, rc = 1;

	pthread_mutex_lock(&pf.lock);
	if (!pf.users || !pf.multi || off >= size || len > size - off) {
		pthread_mutex_unlock(&pf.lock);
		return 0;
	}
	if (sign)
		si = pf_sign(sign);
	if ((sign && si < 0) || pf.bytes + pf_blocks_new(name, size, off,
	    len) > pf.max_bytes)
		rc = -1;	/* all of the member's blocks, or none */
	for (b = off - off % PF_BLOCK; rc == 1 && b < end; b += PF_BLOCK) {
		slot = pf_slot(name, b);
		e = *slot;
		if (!e && !(e = pf_new(name, url, si >= 0 ? &pf.signs[si] :
		    NULL, b, pf_block_len(size, b))))
			break;	/* no memory: the reads go alone */
		if (!*slot) {
			*slot = e;
			pf.bytes += e->len;
			pf_push(&pf.queued, e);
		}
		e->reads_left += reads ? reads : 1;
		e->gen = gen;
		e->unwanted = 0;
	}
	pthread_mutex_unlock(&pf.lock);
	if (rc == 1)
		curl_multi_wakeup(pf.multi);
	return rc;
}

/* Copy bytes [@from, @from + @n) of the range the pieces @iov stand
 * for out of @src. */
static void pf_copy_at(const struct iovec *iov, int iovcnt, size_t from,
    const unsigned char *src, size_t n)
{
	size_t piece;
	int i;

	for (i = 0; i < iovcnt && n > 0; i++) {
		if (from >= iov[i].iov_len) {
			from -= iov[i].iov_len;
			continue;
		}
		piece = iov[i].iov_len - from < n ? iov[i].iov_len - from : n;
		memcpy((unsigned char *)iov[i].iov_base + from, src, piece);
		src += piece;
		n -= piece;
		from = 0;
	}
}

static int pf_holds(const struct pf_entry *e, const char *name,
    uint64_t off, size_t want)
{
	return off >= e->off && want <= e->len && off - e->off <= e->len -
	    want && strcmp(e->name, name) == 0;
}

/* The entry asked for that holds [@off, @off + @want) of @name: the one
 * starting there, else a run's that spans it (under the lock). */
static struct pf_entry *pf_find(const char *name, uint64_t off,
    size_t want)
{
	const struct pf_list *lists[] = { &pf.done, &pf.flight, &pf.queued };
	struct pf_entry *e = *pf_slot(name, off);
	size_t i;

	if (e)
		return pf_holds(e, name, off, want) ? e : NULL;
	e = *pf_slot(name, off - off % PF_BLOCK);	/* a block's */
	if (e && e->gen)
		return pf_holds(e, name, off, want) ? e : NULL;
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		for (e = lists[i]->head; e; e = e->next)
			if (pf_holds(e, name, off, want))
				return e;
	return NULL;
}

/* Is every block of [@off, @off + @want) of @name asked for? */
static int pf_blocks_there(const char *name, uint64_t off, size_t want)
{
	uint64_t b;

	for (b = off - off % PF_BLOCK; b < off + want; b += PF_BLOCK)
		if (!*pf_slot(name, b) || !(*pf_slot(name, b))->gen)
			return 0;
	return 1;
}

/* Take [@off, @off + @want) from the blocks that hold it, waiting for
 * each (under the lock; each is held by this read until it is
 * copied). @return 1 copied, 0 a block's GET failed */
static int pf_take_blocks(const char *name, uint64_t off, size_t want,
    const struct iovec *iov, int iovcnt)
{
	uint64_t b, first = off - off % PF_BLOCK, end = off + want;
	uint64_t from, to;
	struct pf_entry *e;
	int got = 1;

	for (b = first; b < end; b += PF_BLOCK)
		(*pf_slot(name, b))->waiters++;
	for (b = first; b < end; b += PF_BLOCK) {
		e = *pf_slot(name, b);
		while (e->state == PF_QUEUED || e->state == PF_FLIGHT)
			pthread_cond_wait(&pf.changed, &pf.lock);
		e->waiters--;
		from = off > b ? off : b;
		to = end < b + e->len ? end : b + e->len;
		if (e->state != PF_DONE || to < from || to - from < (end <
		    b + PF_BLOCK ? end : b + PF_BLOCK) - from)
			got = 0;	/* failed, or the object is shorter */
		else if (got)
			pf_copy_at(iov, iovcnt, (size_t)(from - off),
			    e->buf + (from - b), (size_t)(to - from));
		if (e->reads_left)
			e->reads_left--;
		if (e->waiters == 0 && (e->reads_left == 0 ||
		    e->state != PF_DONE))
			pf_drop(e);
	}
	return got;
}

int bale_prefetch_take(const char *name, uint64_t off,
    const struct iovec *iov, int iovcnt)
{
	struct pf_entry *e;
	size_t want = 0;
	int i, got = 0;

	for (i = 0; i < iovcnt; i++)
		want += iov[i].iov_len;
	pthread_mutex_lock(&pf.lock);
	e = pf.users ? pf_find(name, off, want) : NULL;
	if (!e && pf.users && want && pf_blocks_there(name, off, want)) {
		got = pf_take_blocks(name, off, want, iov, iovcnt);
		pthread_mutex_unlock(&pf.lock);
		return got;
	}
	if (e) {
		e->waiters++;
		while (e->state == PF_QUEUED || e->state == PF_FLIGHT)
			pthread_cond_wait(&pf.changed, &pf.lock);
		e->waiters--;
		got = e->state == PF_DONE;
		if (got)
			pf_copy_at(iov, iovcnt, 0, e->buf + (off - e->off),
			    want);
		if (e->reads_left)
			e->reads_left--;
		if (e->waiters == 0 && (e->reads_left == 0 || !got))
			pf_drop(e);
	}
	pthread_mutex_unlock(&pf.lock);
	return got;
}
