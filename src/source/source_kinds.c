/* source_kinds.c - the kinds of source, in the order they are tried: a
 * packed output or WebDataset shards are recognised before what they
 * also are (a folder, files), the archive kinds by their first bytes
 * (a compressed tar last: whatever libarchive may read), a list file
 * before the bare folder. */
#include "source.h"

#include "bale_backend_util.h"
#include "shard_set.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct bale_source_kind bale_source_shards;
extern const struct bale_source_kind bale_source_tar;
extern const struct bale_source_kind bale_source_zip;
extern const struct bale_source_kind bale_source_compressed_tar;
extern const struct bale_source_kind bale_source_list;
extern const struct bale_source_kind bale_source_folder;

static const struct bale_source_kind *const kinds[] = {
	&bale_source_packed,
	&bale_source_shards,
	&bale_source_tar,
	&bale_source_zip,
	&bale_source_compressed_tar,
	&bale_source_list,
	&bale_source_folder,
	NULL,
};

const struct bale_source_kind *const *bale_source_kinds(void)
{
	return kinds;
}

const struct bale_source_kind *bale_source_archive_kind(int fd,
    uint64_t size, const unsigned char *head, size_t n)
{
	size_t i;

	for (i = 0; kinds[i]; i++)
		if (kinds[i]->sniff && kinds[i]->sniff(fd, size, head, n))
			return kinds[i];
	return NULL;
}

/* The archive kind of the file at @path: NULL for none, for a folder
 * or a missing path. A file that cannot be opened or read goes to the
 * last archive kind, whose walk then says why. */
static const struct bale_source_kind *source_kind_of_file(const char *path)
{
	const struct bale_source_kind *kind = &bale_source_compressed_tar;
	unsigned char head[512];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return errno == ENOENT ? NULL : kind;
	if (fstat(fd, &st) != 0)
		st.st_mode = 0;
	if (S_ISDIR(st.st_mode))
		kind = NULL;
	else if (S_ISREG(st.st_mode)) {
		n = pread(fd, head, sizeof(head), 0);
		if (n >= 0)
			kind = bale_source_archive_kind(fd,
			    (uint64_t)st.st_size, head, (size_t)n);
	}
	close(fd);
	return kind;
}

int bale_source_archive_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err)
{
	size_t i;

	if (s->npaths == 0 || source_kind_of_file(s->paths[0]) != self)
		return 0;
	for (i = 1; i < s->npaths; i++)
		if (!source_kind_of_file(s->paths[i]))
			return bale_errbuf_set(err, BALE_EINVAL, "'%s': "
			    "several sources must all be archive files (tar, "
			    "compressed tar, zip)", s->paths[i]);
	return 1;
}

int bale_source_archives_scan(const struct bale_source *s,
    struct bale_walk *w)
{
	return bale_walk_archives(w, s->paths, s->npaths, s->list);
}

int bale_source_classify(struct bale_source *s, const char *const *paths,
    size_t n, const char *list, struct bale_errbuf *err)
{
	size_t i;
	int rc;

	memset(s, 0, sizeof(*s));
	s->paths = paths;
	s->npaths = n;
	s->list = list;
	for (i = 0; kinds[i]; i++) {
		rc = kinds[i]->probe(kinds[i], s, err);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			s->kind = kinds[i];
			return BALE_OK;
		}
	}
	return bale_errbuf_set(err, BALE_EINVAL, "'%s': not a source bale "
	    "reads (a folder, an archive, WebDataset shards or a packed "
	    "output)", paths[0]);
}

void bale_source_release(struct bale_source *s)
{
	bale_shard_set_free(s->found, s->nfound);
	s->found = NULL;
	s->nfound = 0;
}
