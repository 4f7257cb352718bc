/* test_writer.c - the writer state machine and its messages. */
#include "bale_backend.h"
#include "check.h"

static void test_unknown_format_is_named(void)
{
	struct bale_writer *w = NULL;

	CHECK_EQ(BALE_OK, bale_writer_new(&w));
	CHECK_EQ(BALE_ENOENT, bale_writer_set_backend(w, "nope"));
	CHECK_STR("unknown format 'nope'", bale_writer_errmsg(w));
	bale_writer_free(w);
}

static void test_unknown_option_is_reported(void)
{
	struct bale_writer *w = NULL;

	CHECK_EQ(BALE_OK, bale_writer_new(&w));
	CHECK_EQ(BALE_OK, bale_writer_set_backend(w, "wds"));
	CHECK_EQ(BALE_ENOOPT, bale_writer_option(w, "no_such_key", "1"));
	CHECK_STR("wds: unknown option 'no_such_key'", bale_writer_errmsg(w));
	/* not sticky: a known option still works */
	CHECK_EQ(BALE_OK, bale_writer_option(w, "shard_count", "3"));
	CHECK_EQ(BALE_EINVAL, bale_writer_option(w, "shard_size", "x"));
	bale_writer_free(w);
}

static void test_calls_out_of_order(void)
{
	struct bale_writer *w = NULL;
	struct bale_sample s;

	memset(&s, 0, sizeof(s));
	CHECK_EQ(BALE_OK, bale_writer_new(&w));
	CHECK_EQ(BALE_ESTATE, bale_writer_put(w, &s));
	CHECK_EQ(BALE_OK, bale_writer_set_backend(w, "wds"));
	CHECK_EQ(BALE_ESTATE, bale_writer_put(w, &s));
	CHECK(strstr(bale_writer_errmsg(w), "wrong state") != NULL);
	CHECK_EQ(BALE_ESTATE, bale_writer_finish(w));
	bale_writer_free(w);
}

static void test_open_failure_is_sticky(void)
{
	struct bale_writer *w = NULL;
	struct bale_dataset ds;
	struct bale_sample s;

	memset(&ds, 0, sizeof(ds));
	memset(&s, 0, sizeof(s));
	ds.name = "data";
	CHECK_EQ(BALE_OK, bale_writer_new(&w));
	CHECK_EQ(BALE_OK, bale_writer_set_backend(w, "wds"));
	CHECK_EQ(BALE_OK, bale_writer_open(w, "/nonexistent/dir", &ds));
	s.key = "0000000000";
	s.ext = "jpg";
	s.relpath = "c/x.jpg";
	s.data = (const unsigned char *)"abc";
	s.size = 3;
	CHECK_EQ(BALE_EIO, bale_writer_put(w, &s));
	CHECK(strstr(bale_writer_errmsg(w), "wds: cannot create") != NULL);
	CHECK_EQ(BALE_EIO, bale_writer_finish(w));
	bale_writer_free(w);
	bale_writer_free(NULL);
}

int main(void)
{
	test_unknown_format_is_named();
	test_unknown_option_is_reported();
	test_calls_out_of_order();
	test_open_failure_is_sticky();
	return CHECK_DONE();
}
