/* lmdb.c - the LMDB format's descriptor: its probe, options and ops
 * (lmdb_write.c writes, lmdb_resume.c resumes, lmdb_read.c reads,
 * lmdb_merge.c merges, lmdb_update.c updates; the files it makes:
 * format.scd).
 */
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_store.h"
#include "lmdb_read.h"
#include "lmdb_write.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 if @p holds the magic number of an LMDB meta page (page 0 starts
 * with a 16-byte page header, then the meta's mm_magic). */
static int lmdb_magic(const unsigned char *p, size_t n)
{
	static const unsigned char magic[4] = { 0xde, 0xc0, 0xef, 0xbe };

	return n >= 20 && memcmp(p + 16, magic, sizeof(magic)) == 0;
}

/* In an object store the reader refuses LMDB, and says why: a folder
 * holding data.mdb is taken as one, so that it gets to. */
static int lmdb_remote_probe(char *data)
{
	struct bale_store_stat st;
	struct bale_errbuf err;
	int found = bale_store_stat(data, &st, &err) == BALE_OK && !st.is_dir;

	free(data);
	return found;
}

/* An environment folder holding data.mdb, or a single LMDB file
 * (nosubdir=1), recognised by the meta page whatever it is named. A
 * data.mdb that exists but cannot be read is taken as one: the reader
 * then says why it cannot open it. */
static int lmdb_probe(const char *path, int is_dir, const unsigned char *head,
    size_t n)
{
	unsigned char page[20];
	char *data;
	ssize_t got = -1;
	int fd;

	if (!is_dir)
		return lmdb_magic(head, n);
	data = bale_strfmt("%s/data.mdb", path);
	if (data && !bale_store_is_local(path))
		return lmdb_remote_probe(data);
	fd = data ? open(data, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		got = pread(fd, page, sizeof(page), 0);
		close(fd);
	} else if (data && (errno == EACCES || errno == EPERM)) {
		got = access(data, F_OK) == 0 ? 0 : -1;
	}
	free(data);
	if (got == 0)
		return 1;
	return got > 0 && lmdb_magic(page, (size_t)got);
}

static const char *lmdb_library_version(void)
{
	return mdb_version(NULL, NULL, NULL);
}

static const struct bale_option lmdb_writer_options[] = {
	{ "layout", "L", BALE_OPTION_SHAPES, "lmdb-layout",
	    "default or caffe (Caffe Datum records)" },
	{ "map_size", "SIZE", 0, NULL,
	    "the initial map, which grows by itself anyway" },
	{ "nosubdir", NULL, BALE_OPTION_SHAPES, "lmdb-nosubdir",
	    "one file NAME.lmdb instead of a folder" },
	{ "fsync", NULL, BALE_OPTION_SYNC, "fsync", BALE_FSYNC_HELP },
	{ NULL, NULL, 0, NULL, NULL },
};

static const struct bale_option lmdb_reader_options[] = {
	{ "meta", NULL, 0, NULL, "read each sample's JSON too (default 1)" },
	{ "map", NULL, BALE_OPTION_BENCH, "lmdb-map",
	    "values read from the memory map: repeat reads come from it" },
	{ NULL, NULL, 0, NULL, NULL },
};

/* with nosubdir=1 the output is a file, its lock file beside it */
static const char *const lmdb_side_files[] = { ".lmdb-lock", NULL };

const struct bale_backend bale_backend_lmdb = {
	.abi = BALE_BACKEND_ABI,
	.name = "lmdb",
	.summary = "LMDB key/value store (default or Caffe Datum layout)",
	.caps = BALE_CAP_EMPTY | BALE_CAP_RANDOM | BALE_CAP_THREADS,
	.probe = lmdb_probe,
	.suffix = ".lmdb",
	.read_rank = 10,	/* one mapped file: a sample is a lookup */
	.side_files = lmdb_side_files,
	.library = "liblmdb",
	.library_version = lmdb_library_version,
	.writer_priv = sizeof(struct lmdb_w),
	.writer = &bale_lmdb_writer,
	.writer_options = lmdb_writer_options,
	.reader_priv = sizeof(struct lmdb_r),
	.reader = &bale_lmdb_reader,
	.reader_options = lmdb_reader_options,
	.merge = bale_lmdb_merge,
	.update = bale_lmdb_update,
};
