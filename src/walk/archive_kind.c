/* archive_kind.c - what the archive kinds (tar, zip, compressed tar)
 * share: which of them an archive is, by its first bytes, among the
 * kinds the caller names (kinds.c lists them), and their probe and scan. */
#include "kind.h"

#include "bale_backend_util.h"
#include "bale_store.h"
#include "tar_scan.h"

/* The last archive kind of @kinds: whatever libarchive may read. */
static const struct bale_source_kind *archive_last(
    const struct bale_source_kind *const *kinds)
{
	const struct bale_source_kind *last = NULL;
	size_t i;

	for (i = 0; kinds[i]; i++)
		if (kinds[i]->sniff)
			last = kinds[i];
	return last;
}

/* The archive kind of the file at @path: NULL for none, for a folder
 * or a missing path. A file that cannot be opened or read goes to the
 * last archive kind, whose walk then says why. */
static const struct bale_source_kind *archive_kind_of_file(
    const struct bale_source_kind *const *kinds, const char *path)
{
	const struct bale_source_kind *kind = archive_last(kinds);
	struct bale_store_stat st;
	struct bale_errbuf why;
	uint64_t size;
	int fd = bale_store_fd_open(path, &size, &why);

	if (fd == BALE_ENOENT)
		return NULL;
	if (fd == BALE_EINPUT)	/* not a regular file: a folder is none */
		return bale_store_stat(path, &st, &why) == BALE_OK &&
		    st.is_dir ? NULL : kind;
	if (fd < 0)
		return kind;
	kind = bale_source_archive_kind(kinds, fd, size);
	bale_store_fd_close(fd);
	return kind;
}

int bale_source_archive_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err)
{
	size_t i;

	if (s->npaths == 0 ||
	    archive_kind_of_file(s->kinds, s->paths[0]) != self)
		return 0;
	for (i = 1; i < s->npaths; i++)
		if (!archive_kind_of_file(s->kinds, s->paths[i]))
			return bale_errbuf_set(err, BALE_EINVAL, "'%s': "
			    "several sources must all be archive files (tar, "
			    "compressed tar, zip)", s->paths[i]);
	return 1;
}

int bale_source_archives_scan(const struct bale_source *s,
    struct bale_walk *w)
{
	bale_walk_set_kinds(w, s->kinds);
	return bale_walk_archives(w, s->paths, s->npaths, s->list);
}
