/* snappy_view.h - a Snappy block read where it lies, not decompressed:
 * its tags are parsed once into runs (a literal: bytes of the block; a
 * copy: bytes met before), and a few bytes at any place of the output
 * are then read through them. A Parquet listing needs only each image's
 * 4-byte length from a page of images: decompressing the page to learn
 * them would copy every image once more.
 *
 * The block is checked as a decompressor checks it: every tag whole,
 * every copy reaching back inside what came before, the runs adding up
 * to the length its preamble claims. A block of more runs than the
 * caller allows (small copies everywhere, as a hostile block could be)
 * is left to be decompressed instead.
 */
#ifndef BALE_SNAPPY_VIEW_H
#define BALE_SNAPPY_VIEW_H

#include <stddef.h>
#include <stdint.h>

struct bale_snappy_run {
	uint64_t out;		/* where it starts in the output */
	uint64_t from;		/* a literal: its offset in the block; a
				 * copy: how far back it reaches */
	uint32_t len;
	int literal;
};

struct bale_snappy_view {
	const unsigned char *src;
	size_t n;
	uint64_t size;		/* the output's length */
	struct bale_snappy_run *runs;
	size_t nruns, cap;
	size_t hint;		/* the run the last read ended in */
	uint64_t budget;	/* steps back through copies left */
};

#define BALE_SNAPPY_VIEW_BAD (-1)	/* not a valid Snappy block */
#define BALE_SNAPPY_VIEW_NOMEM (-2)
#define BALE_SNAPPY_VIEW_MANY (-3)	/* over @max_runs runs */

/** Parse the block @src (@n bytes) into @v, keeping it in place (it must
 *  outlive @v). @v is zeroed before its first open, and may be opened
 *  again on another block (its room for runs kept). @return 0, or
 *  BALE_SNAPPY_VIEW_* */
int bale_snappy_view_open(struct bale_snappy_view *v, const void *src,
    size_t n, size_t max_runs);

/** The @len output bytes at @pos into @dst. @return 0,
 *  BALE_SNAPPY_VIEW_BAD past the output's end, or BALE_SNAPPY_VIEW_MANY
 *  when following copies back has cost more than the block may (decompress
 *  it instead) */
int bale_snappy_view_read(struct bale_snappy_view *v, uint64_t pos,
    void *dst, size_t len);

void bale_snappy_view_release(struct bale_snappy_view *v);

#endif
