/* source_archives.c - one archive or several as the source: tars, tars
 * of per-class tars and zips read in place, compressed tars streamed;
 * several pack as if extracted into one folder in their order. */
#include "source.h"

#include "bale_backend_util.h"

#include <sys/stat.h>

static int archives_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

static int archives_probe(struct bale_source *s, struct bale_errbuf *err)
{
	size_t i;

	if (s->npaths == 1)
		return archives_is_file(s->paths[0]);
	for (i = 0; i < s->npaths; i++)
		if (!archives_is_file(s->paths[i]))
			return bale_errbuf_set(err, BALE_EINVAL, "'%s': "
			    "several sources must all be archive files (tar, "
			    "compressed tar, zip)", s->paths[i]);
	return 1;
}

static int archives_scan(const struct bale_source *s, struct bale_walk *w)
{
	return bale_walk_archives(w, s->paths, s->npaths, s->list);
}

const struct bale_source_kind bale_source_archives = {
	.name = "archives",
	.what = "archives",
	.caps = BALE_SOURCE_LISTABLE,
	.probe = archives_probe,
	.scan = archives_scan,
};
