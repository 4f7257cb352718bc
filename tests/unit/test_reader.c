/* test_reader.c - the reader state machine and its messages, on the raw
 * folder reader (always built), and what opening picks for a path. */
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[] = "/tmp/bale-reader-XXXXXX";

static void put_dir(const char *rel)
{
	char *path = bale_strfmt("%s/%s", root, rel);

	CHECK(path && mkdir(path, 0755) == 0);
	free(path);
}

static void put_file(const char *rel, const char *text)
{
	char *path = bale_strfmt("%s/%s", root, rel);
	FILE *f = path ? fopen(path, "w") : NULL;

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(path);
}

static void test_calls_before_open(void)
{
	struct bale_reader *r = NULL;
	struct bale_blob b;
	uint64_t n;

	CHECK_EQ(BALE_OK, bale_reader_new(&r));
	CHECK_STR("", bale_reader_format(r));
	CHECK_EQ(BALE_ESTATE, bale_reader_count(r, &n));
	CHECK_STR("reader not open", bale_reader_errmsg(r));
	CHECK_EQ(BALE_ESTATE, bale_reader_get(r, 0, &b));
	bale_reader_free(r);
	bale_reader_free(NULL);
}

static void test_what_open_picks(void)
{
	struct bale_reader *r = NULL;
	char *notes = bale_strfmt("%s/a/one.jpg", root);

	char *missing = bale_strfmt("%s/a/none.jpg", root);

	/* a file that is there but no output is bad input, not missing */
	CHECK_EQ(BALE_OK, bale_reader_new(&r));
	CHECK_EQ(BALE_EINPUT, bale_reader_open(r, NULL, notes));
	CHECK(strstr(bale_reader_errmsg(r), "is not a bale output") != NULL);
	bale_reader_free(r);
	CHECK_EQ(BALE_OK, bale_reader_new(&r));
	CHECK_EQ(BALE_ENOENT, bale_reader_open(r, NULL, missing));
	bale_reader_free(r);
	/* an unknown format is a caller's mistake */
	CHECK_EQ(BALE_OK, bale_reader_new(&r));
	CHECK_EQ(BALE_EINVAL, bale_reader_open(r, "nope", root));
	CHECK_STR("unknown format 'nope' (not built in, or no reader)",
	    bale_reader_errmsg(r));
	bale_reader_free(r);
	free(missing);
	free(notes);
}

static void test_options(void)
{
	struct bale_reader *r = NULL;

	CHECK_EQ(BALE_OK, bale_reader_new(&r));
	CHECK_EQ(BALE_OK, bale_reader_option(r, "no_such_key", "1"));
	CHECK_EQ(BALE_ENOOPT, bale_reader_open(r, "folder", root));
	CHECK_STR("folder: unknown reader option 'no_such_key'",
	    bale_reader_errmsg(r));
	bale_reader_free(r);
	/* meta=0 is a wish every reader may ignore */
	CHECK_EQ(BALE_OK, bale_reader_new(&r));
	CHECK_EQ(BALE_OK, bale_reader_option(r, "meta", "0"));
	CHECK_EQ(BALE_OK, bale_reader_open(r, NULL, root));
	CHECK_EQ(BALE_ESTATE, bale_reader_option(r, "meta", "1"));
	CHECK_EQ(BALE_ESTATE, bale_reader_open(r, NULL, root));
	CHECK_STR("already open", bale_reader_errmsg(r));
	bale_reader_free(r);
}

static void test_folder_samples(void)
{
	struct bale_reader *r = NULL;
	struct bale_blob b;
	uint64_t n = 0;

	CHECK_EQ(BALE_OK, bale_reader_new(&r));
	CHECK_EQ(BALE_OK, bale_reader_open(r, NULL, root));
	CHECK_STR("folder", bale_reader_format(r));
	CHECK_EQ(BALE_OK, bale_reader_count(r, &n));
	CHECK_EQ(3, n);
	CHECK_EQ(BALE_OK, bale_reader_get(r, 2, &b));
	CHECK_EQ(1, b.label);
	CHECK_EQ(5, b.size);
	CHECK(b.size == 5 && memcmp(b.data, "third", 5) == 0);
	CHECK_EQ(BALE_OK, bale_reader_get(r, 0, &b));
	CHECK_EQ(0, b.label);
	CHECK(b.size == 5 && memcmp(b.data, "first", 5) == 0);
	CHECK(bale_reader_get(r, 3, &b) != BALE_OK);
	bale_reader_free(r);
}

int main(void)
{

	if (!mkdtemp(root))
		return 1;
	put_dir("a");
	put_dir("b");
	put_file("a/one.jpg", "first");
	put_file("a/two.png", "secnd");
	put_file("b/three.jpg", "third");
	put_file("b/notes.txt", "not a sample");
	test_calls_before_open();
	test_what_open_picks();
	test_options();
	test_folder_samples();
	check_rmtree(root);
	return CHECK_DONE();
}
