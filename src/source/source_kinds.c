/* source_kinds.c - the kinds of source, in the order they are tried: a
 * packed output is recognised before what it also is (a folder, files),
 * then the kinds read from files (src/walk/kinds.c). */
#include "source.h"

#include "bale_backend_util.h"

#include <string.h>

static const struct bale_source_kind *const packed_kinds[] = {
	&bale_source_packed,
	NULL,
};

/* The first kind of @kinds whose probe takes @s: 1, 0 for none, or an
 * error. */
static int source_probe(const struct bale_source_kind *const *kinds,
    struct bale_source *s, struct bale_errbuf *err)
{
	size_t i;
	int rc;

	s->kinds = kinds;
	for (i = 0; kinds[i]; i++) {
		rc = kinds[i]->probe(kinds[i], s, err);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			s->kind = kinds[i];
			return 1;
		}
	}
	return 0;
}

int bale_source_classify(struct bale_source *s, const char *const *paths,
    size_t n, const char *list, struct bale_errbuf *err)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->paths = paths;
	s->npaths = n;
	s->list = list;
	rc = source_probe(packed_kinds, s, err);
	if (rc == 0)
		rc = source_probe(bale_source_file_kinds(), s, err);
	if (rc > 0)
		return BALE_OK;
	if (rc < 0)
		return rc;
	return bale_errbuf_set(err, BALE_EINVAL, "'%s': not a source bale "
	    "reads (a folder, an archive, WebDataset shards or a packed "
	    "output)", paths[0]);
}
