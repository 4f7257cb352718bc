/* bench.c - timed random reads through the readers, N threads. */
#include "bench.h"
#include "clock.h"

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_backend.h"
#include "bale.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

struct bench_shared {
	const struct bench_pass *o;
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
	const struct bench_pass *o = t->sh->o;
	tjhandle tj = o->decode ? tjInitDecompress() : NULL;
	struct bale_blob b;
	uint64_t pos;
	double t0;

	while (bench_claim(t->sh, &pos)) {
		t0 = bale_clock_now();
		if (bale_reader_get(t->r, o->order[pos], &b) != BALE_OK) {
			bench_fail(t->sh, bale_reader_errmsg(t->r));
			break;
		}
		/* consume every byte, so no reader wins by not touching it */
		t->digest ^= bale_crc32(b.data, b.size);
		t->bytes += b.size;
		if (tj)
			bench_decode(t, tj, &b);
		t->lat[t->nlat++] = (bale_clock_now() - t0) * 1e3;
	}
	if (tj)
		tjDestroy(tj);
	return NULL;
}

static int bench_open(const struct bench_target *t, struct bale_reader **r,
    struct bale_errbuf *err)
{
	int rc = bale_reader_new(r);

	if (rc != BALE_OK)
		return bale_errbuf_set(err, rc, "no memory");
	/* what a loader needs: the bytes and the label */
	rc = bale_reader_option(*r, "meta", "0");
	if (rc == BALE_OK && t->opt_key)
		rc = bale_reader_option(*r, t->opt_key, "1");
	if (rc == BALE_OK)
		rc = bale_reader_open(*r, t->format, t->path);
	if (rc != BALE_OK)
		bale_errbuf_set(err, rc, "%s", bale_reader_errmsg(*r));
	return rc;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Merge the threads' latencies and results into @out. */
static void bench_collect(struct bench_thread *th, unsigned n,
    struct bench_pass_result *out, uint64_t k)
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

struct bench_handles {
	struct bale_reader **r;
	unsigned n;
};

int bale_bench_handles_open(const struct bench_target *t, unsigned threads,
    struct bench_handles **out, struct bale_errbuf *err)
{
	struct bench_handles *h = calloc(1, sizeof(*h));
	unsigned i;
	int rc;

	*out = NULL;
	if (h)
		h->r = calloc(threads, sizeof(*h->r));
	if (!h || !h->r) {
		free(h);
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	for (i = 0; i < threads; i++, h->n++) {
		rc = bench_open(t, &h->r[i], err);
		if (rc != BALE_OK) {
			h->n++;
			bale_bench_handles_close(h);
			return rc;
		}
	}
	*out = h;
	return BALE_OK;
}

void bale_bench_handles_close(struct bench_handles *h)
{
	unsigned i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++)
		bale_reader_free(h->r[i]);
	free(h->r);
	free(h);
}

/* Run one thread per handle over the shared order; @th is set up. */
static void bench_threads(struct bench_thread *th, unsigned n)
{
	pthread_t *tid = calloc(n, sizeof(*tid));
	unsigned started = 0;
	unsigned i;

	for (i = 0; tid && i < n; i++)
		if (pthread_create(&tid[i], NULL, bench_worker, &th[i]) == 0)
			started++;
	if (started < n)
		bench_fail(th[0].sh, "cannot start the reader threads");
	while (started > 0)
		pthread_join(tid[--started], NULL);
	free(tid);
}

int bale_bench_handles_read(struct bench_handles *h, const struct bench_pass *p,
    struct bench_pass_result *out, struct bale_errbuf *err)
{
	struct bench_shared sh = { .o = p };
	struct bench_thread *th = calloc(h->n, sizeof(*th));
	unsigned i;
	double t0;
	int rc = th ? BALE_OK : BALE_ENOMEM;

	memset(out, 0, sizeof(*out));
	pthread_mutex_init(&sh.lock, NULL);
	for (i = 0; rc == BALE_OK && i < h->n; i++) {
		th[i].sh = &sh;
		th[i].r = h->r[i];
		th[i].lat = malloc((p->k ? p->k : 1) * sizeof(double));
		rc = th[i].lat ? BALE_OK : BALE_ENOMEM;
	}
	t0 = bale_clock_now();
	if (rc == BALE_OK)
		bench_threads(th, h->n);
	out->seconds = bale_clock_now() - t0;
	if (rc != BALE_OK)
		bale_errbuf_set(err, rc, "no memory");
	else if (sh.failed)
		rc = bale_errbuf_set(err, BALE_EIO, "%s", sh.err);
	else
		bench_collect(th, h->n, out, p->k);
	for (i = 0; th && i < h->n; i++) {
		free(th[i].lat);
		free(th[i].pixels);
	}
	free(th);
	pthread_mutex_destroy(&sh.lock);
	return rc;
}

void bale_bench_free_files(char **files)
{
	size_t i;

	for (i = 0; files && files[i]; i++)
		free(files[i]);
	free(files);
}

/* A new NULL-ended copy of @list, or NULL. */
static char **bench_copy_files(const char *const *list)
{
	char **copy;
	size_t n = 0;
	size_t i;

	while (list[n])
		n++;
	copy = calloc(n + 1, sizeof(char *));
	for (i = 0; copy && i < n; i++) {
		copy[i] = strdup(list[i]);
		if (!copy[i]) {
			bale_bench_free_files(copy);
			return NULL;
		}
	}
	return copy;
}

int bale_bench_probe(const struct bench_target *t, struct bench_probed *out,
    struct bale_errbuf *err)
{
	struct bale_reader *r = NULL;
	const char *const *list;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = bench_open(t, &r, err);
	if (rc == BALE_OK) {
		out->caps = bale_backend_find(bale_reader_format(r))->caps;
		out->folder = strcmp(bale_reader_format(r), "folder") == 0;
		rc = bale_reader_count(r, &out->count);
	}
	if (rc == BALE_OK)
		rc = bale_reader_files(r, &list);
	if (rc != BALE_OK && r)
		bale_errbuf_set(err, rc, "%s", bale_reader_errmsg(r));
	if (rc == BALE_OK) {
		out->files = bench_copy_files(list);
		if (!out->files)
			rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	bale_reader_free(r);
	return rc;
}
