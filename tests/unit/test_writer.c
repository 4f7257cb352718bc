/* test_writer.c - the writer state machine and its messages, through
 * whichever backends this build has (exit 77 when none writes). */
#include "bale_backend.h"
#include "check.h"

#include <stdio.h>

/* The first backend built in that writes, or NULL. */
static const char *any_writer(void)
{
	const char *const *names = bale_backend_names();
	size_t i;

	for (i = 0; names[i]; i++)
		if (bale_backend_find(names[i])->writer)
			return names[i];
	return NULL;
}

static void test_unknown_format_is_named(void)
{
	struct bale_writer *w = NULL;

	CHECK_EQ(BALE_OK, bale_writer_new(&w));
	CHECK_EQ(BALE_ENOENT, bale_writer_set_backend(w, "nope"));
	CHECK_STR("unknown format 'nope'", bale_writer_errmsg(w));
	bale_writer_free(w);
}

static void test_unknown_option_is_reported(const char *backend)
{
	struct bale_writer *w = NULL;
	char want[128];

	snprintf(want, sizeof(want), "%s: unknown option 'no_such_key'",
	    backend);
	CHECK_EQ(BALE_OK, bale_writer_new(&w));
	CHECK_EQ(BALE_OK, bale_writer_set_backend(w, backend));
	CHECK_EQ(BALE_ENOOPT, bale_writer_option(w, "no_such_key", "1"));
	CHECK_STR(want, bale_writer_errmsg(w));
	bale_writer_free(w);
}

static void test_bad_option_is_not_sticky(void)
{
	struct bale_writer *w = NULL;

	CHECK_EQ(BALE_OK, bale_writer_new(&w));
	CHECK_EQ(BALE_OK, bale_writer_set_backend(w, "wds"));
	CHECK_EQ(BALE_ENOOPT, bale_writer_option(w, "no_such_key", "1"));
	CHECK_EQ(BALE_OK, bale_writer_option(w, "shard_count", "3"));
	CHECK_EQ(BALE_EINVAL, bale_writer_option(w, "shard_size", "x"));
	bale_writer_free(w);
}

static void test_calls_out_of_order(const char *backend)
{
	struct bale_writer *w = NULL;
	struct bale_sample s;

	memset(&s, 0, sizeof(s));
	CHECK_EQ(BALE_OK, bale_writer_new(&w));
	CHECK_EQ(BALE_ESTATE, bale_writer_put(w, &s));
	CHECK_EQ(BALE_OK, bale_writer_set_backend(w, backend));
	CHECK_EQ(BALE_ESTATE, bale_writer_put(w, &s));
	CHECK(strstr(bale_writer_errmsg(w), "wrong state") != NULL);
	CHECK_EQ(BALE_ESTATE, bale_writer_finish(w));
	bale_writer_free(w);
}

/* wds opens its first shard lazily, so the failure shows at put() and
 * stays. */
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
	const char *backend = any_writer();

	if (!backend) {
		printf("skipped: no format that writes is built in\n");
		return 77;
	}
	test_unknown_format_is_named();
	test_unknown_option_is_reported(backend);
	test_calls_out_of_order(backend);
	if (bale_backend_find("wds")) {
		test_bad_option_is_not_sticky();
		test_open_failure_is_sticky();
	} else {
		printf("skipped the wds cases: wds is not built in\n");
	}
	return CHECK_DONE();
}
