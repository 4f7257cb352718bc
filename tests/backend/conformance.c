/* conformance.c - drive one backend's writer through the public API.
 *
 *   bale-conformance write BACKEND DIR [KEY=VALUE ...]
 *       Writes SAMPLES generated samples (see sample_size(): 0 bytes where
 *       the backend allows it, block edges, a multi-MiB one), keys with
 *       gaps as skipped inputs leave them. read_back.py checks them.
 *   bale-conformance read BACKEND DIR
 *       Reads them back through bale's reader, three times in a shuffled
 *       order, and checks every key, byte, label, path and checksum,
 *       and the bytes where the reader says they lie, if it says.
 *   bale-conformance errors BACKEND DIR
 *       Error paths: an output under a regular file, a second output
 *       without replace, calls out of order. Exits 1 on the first
 *       behaviour that differs from the contract.
 */
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "handle.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define SAMPLES 40
#define CLASSES 5

static const char *const class_names[CLASSES] = {
	"c0", "c1", "c2 with space", "\xc3\xa9t\xc3\xa9", "c4",
};

/* Keep in step with read_back.py. */
static size_t sample_size(unsigned i)
{
	static const size_t sizes[] = { 0, 1, 511, 512, 513, 4096, 65536,
	    (5u << 20) + 3 };

	if (i < sizeof(sizes) / sizeof(sizes[0]))
		return sizes[i];
	return 100 + (size_t)i * 997 % 30000;
}

static void sample_bytes(unsigned i, unsigned char *p, size_t n)
{
	size_t j;

	for (j = 0; j < n; j++)
		p[j] = (unsigned char)((j * 7 + i * 31) & 0xff);
}

static int fail(struct bale_writer *w, const char *what)
{
	fprintf(stderr, "conformance: %s: %s\n", what,
	    w ? bale_writer_errmsg(w) : "");
	bale_writer_free(w);
	return 1;
}

static int start(struct bale_writer **w, const char *backend, char **opts,
    int nopts)
{
	char key[128];
	char *eq;
	int i;

	if (bale_writer_new(w) != BALE_OK ||
	    bale_writer_set_backend(*w, backend) != BALE_OK)
		return -1;
	for (i = 0; i < nopts; i++) {
		eq = strchr(opts[i], '=');
		if (!eq)
			return -1;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - opts[i]),
		    opts[i]);
		if (bale_writer_option(*w, key, eq + 1) != BALE_OK)
			return -1;
	}
	return 0;
}

static void dataset(struct bale_dataset *ds, int replace)
{
	memset(ds, 0, sizeof(*ds));
	ds->name = "data";
	ds->classes = class_names;
	ds->nclasses = CLASSES;
	ds->nitems = SAMPLES;
	ds->replace = replace;
}

static int put_all(struct bale_writer *w, int allow_empty)
{
	unsigned char *buf = malloc((6u << 20));
	struct bale_sample s;
	char key[32];
	char path[64];
	unsigned i;
	int rc = BALE_OK;

	for (i = 0; buf && rc == BALE_OK && i < SAMPLES; i++) {
		if (sample_size(i) == 0 && !allow_empty)
			continue;
		memset(&s, 0, sizeof(s));
		s.index = 2 * i + 1;		/* gaps, as skips leave */
		snprintf(key, sizeof(key), "%010" PRIu64, s.index);
		snprintf(path, sizeof(path), "c%u/s%03u.bin", i % CLASSES, i);
		s.key = key;
		s.relpath = path;
		s.ext = "bin";
		s.label = i % CLASSES;
		s.label_name = class_names[i % CLASSES];
		s.size = sample_size(i);
		sample_bytes(i, buf, s.size);
		s.data = buf;
		s.crc32 = (uint32_t)crc32(0, buf, (uInt)s.size);
		rc = bale_writer_put(w, &s);
	}
	free(buf);
	return buf ? rc : BALE_ENOMEM;
}

static int cmd_write(const char *backend, const char *dir, char **opts,
    int nopts)
{
	const struct bale_backend *be = bale_backend_find(backend);
	struct bale_writer *w = NULL;
	struct bale_dataset ds;

	if (!be)
		return 77;
	dataset(&ds, 1);
	if (start(&w, backend, opts, nopts) != 0)
		return fail(w, "setup");
	if (bale_writer_open(w, dir, &ds) != BALE_OK)
		return fail(w, "open");
	if (put_all(w, be->caps & BALE_CAP_EMPTY) != BALE_OK)
		return fail(w, "put");
	if (bale_writer_finish(w) != BALE_OK)
		return fail(w, "finish");
	if (bale_writer_publish(w) != BALE_OK)
		return fail(w, "publish");
	bale_writer_free(w);
	return 0;
}

/* Writing below a regular file fails with a message naming the backend,
 * and the sticky failure is repeated by later calls. */
static int error_unwritable(const char *backend, const char *dir)
{
	struct bale_writer *w = NULL;
	struct bale_dataset ds;
	char bad[4096];
	size_t n = strlen(backend);
	int rc;

	snprintf(bad, sizeof(bad), "%s/a-file", dir);
	fclose(fopen(bad, "w"));
	snprintf(bad, sizeof(bad), "%s/a-file/sub", dir);
	dataset(&ds, 0);
	if (start(&w, backend, NULL, 0) != 0)
		return fail(w, "setup");
	rc = bale_writer_open(w, bad, &ds);
	if (rc == BALE_OK)
		rc = put_all(w, 1);
	if (rc == BALE_OK)
		rc = bale_writer_finish(w);
	if (rc == BALE_OK || strncmp(bale_writer_errmsg(w), backend, n) != 0 ||
	    bale_writer_errmsg(w)[n] != ':')
		return fail(w, "unwritable output was not refused by name");
	if (bale_writer_finish(w) != rc || bale_writer_publish(w) != rc)
		return fail(w, "failure is not sticky");
	bale_writer_free(w);
	return 0;
}

/* A complete output is kept unless replace is asked; out-of-order calls
 * are refused. */
static int error_exists(const char *backend, const char *dir)
{
	struct bale_writer *w = NULL;
	struct bale_dataset ds;

	if (cmd_write(backend, dir, NULL, 0) != 0)
		return 1;
	dataset(&ds, 0);
	if (start(&w, backend, NULL, 0) != 0)
		return fail(w, "setup");
	if (bale_writer_publish(w) != BALE_ESTATE)
		return fail(w, "publish before open was accepted");
	bale_writer_free(w);
	if (start(&w, backend, NULL, 0) != 0)
		return fail(w, "setup");
	if (bale_writer_open(w, dir, &ds) != BALE_EEXIST ||
	    !strstr(bale_writer_errmsg(w), "exists"))
		return fail(w, "existing output was not refused");
	bale_writer_free(w);
	return 0;
}

static const char *output_path(const char *backend, const char *dir,
    char *buf, size_t cap)
{
	/* where the backend says its output is: NAME + its suffix */
	snprintf(buf, cap, "%s/data%s", dir,
	    bale_backend_find(backend)->suffix);
	return buf;
}

/* The written samples, by output index (0-byte ones may be absent). */
static unsigned written_sample(int allow_empty, uint64_t i)
{
	return allow_empty || sample_size(0) ? (unsigned)i : (unsigned)i + 1;
}

static int check_blob(const struct bale_blob *b, unsigned s, uint64_t i,
    unsigned char *want)
{
	char key[32];
	char path[64];

	snprintf(key, sizeof(key), "%010u", 2 * s + 1);
	snprintf(path, sizeof(path), "c%u/s%03u.bin", s % CLASSES, s);
	sample_bytes(s, want, sample_size(s));
	if (strcmp(b->key, key) != 0 || b->label != (int64_t)(s % CLASSES) ||
	    b->size != sample_size(s) ||
	    (b->size && memcmp(b->data, want, b->size) != 0) ||
	    (b->path && strcmp(b->path, path) != 0) ||
	    (b->has_crc32 && b->crc32 != (uint32_t)crc32(0, want,
	    (uInt)b->size))) {
		fprintf(stderr, "conformance: sample %" PRIu64
		    " (%s) differs\n", i, key);
		return 1;
	}
	return 0;
}

/* Memory of the caller's for the data bytes (bale_reader_set_dest): a
 * new buffer each get, the calls counted; @refuse plays out of memory. */
struct dest {
	unsigned char *p;
	unsigned calls;
	int refuse;
};

static void *dest_alloc(void *ctx, size_t size)
{
	struct dest *d = ctx;

	d->calls++;
	free(d->p);
	d->p = d->refuse ? NULL : malloc(size ? size : 1);
	return d->p;
}

/* Sample @i through a destination: the reader must ask for it once and
 * leave the bytes there; bale_reader_size, when the reader knows the
 * size up front, must agree. */
static int get_into_dest(struct bale_reader *r, struct dest *d, uint64_t i,
    struct bale_blob *b)
{
	size_t size;
	int rc;

	d->calls = 0;
	rc = bale_reader_get(r, i, b);
	if (rc != BALE_OK)
		return rc;
	if (d->calls != 1 || b->data != d->p) {
		fprintf(stderr, "conformance: sample %" PRIu64 ": destination "
		    "asked %u times, data %s it\n", i, d->calls,
		    b->data == d->p ? "in" : "not in");
		return BALE_EINVAL;
	}
	rc = bale_reader_size(r, i, &size);
	if (rc == BALE_ENOTSUP || (rc == BALE_OK && size == b->size))
		return BALE_OK;
	fprintf(stderr, "conformance: sample %" PRIu64 ": size %zu up front, "
	    "%zu read\n", i, size, b->size);
	return BALE_EINVAL;
}

/* Where the reader says the bytes of the get lie, they lie (a
 * conversion reads them there, in place). */
static int where_agrees(struct bale_reader *r, uint64_t i,
    const struct bale_blob *b)
{
	unsigned char *there = malloc(b->size ? b->size : 1);
	uint64_t at = 0;
	int fd = -1;
	int rc = bale_reader_where(r, &fd, &at);
	int bad = there == NULL;

	if (!bad && rc == BALE_OK)
		bad = pread(fd, there, b->size, (off_t)at) !=
		    (ssize_t)b->size || memcmp(there, b->data, b->size) != 0;
	else if (!bad)
		bad = rc != BALE_ENOTSUP;
	if (bad)
		fprintf(stderr, "conformance: sample %" PRIu64 ": not where "
		    "the reader says (rc %d, fd %d, offset %" PRIu64 ")\n",
		    i, rc, fd, at);
	free(there);
	return bad;
}

/* The label alone is the label the get gave. */
static int label_agrees(struct bale_reader *r, uint64_t i,
    const struct bale_blob *b)
{
	int64_t label = -2;
	int rc = bale_reader_label(r, i, &label);

	if (rc == BALE_OK && label == b->label)
		return 0;
	fprintf(stderr, "conformance: sample %" PRIu64 ": label %" PRId64
	    " alone (rc %d), %" PRId64 " with the bytes\n", i, label, rc,
	    b->label);
	return 1;
}

/* A destination that has no memory fails the get, and the handle reads
 * on afterwards; a size past the end is an error, not a guess. */
static int dest_refused(struct bale_reader *r, struct dest *d, uint64_t n)
{
	struct bale_blob b;
	size_t size;
	int rc;

	d->refuse = 1;
	rc = bale_reader_get(r, 0, &b);
	d->refuse = 0;
	if (rc != BALE_ENOMEM) {
		fprintf(stderr, "conformance: a refused destination gave %d\n",
		    rc);
		return 1;
	}
	rc = bale_reader_size(r, n, &size);
	if (rc == BALE_EINVAL)
		return 0;
	fprintf(stderr, "conformance: the size of sample %" PRIu64 " of %"
	    PRIu64 " gave %d\n", n, n, rc);
	return 1;
}

/* Two handles on the output, with reader options @opts (KEY=VALUE);
 * three passes over every sample, the handles taking turns: readers may
 * fetch a sample differently the first time and on repeat reads (lmdb
 * map=1: pread, then its pages mapped), and handles of one process may
 * share state (lmdb: one environment per file). The second reads into
 * a destination of its own. */
static int cmd_read(const char *backend, const char *dir, char **opts,
    int nopts)
{
	const struct bale_backend *be = bale_backend_find(backend);
	unsigned char *want = malloc(6u << 20);
	struct bale_reader *r[2] = { NULL, NULL };
	struct bale_reader *bad_r = NULL;
	struct dest d = { NULL, 0, 0 };
	struct bale_blob b;
	char path[4096];
	uint64_t n = 0;
	uint64_t k;
	uint64_t i;
	int bad = 0;
	int h;
	int o;

	if (!be || !be->reader)
		return 77;
	output_path(backend, dir, path, sizeof(path));
	for (o = 0; o < nopts; o++)	/* KEY=VALUE into KEY, VALUE */
		if (!strchr(opts[o], '='))
			return 2;
		else
			*strchr(opts[o], '=') = '\0';
	for (h = 0; h < 2; h++) {
		bad_r = NULL;	/* "no memory" until the handle exists */
		if (!want || bale_reader_new(&r[h]) != BALE_OK)
			goto out_fail;
		bad_r = r[h];
		for (o = 0; o < nopts; o++)
			if (bale_reader_option(r[h], opts[o], opts[o] +
			    strlen(opts[o]) + 1) != BALE_OK)
				goto out_fail;
		if (bale_reader_open(r[h], NULL, path) != BALE_OK ||
		    bale_reader_count(r[h], &n) != BALE_OK)
			goto out_fail;
	}
	if (n != SAMPLES - !(be->caps & BALE_CAP_EMPTY)) {
		fprintf(stderr, "conformance: %" PRIu64 " samples\n", n);
		bad = 1;
	}
	bale_reader_set_dest(r[1], dest_alloc, &d);
	bad = bad || dest_refused(r[1], &d, n);
	for (k = 0; !bad && k < 3 * n; k++) {
		i = (k * 7919) % n;	/* a fixed shuffle: 7919 is prime */
		bad_r = r[k % 2];
		if ((k % 2 ? get_into_dest(bad_r, &d, i, &b) :
		    bale_reader_get(bad_r, i, &b)) != BALE_OK)
			goto out_fail;
		bad = check_blob(&b, written_sample(be->caps & BALE_CAP_EMPTY,
		    i), i, want) || where_agrees(bad_r, i, &b) ||
		    label_agrees(bad_r, i, &b);
	}
	bale_reader_free(r[0]);
	bale_reader_free(r[1]);
	free(want);
	free(d.p);
	return bad;
out_fail:
	fprintf(stderr, "conformance: read: %s\n",
	    bad_r ? bale_reader_errmsg(bad_r) : "no memory");
	bale_reader_free(r[0]);
	bale_reader_free(r[1]);
	free(want);
	free(d.p);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "read") == 0)
		return cmd_read(argv[2], argv[3], argv + 4, argc - 4);
	if (argc >= 4 && strcmp(argv[1], "write") == 0)
		return cmd_write(argv[2], argv[3], argv + 4, argc - 4);
	if (argc == 4 && strcmp(argv[1], "errors") == 0) {
		if (!bale_backend_find(argv[2]))
			return 77;
		return error_unwritable(argv[2], argv[3]) ||
		    error_exists(argv[2], argv[3]);
	}
	fprintf(stderr, "usage: bale-conformance write|read|errors BACKEND "
	    "DIR [KEY=VALUE ...]\n");
	return 2;
}
