/* fuzz_archive.c - the archive source on hostile bytes: the input is
 * written to a scratch file, walked as a tar (or tar of tars), a
 * compressed tar or a zip, and every sample the walk found is read, as
 * bale pack's workers read it: in place, or from the stream feed. Checks
 * that member locations stay inside the file and that a member read
 * either fails with a reason or gives exactly its size. Each input is
 * walked twice: by ImageFolder rules, and through a list file naming
 * member paths (one twice, one unsafe). */
#include "bale.h"
#include "kind.h"
#include "bale_backend_util.h"
#include "input.h"
#include "scratch.h"
#include "source.h"
#include "stream_feed.h"
#include "walk.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_READS 256	/* samples read per input */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_read_member(const struct bale_walk_member *m, size_t fsize)
{
	struct bale_input in;
	unsigned char *buf;

	if (m->offset > fsize || m->csize > fsize - m->offset)
		abort();	/* the walk let a member point outside */
	if (bale_input_member(&in, m, NULL, NULL) != BALE_OK) {
		if (!in.err.msg[0])
			abort();	/* a skip without a reason */
		return;
	}
	buf = malloc(in.size);
	if (!buf)
		return;
	if (bale_input_read(&in, buf) != BALE_OK && !in.err.msg[0])
		abort();
	free(buf);
}

/* Take every sample of a compressed archive from the feed, in order. */
static void fuzz_feed(const struct bale_walk *w)
{
	size_t n = bale_walk_count(w);
	struct bale_stream_feed *f;
	struct bale_errbuf err;
	struct bale_walk_member m;
	struct bale_fed fed;
	struct bale_order order = { NULL, 0 };	/* the walk's */
	size_t i;
	int rc;

	/* a small bound, so hostile orders take several passes */
	if (bale_stream_feed_start(&f, w, &order, 0, n, 4096, 2, &err) !=
	    BALE_OK || !f)
		return;
	for (i = 0; i < n; i++) {
		bale_walk_member(w, i, &m);
		rc = bale_stream_feed_take(f, i, &fed, &err);
		if (rc == BALE_OK && fed.size != m.size)
			abort();	/* not the size it was listed with */
		if (rc == BALE_OK)
			free(fed.data);
		else if (rc != BALE_EINPUT || !err.msg[0])
			abort();	/* a failure without a reason */
	}
	bale_stream_feed_free(f, NULL);
}

static void fuzz_walk(const char *path, size_t fsize, const char *list)
{
	struct bale_walk_member m;
	enum bale_walk_note_kind kind;
	const char *p, *why;
	struct bale_walk *w;
	size_t i;

	if (bale_walk_new(&w) != BALE_OK)
		abort();
	bale_walk_set_kinds(w, bale_source_file_kinds());
	if (bale_walk_archives(w, &path, 1, list) == BALE_OK) {
		for (i = 0; i < bale_walk_nnotes(w); i++) {
			bale_walk_note(w, i, &kind, &p, &why);
			if (!why[0])
				abort();
		}
		for (i = 0; i < bale_walk_count(w); i++) {
			if (bale_walk_label(w, i) < 0 ||
			    (size_t)bale_walk_label(w, i) >=
			    bale_walk_nclasses(w))
				abort();
			if (i < FUZZ_MAX_READS && bale_walk_member(w, i, &m) &&
			    !bale_source_member_fed(&m))
				fuzz_read_member(&m, fsize);
		}
		fuzz_feed(w);
	} else if (!bale_walk_errmsg(w)[0]) {
		abort();	/* a failure without a message */
	}
	bale_walk_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char text[] = "a/b.jpg\t0\n./a/b.jpg\t2\nb.jpg\t1\n"
	    "../x.jpg\t0\nc/d/e.png\t3\n";
	static char *list;	/* written once; scratch paths do not last */
	char *archive;

	if (!list) {
		fuzz_scratch_put("list", (const uint8_t *)text,
		    sizeof(text) - 1);
		list = strdup(fuzz_scratch_path("list"));
	}
	fuzz_scratch_put("a", data, size);
	archive = strdup(fuzz_scratch_path("a"));
	if (!list || !archive)
		abort();
	fuzz_walk(archive, size, NULL);
	fuzz_walk(archive, size, list);
	free(archive);
	return 0;
}
