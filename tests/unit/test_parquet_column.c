/* test_parquet_column.c - every row of the committed Parquet fixtures
 * (hyparquet-writer: Snappy, PLAIN, a dictionary for labels; DuckDB:
 * ZSTD pages v1, gzip pages v2 with DELTA_LENGTH byte arrays), read a
 * column at a time: each image's bytes are the bytes of the tree's file
 * its path names (fixtures/tree.tar), each label its class's index, in
 * the tree's order; a damaged page fails the column, saying so. */
#include "check.h"
#include "parquet_column.h"

#include "bale.h"
#include "bale_store.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>

static const char *fixtures;

/* The tree's files, in tar order (sorted by name). */
struct tree {
	char *paths[64];
	unsigned char *data[64];
	size_t sizes[64];
	size_t n;
};

static void load_tree(struct tree *t)
{
	char *path = bale_strfmt("%s/tree.tar", fixtures);
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	const char *name;

	memset(t, 0, sizeof(*t));
	archive_read_support_format_tar(a);
	CHECK_EQ(ARCHIVE_OK, archive_read_open_filename(a, path, 10240));
	while (archive_read_next_header(a, &e) == ARCHIVE_OK && t->n < 64) {
		if (archive_entry_filetype(e) != AE_IFREG)
			continue;
		name = archive_entry_pathname(e);
		t->paths[t->n] = strdup(name + (strncmp(name, "./", 2) ? 0 :
		    2));
		t->sizes[t->n] = (size_t)archive_entry_size(e);
		t->data[t->n] = malloc(t->sizes[t->n] + 1);
		CHECK_EQ(t->sizes[t->n], archive_read_data(a, t->data[t->n],
		    t->sizes[t->n]));
		t->n++;
	}
	archive_read_free(a);
	free(path);
	CHECK_EQ(40, t->n);
}

/* The class index of @path ("n0000000K/..."): classes sort by name. */
static long class_of(const char *path)
{
	return strtol(path + 1, NULL, 10);
}

/* Column @leaf of row group @g. */
static void open_column(struct bale_pq_column *c, int fd,
    const struct bale_pq_meta *m, size_t g, const char *leaf)
{
	struct bale_errbuf err;
	long k = bale_pq_meta_leaf(m, leaf);

	CHECK(k >= 0);
	if (k >= 0)
		CHECK_EQ(BALE_OK, bale_pq_column_open(c, fd, &m->leaves[k],
		    &m->groups[g].chunks[k], &err));
}

static void test_file(const char *name, const struct tree *t)
{
	char *path = bale_strfmt("%s/%s", fixtures, name);
	struct bale_pq_column img, pth, lab;
	struct bale_pq_value vi, vp, vl;
	struct bale_pq_meta m;
	struct bale_errbuf err;
	uint64_t size;
	size_t row = 0, g;
	int64_t r;
	int fd = bale_store_fd_open(path, &size, &err);
	char *p;

	CHECK(fd >= 0);
	CHECK_EQ(BALE_OK, bale_pq_meta_read(&m, fd, size, &err));
	for (g = 0; g < m.ngroups; g++) {
		open_column(&img, fd, &m, g, "image.bytes");
		open_column(&pth, fd, &m, g, "image.path");
		open_column(&lab, fd, &m, g, "label");
		for (r = 0; r < m.groups[g].num_rows && row < t->n;
		    r++, row++) {
			CHECK_EQ(1, bale_pq_column_next(&img, &vi, &err));
			CHECK_EQ(1, bale_pq_column_next(&pth, &vp, &err));
			CHECK_EQ(1, bale_pq_column_next(&lab, &vl, &err));
			p = strndup((const char *)vp.bytes, vp.len);
			CHECK_STR(t->paths[row], p);
			CHECK_EQ(t->sizes[row], vi.len);
			CHECK(vi.len == t->sizes[row] && memcmp(vi.bytes,
			    t->data[row], vi.len) == 0);
			CHECK_EQ(class_of(t->paths[row]), vl.i);
			free(p);
		}
		bale_pq_column_close(&img);
		bale_pq_column_close(&pth);
		bale_pq_column_close(&lab);
	}
	CHECK_EQ(40, row);
	bale_pq_meta_release(&m);
	bale_store_fd_close(fd);
	free(path);
}

/* A page whose body is damaged: the column fails, saying so. */
static void test_damaged(const struct tree *t)
{
	char dir[] = "/tmp/bale-pqc-XXXXXX";
	struct bale_pq_column c;
	struct bale_pq_value v;
	struct bale_pq_meta m;
	struct bale_errbuf err;
	unsigned char *data;
	size_t n, i;
	uint64_t size;
	char *src = bale_strfmt("%s/hf-snappy.parquet", fixtures), *path;
	long leaf;
	int fd, rc = 1;

	(void)t;
	data = (unsigned char *)bale_file_read_all(src, &n);
	CHECK(mkdtemp(dir) != NULL);
	path = bale_strfmt("%s/x.parquet", dir);
	for (i = 100; i < 200; i++)	/* the first page's body */
		data[i] ^= 0xff;
	CHECK_EQ(0, bale_file_write_atomic(path, data, n, 0));
	fd = bale_store_fd_open(path, &size, &err);
	CHECK_EQ(BALE_OK, bale_pq_meta_read(&m, fd, size, &err));
	leaf = bale_pq_meta_leaf(&m, "image.bytes");
	CHECK_EQ(BALE_OK, bale_pq_column_open(&c, fd, &m.leaves[leaf],
	    &m.groups[0].chunks[leaf], &err));
	for (i = 0; i < 16 && rc == 1; i++)
		rc = bale_pq_column_next(&c, &v, &err);
	CHECK_EQ(BALE_EINPUT, rc);
	bale_pq_column_close(&c);
	bale_pq_meta_release(&m);
	bale_store_fd_close(fd);
	free(data);
	free(src);
	free(path);
	check_rmtree(dir);
}

int main(int argc, char **argv)
{
	struct tree t;
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "usage: test_parquet_column FIXTURES\n");
		return 2;
	}
	fixtures = argv[1];
	load_tree(&t);
	test_file("hf-snappy.parquet", &t);
	test_file("duckdb-zstd.parquet", &t);
	test_file("duckdb-gzip-v2.parquet", &t);
	test_damaged(&t);
	for (i = 0; i < t.n; i++) {
		free(t.paths[i]);
		free(t.data[i]);
	}
	return CHECK_DONE();
}
