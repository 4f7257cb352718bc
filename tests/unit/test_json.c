/* test_json.c - JSON strings survive any file name bytes. */
#include "check.h"
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <inttypes.h>

static void check_escape(const char *in, size_t n, const char *want)
{
	struct bale_buf b = BALE_BUF_INIT;

	bale_json_strn(&b, in, n);
	CHECK_STR(want, b.data);
	bale_buf_release(&b);
}

static void test_plain_and_quotes(void)
{
	check_escape("cat/a b.jpg", 11, "\"cat/a b.jpg\"");
	check_escape("q\"\\", 3, "\"q\\\"\\\\\"");
	check_escape("\n\t\x01", 3, "\"\\n\\t\\u0001\"");
}

static void test_utf8_is_kept(void)
{
	check_escape("\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80", 9,
	    "\"\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\"");
}

/* Invalid bytes become \udcXX, so Python's os.fsencode restores them. */
static void test_invalid_bytes_use_surrogateescape(void)
{
	check_escape("a\xff" "b", 3, "\"a\\udcffb\"");
	check_escape("\xc3", 1, "\"\\udcc3\"");		/* truncated */
	check_escape("\xc0\xaf", 2, "\"\\udcc0\\udcaf\"");	/* overlong */
	check_escape("\xed\xa0\x80", 3, "\"\\udced\\udca0\\udc80\"");
}

static void test_key_values(void)
{
	struct bale_buf b = BALE_BUF_INIT;

	bale_buf_puts(&b, "{");
	bale_json_kv_str(&b, "path", "x", 1);
	bale_json_kv_u64(&b, "size", 18446744073709551615ULL, 0);
	bale_json_kv_str(&b, "class", NULL, 0);
	bale_buf_puts(&b, "}");
	CHECK_STR("{\"path\":\"x\",\"size\":18446744073709551615,"
	    "\"class\":null}", b.data);
	bale_buf_release(&b);
}

/* The decimal formatters against printf, at the edges. */
static void test_numbers(void)
{
	static const uint64_t u[] = { 0, 7, 10, 99, 1000000, 4294967296ULL,
	    UINT64_MAX };
	static const int64_t s[] = { 0, -1, 42, INT64_MIN, INT64_MAX };
	struct bale_buf b = BALE_BUF_INIT;
	char want[48], out[BALE_FMT_MAX];
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		bale_buf_reset(&b);
		bale_buf_u64(&b, u[i], 10);
		snprintf(want, sizeof(want), "%010" PRIu64, u[i]);
		CHECK_STR(want, b.data);
		CHECK_EQ(strlen(want), bale_fmt_u64(out, u[i], 10));
		CHECK_STR(want, out);
		bale_buf_reset(&b);
		bale_buf_u64(&b, u[i], 0);
		snprintf(want, sizeof(want), "%" PRIu64, u[i]);
		CHECK_STR(want, b.data);
	}
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		bale_buf_reset(&b);
		bale_buf_i64(&b, s[i]);
		snprintf(want, sizeof(want), "%" PRId64, s[i]);
		CHECK_STR(want, b.data);
		CHECK_EQ(strlen(want), bale_fmt_i64(out, s[i]));
		CHECK_STR(want, out);
	}
	bale_buf_release(&b);
}

int main(void)
{
	test_plain_and_quotes();
	test_utf8_is_kept();
	test_invalid_bytes_use_surrogateescape();
	test_key_values();
	test_numbers();
	return CHECK_DONE();
}
