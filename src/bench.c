/* bench.c - timed random reads through the readers, N threads. */
#include "bench.h"

#include "bale.h"
#include "buf.h"
#include "checksum.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>

struct bench_shared {
	const struct bale_bench_opts *o;
	pthread_mutex_t lock;
	uint64_t next;
	int failed;
	char err[256];
};

struct bench_thread {
	struct bench_shared *sh;
	struct bale_reader *r;
	double *lat;		/* ms per read, this thread's */
	uint64_t nlat;
	uint64_t bytes;
	uint32_t digest;
	uint64_t decoded;
	unsigned char *pixels;
	size_t pixcap;
};

static double bench_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int bench_claim(struct bench_shared *sh, uint64_t *pos)
{
	int ok;

	pthread_mutex_lock(&sh->lock);
	ok = !sh->failed && sh->next < sh->o->k;
	if (ok)
		*pos = sh->next++;
	pthread_mutex_unlock(&sh->lock);
	return ok;
}

static void bench_fail(struct bench_shared *sh, const char *msg)
{
	pthread_mutex_lock(&sh->lock);
	if (!sh->failed)
		snprintf(sh->err, sizeof(sh->err), "%s", msg);
	sh->failed = 1;
	pthread_mutex_unlock(&sh->lock);
}

/* Decode a JPEG to RGB, as a loader would; other formats are skipped. */
static void bench_decode(struct bench_thread *t, tjhandle tj,
    const struct bale_blob *b)
{
	int w;
	int h;
	int sub;
	int cs;
	size_t need;

	if (!tj || tjDecompressHeader3(tj, b->data, (unsigned long)b->size, &w,
	    &h, &sub, &cs) != 0)
		return;
	need = (size_t)w * (size_t)h * 3;
	if (bale_grow(&t->pixels, &t->pixcap, need) != 0)
		return;
	if (tjDecompress2(tj, b->data, (unsigned long)b->size, t->pixels, w, 0,
	    h, TJPF_RGB, 0) == 0)
		t->decoded++;
}

static void *bench_worker(void *arg)
{
	struct bench_thread *t = arg;
	const struct bale_bench_opts *o = t->sh->o;
	tjhandle tj = o->decode ? tjInitDecompress() : NULL;
	struct bale_blob b;
	uint64_t pos;
	double t0;

	while (bench_claim(t->sh, &pos)) {
		t0 = bench_now();
		if (bale_reader_get(t->r, o->order[pos], &b) != BALE_OK) {
			bench_fail(t->sh, bale_reader_errmsg(t->r));
			break;
		}
		/* consume every byte, so no reader wins by not touching it */
		t->digest ^= bale_crc32(b.data, b.size);
		t->bytes += b.size;
		if (tj)
			bench_decode(t, tj, &b);
		t->lat[t->nlat++] = (bench_now() - t0) * 1e3;
	}
	if (tj)
		tjDestroy(tj);
	return NULL;
}

static int bench_open(const struct bale_bench_target *t,
    struct bale_reader **r, char *err, size_t errlen)
{
	if (bale_reader_new(r) != BALE_OK) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* what a loader needs: the bytes and the label */
	if (bale_reader_option(*r, "meta", "0") != BALE_OK ||
	    (t->opt_key && bale_reader_option(*r, t->opt_key, "1")
	    != BALE_OK) ||
	    bale_reader_open(*r, t->format, t->path) != BALE_OK) {
		snprintf(err, errlen, "%s", bale_reader_errmsg(*r));
		return -1;
	}
	return 0;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Merge the threads' latencies and results into @out. */
static void bench_collect(struct bench_thread *th, unsigned n,
    struct bale_bench_run *out, uint64_t k)
{
	double *all = malloc((k ? k : 1) * sizeof(double));
	uint64_t m = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (all)
			memcpy(all + m, th[i].lat, th[i].nlat * sizeof(double));
		m += th[i].nlat;
		out->bytes += th[i].bytes;
		out->digest ^= th[i].digest;
		out->decoded += th[i].decoded;
	}
	out->samples = m;
	if (all && m) {
		qsort(all, m, sizeof(double), bench_cmp_double);
		out->p50_ms = all[m / 2];
		out->p99_ms = all[(m * 99) / 100 < m ? (m * 99) / 100 : m - 1];
	}
	free(all);
}

struct bale_bench_handles {
	struct bale_reader **r;
	unsigned n;
};

struct bale_bench_handles *bale_bench_open(const struct bale_bench_target *t,
    unsigned threads, char *err, size_t errlen)
{
	struct bale_bench_handles *h = calloc(1, sizeof(*h));
	unsigned i;

	if (h)
		h->r = calloc(threads, sizeof(*h->r));
	if (!h || !h->r) {
		free(h);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (i = 0; i < threads; i++, h->n++)
		if (bench_open(t, &h->r[i], err, errlen) != 0) {
			h->n++;
			bale_bench_close(h);
			return NULL;
		}
	return h;
}

void bale_bench_close(struct bale_bench_handles *h)
{
	unsigned i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++)
		bale_reader_free(h->r[i]);
	free(h->r);
	free(h);
}

int bale_bench_read(struct bale_bench_handles *h,
    const struct bale_bench_opts *o, struct bale_bench_run *out, char *err,
    size_t errlen)
{
	struct bench_shared sh = { .o = o };
	struct bench_thread *th = calloc(h->n, sizeof(*th));
	pthread_t *tid = calloc(h->n, sizeof(*tid));
	unsigned started = 0;
	unsigned i;
	double t0;
	int rc = th && tid ? 0 : -1;

	memset(out, 0, sizeof(*out));
	pthread_mutex_init(&sh.lock, NULL);
	for (i = 0; rc == 0 && i < h->n; i++) {
		th[i].sh = &sh;
		th[i].r = h->r[i];
		th[i].lat = malloc((o->k ? o->k : 1) * sizeof(double));
		rc = th[i].lat ? 0 : -1;
	}
	t0 = bench_now();
	for (i = 0; rc == 0 && i < h->n; i++)
		if (pthread_create(&tid[i], NULL, bench_worker, &th[i]) == 0)
			started++;
	while (started > 0)
		pthread_join(tid[--started], NULL);
	out->seconds = bench_now() - t0;
	if (rc != 0)
		snprintf(err, errlen, "out of memory");
	else if (sh.failed)
		rc = -1, snprintf(err, errlen, "%s", sh.err);
	else
		bench_collect(th, h->n, out, o->k);
	for (i = 0; th && i < h->n; i++) {
		free(th[i].lat);
		free(th[i].pixels);
	}
	free(th);
	free(tid);
	pthread_mutex_destroy(&sh.lock);
	return rc;
}

char **bale_bench_probe(const struct bale_bench_target *t, uint64_t *count,
    char *err, size_t errlen)
{
	struct bale_reader *r = NULL;
	const char *const *list;
	char **copy = NULL;
	size_t n = 0;
	size_t i;

	if (bench_open(t, &r, err, errlen) == 0 &&
	    bale_reader_count(r, count) == BALE_OK &&
	    bale_reader_files(r, &list) == BALE_OK) {
		while (list[n])
			n++;
		copy = calloc(n + 1, sizeof(char *));
		for (i = 0; copy && i < n; i++)
			copy[i] = strdup(list[i]);
	}
	if (!copy && r && !err[0])
		snprintf(err, errlen, "%s", bale_reader_errmsg(r));
	bale_reader_free(r);
	return copy;
}
