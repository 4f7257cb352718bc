/* source_folder.c - an ImageFolder tree as the source: one subfolder
 * per class, samples in torchvision's order, read with openat() from the
 * root; read in place by folder_read.c. */
#include "kind.h"

extern const struct bale_backend bale_backend_folder;

static int folder_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err)
{
	(void)self;
	(void)err;	/* a missing folder is the walk's to say */
	return s->npaths == 1 && !s->list;
}

static int folder_scan(const struct bale_source *s, struct bale_walk *w)
{
	return bale_walk_folder(w, s->paths[0]);
}

const struct bale_source_kind bale_source_folder = {
	.name = "folder",
	.what = "a folder",
	.caps = BALE_SOURCE_TREE | BALE_SOURCE_LISTABLE,
	.probe = folder_probe,
	.scan = folder_scan,
	.reader = &bale_backend_folder,
};
