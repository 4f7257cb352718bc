/* source_packed.c - an output bale reads (its LMDB, HDF5 file or shard
 * list, a Caffe LMDB) as the source: converted sample by sample, in its
 * order, with its labels, class names and source paths. Its samples are
 * members of two kinds: those the feed reads with a reader of the
 * output, and those whose bytes lie whole in its files, read in place. */
#include "input.h"
#include "source.h"

#include "bale.h"

static int packed_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err)
{
	(void)self;
	(void)err;
	return s->npaths == 1 && bale_output_format(s->paths[0]) != NULL;
}

static int packed_scan(const struct bale_source *s, struct bale_walk *w)
{
	return bale_walk_dataset(w, s->paths[0], NULL);
}

const struct bale_source_kind bale_source_packed = {
	.name = "packed",
	.what = "a packed output",
	.caps = 0,
	.probe = packed_probe,
	.scan = packed_scan,
};

/* Not a kind a source is of (no probe): only its samples' kind, read
 * where the walk's reader said the bytes are (it stays open, so they
 * stay there). */
const struct bale_source_kind bale_source_packed_in_place = {
	.name = "packed in place",
	.what = "a packed output's stored sample",
	.caps = BALE_SOURCE_RANDOM,
	.read = bale_input_read_stored,
};
