/* source_list.c - a list file as the source: "path<TAB>label" lines
 * naming files below a folder, kept in the file's order. */
#include "kind.h"

static int list_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err)
{
	(void)self;
	(void)err;
	return s->npaths == 1 && s->list != NULL;
}

static int list_scan(const struct bale_source *s, struct bale_walk *w)
{
	return bale_walk_list(w, s->paths[0], s->list);
}

const struct bale_source_kind bale_source_list = {
	.name = "list",
	.what = "a list file",
	.caps = BALE_SOURCE_TREE | BALE_SOURCE_LISTABLE,
	.probe = list_probe,
	.scan = list_scan,
};
