/* test_parquet_meta.c - Parquet footers written by two writers that are
 * not bale (tests/parquet/fixtures: hyparquet-writer, DuckDB): the rows,
 * row groups, columns with their levels and codecs, the chunks inside
 * the file, the Hugging Face metadata; and hostile footers (cut short,
 * lying about their length, every byte of a real one flipped in turn)
 * refused as damaged, never followed. */
#include "check.h"
#include "parquet_meta.h"
#include "thrift_compact.h"

#include "bale.h"
#include "bale_store.h"
#include "le.h"

#include <stdlib.h>
#include <string.h>

static const char *fixtures;	/* argv[1] */

/* The footer of fixture @name into @m. */
static int read_fixture(const char *name, struct bale_pq_meta *m,
    struct bale_errbuf *err)
{
	char *path = bale_strfmt("%s/%s", fixtures, name);
	uint64_t size;
	int fd = bale_store_fd_open(path, &size, err);
	int rc = fd < 0 ? fd : bale_pq_meta_read(m, fd, size, err);

	if (fd >= 0)
		bale_store_fd_close(fd);
	free(path);
	return rc;
}

/* What every fixture holds: 40 rows of the Hugging Face layout. */
static void check_layout(const struct bale_pq_meta *m, int codec)
{
	const char *hf = bale_pq_meta_value(m, "huggingface");
	long bytes = bale_pq_meta_leaf(m, "image.bytes");
	long path = bale_pq_meta_leaf(m, "image.path");
	long label = bale_pq_meta_leaf(m, "label");
	size_t g;

	CHECK_EQ(40, m->num_rows);
	CHECK_EQ(3, m->nleaves);
	CHECK(bytes >= 0 && path >= 0 && label >= 0);
	if (bytes < 0 || path < 0 || label < 0)
		return;
	CHECK_EQ(BALE_PQ_BYTE_ARRAY, m->leaves[bytes].type);
	CHECK_EQ(2, m->leaves[bytes].max_def);	/* image, then bytes */
	CHECK_EQ(0, m->leaves[bytes].max_rep);
	CHECK_EQ(BALE_PQ_BYTE_ARRAY, m->leaves[path].type);
	CHECK_EQ(BALE_PQ_INT64, m->leaves[label].type);
	CHECK_EQ(1, m->leaves[label].max_def);
	CHECK(hf && strstr(hf, "ClassLabel") && strstr(hf, "n00000002"));
	for (g = 0; g < m->ngroups; g++)
		CHECK_EQ(codec, m->groups[g].chunks[bytes].codec);
}

static void test_writers(void)
{
	struct bale_pq_meta m;
	struct bale_errbuf err;
	int64_t rows[] = { 16, 16, 8 };
	size_t g;

	CHECK_EQ(BALE_OK, read_fixture("hf-snappy.parquet", &m, &err));
	check_layout(&m, BALE_PQ_SNAPPY);
	CHECK_EQ(3, m.ngroups);
	for (g = 0; g < m.ngroups && g < 3; g++)
		CHECK_EQ(rows[g], m.groups[g].num_rows);
	bale_pq_meta_release(&m);
	CHECK_EQ(BALE_OK, read_fixture("duckdb-zstd.parquet", &m, &err));
	check_layout(&m, BALE_PQ_ZSTD);
	bale_pq_meta_release(&m);
	CHECK_EQ(BALE_OK, read_fixture("duckdb-gzip-v2.parquet", &m, &err));
	check_layout(&m, BALE_PQ_GZIP);
	bale_pq_meta_release(&m);
}

/* A real footer, and where it lies in its file. */
struct footer {
	unsigned char *file;
	size_t size;
	size_t at, len;
};

static void load_footer(struct footer *f, const char *name)
{
	char *path = bale_strfmt("%s/%s", fixtures, name);

	f->file = (unsigned char *)bale_file_read_all(path, &f->size);
	free(path);
	CHECK(f->file && f->size > 12);
	if (!f->file)
		exit(1);
	f->len = bale_le32(f->file + f->size - 8);
	f->at = f->size - 8 - f->len;
}

/* Every byte of the footer flipped in turn, and the footer cut at every
 * length: each decodes, or is refused as damaged; none crashes (the
 * sanitizer builds watch the reads). */
static void test_flipped(void)
{
	struct bale_pq_meta m;
	struct bale_errbuf err;
	struct footer f;
	size_t i;
	int rc, bad = 0;

	load_footer(&f, "hf-snappy.parquet");
	for (i = 0; i < f.len; i++) {
		f.file[f.at + i] ^= 0x5a;
		rc = bale_pq_meta_decode(&m, f.file + f.at, f.len, f.at, &err);
		bad += rc != BALE_OK && rc != BALE_EINPUT;
		if (rc == BALE_OK)
			bale_pq_meta_release(&m);
		f.file[f.at + i] ^= 0x5a;
	}
	for (i = 0; i < f.len; i++) {
		rc = bale_pq_meta_decode(&m, f.file + f.at, i, f.at, &err);
		bad += rc != BALE_EINPUT;
		if (rc == BALE_OK)
			bale_pq_meta_release(&m);
	}
	CHECK_EQ(0, bad);
	/* a footer that points its pages outside the file */
	rc = bale_pq_meta_decode(&m, f.file + f.at, f.len, 100, &err);
	CHECK_EQ(BALE_EINPUT, rc);
	CHECK(strstr(err.msg, "outside the file") != NULL);
	free(f.file);
}

/* Whole files: not Parquet, cut short, a footer length past the file. */
static void test_files(void)
{
	char dir[] = "/tmp/bale-pq-XXXXXX";
	struct bale_pq_meta m;
	struct bale_errbuf err;
	struct footer f;
	char *path;
	uint64_t size;
	int fd;

	load_footer(&f, "hf-snappy.parquet");
	CHECK(mkdtemp(dir) != NULL);
	path = bale_strfmt("%s/x.parquet", dir);
	/* the magic at both ends, a footer length of 2^31 */
	f.file[f.size - 5] = 0x80;
	CHECK_EQ(0, bale_file_write_atomic(path, f.file, f.size, 0));
	fd = bale_store_fd_open(path, &size, &err);
	CHECK_EQ(BALE_EINPUT, bale_pq_meta_read(&m, fd, size, &err));
	CHECK(strstr(err.msg, "footer claims") != NULL);
	bale_store_fd_close(fd);
	/* cut short: no magic at the end */
	CHECK_EQ(0, bale_file_write_atomic(path, f.file, f.size / 2, 0));
	fd = bale_store_fd_open(path, &size, &err);
	CHECK_EQ(BALE_EINPUT, bale_pq_meta_read(&m, fd, size, &err));
	CHECK(strstr(err.msg, "not a Parquet file") != NULL);
	bale_store_fd_close(fd);
	free(path);
	free(f.file);
	check_rmtree(dir);
}

/* Thrift's own limits: nesting, lengths past the data. */
static void test_thrift(void)
{
	unsigned char deep[80], longbin[] = { 0x18, 0x7f, 'a', 0 };
	struct bale_thrift t;
	const unsigned char *p;
	int16_t id;
	uint8_t type;
	size_t i, n;

	for (i = 0; i < sizeof(deep); i++)	/* struct in struct in ... */
		deep[i] = 0x1c;
	bale_thrift_init(&t, deep, sizeof(deep));
	CHECK_EQ(0, bale_thrift_enter(&t));
	CHECK_EQ(1, bale_thrift_field(&t, &id, &type));
	CHECK_EQ(-1, bale_thrift_skip(&t, type));
	CHECK(t.why && strstr(t.why, "too deep"));
	bale_thrift_init(&t, longbin, sizeof(longbin));
	CHECK_EQ(0, bale_thrift_enter(&t));
	CHECK_EQ(1, bale_thrift_field(&t, &id, &type));
	CHECK_EQ(1, id);
	CHECK_EQ(-1, bale_thrift_binary(&t, type, &p, &n));
	CHECK(t.why && strstr(t.why, "past its data"));
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_parquet_meta FIXTURES\n");
		return 2;
	}
	fixtures = argv[1];
	test_writers();
	test_flipped();
	test_files();
	test_thrift();
	return CHECK_DONE();
}
