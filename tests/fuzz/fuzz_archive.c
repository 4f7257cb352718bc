/* fuzz_archive.c - the archive source on hostile bytes: the input is
 * written to a scratch file, walked as a tar (or tar of tars) or zip, and
 * every sample the walk found is read in place, as bale pack's workers
 * read it. Checks that member locations stay inside the file and that a
 * member read either fails with a reason or fills exactly its size. */
#include "bale.h"
#include "input.h"
#include "scratch.h"
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
	if (bale_input_member(&in, m) != BALE_OK) {
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

static void fuzz_walk(const char *path, size_t fsize)
{
	struct bale_walk_member m;
	enum bale_walk_note_kind kind;
	const char *p, *why;
	struct bale_walk *w;
	size_t i;

	if (bale_walk_new(&w) != BALE_OK)
		abort();
	if (bale_walk_archive(w, path) == BALE_OK) {
		for (i = 0; i < bale_walk_nnotes(w); i++) {
			bale_walk_note(w, i, &kind, &p, &why);
			if (!why[0])
				abort();
		}
		for (i = 0; i < bale_walk_count(w); i++) {
			if (bale_walk_label(w, i) < 0 || (size_t)bale_walk_label(
			    w, i) >= bale_walk_nclasses(w))
				abort();
			if (i < FUZZ_MAX_READS && bale_walk_member(w, i, &m))
				fuzz_read_member(&m, fsize);
		}
	} else if (!bale_walk_errmsg(w)[0]) {
		abort();	/* a failure without a message */
	}
	bale_walk_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_scratch_put("a", data, size);
	fuzz_walk(fuzz_scratch_path("a"), size);
	return 0;
}
