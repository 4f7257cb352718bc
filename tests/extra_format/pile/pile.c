/* pile.c - the pile format's descriptor and probe. */
#include "pile.h"

#include <string.h>

/* A pile begins with its magic, whatever it is called. */
static int pile_probe(const char *path, int is_dir, const unsigned char *head,
    size_t n)
{
	(void)path;
	return !is_dir && n >= PILE_MAGIC_LEN &&
	    memcmp(head, PILE_MAGIC, PILE_MAGIC_LEN) == 0;
}

static const struct bale_option pile_writer_options[] = {
	{ NULL, NULL, 0, NULL, NULL },
};

const struct bale_backend bale_backend_pile = {
	.abi = BALE_BACKEND_ABI,
	.name = "pile",
	.summary = "one file of records and an index (a test's throwaway)",
	.caps = BALE_CAP_EMPTY | BALE_CAP_RANDOM | BALE_CAP_THREADS,
	.probe = pile_probe,
	.suffix = ".pile",
	.read_rank = 40,	/* a record read in three steps */
	.writer_priv = sizeof(struct pile_w),
	.writer = &bale_pile_writer,
	.writer_options = pile_writer_options,
	.reader_priv = sizeof(struct pile_r),
	.reader = &bale_pile_reader,
};
