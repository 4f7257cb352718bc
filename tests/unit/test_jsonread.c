/* test_jsonread.c - values found and decoded in JSON text, and hostile
 * text refused, never over-read. */
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* The text of @key's value in @json, as a new string ("" when absent). */
static char *find(const char *json, const char *key)
{
	const char *vend;
	const char *v = bale_jsonr_find(json, json + strlen(json), key, &vend);

	return v ? bale_strfmt("%.*s", (int)(vend - v), v) : strdup("");
}

static void check_find(const char *json, const char *key, const char *want)
{
	char *got = find(json, key);

	CHECK_STR(want, got);
	free(got);
}

static void test_find(void)
{
	const char *doc = "{\"a\": 1, \"b\": {\"a\": 2, "
	    "\"c\": [1, {\"d\": 3}]}, \"s\": \"x\\\"y\", \"e\": [] }";

	check_find(doc, "a", "1");
	check_find(doc, "b", "{\"a\": 2, \"c\": [1, {\"d\": 3}]}");
	check_find(doc, "s", "\"x\\\"y\"");
	check_find(doc, "e", "[]");
	check_find(doc, "d", "");	/* nested keys are not top level */
	check_find(doc, "zz", "");
	check_find("{\"k\": \"a key: \\\"a\\\"\", \"a\": 5}", "a", "5");
	check_find("[1, 2]", "a", "");		/* not an object */
	check_find("{\"a\" 1}", "a", "");	/* no colon */
	check_find("{\"b\": 1 \"a\": 2}", "a", "");	/* no comma */
	check_find("{\"a\": \"open", "a", "");	/* cut short */
}

static void test_next(void)
{
	const char *arr = "[10, \"x\", {\"a\": [1]}, []]";
	const char *want[] = { "10", "\"x\"", "{\"a\": [1]}", "[]" };
	const char *end = arr + strlen(arr);
	const char *cur = arr;
	const char *vend;
	const char *v;
	size_t n = 0;

	while ((v = bale_jsonr_next(&cur, end, &vend)) && n < 4) {
		CHECK_EQ(strlen(want[n]), vend - v);
		CHECK(strncmp(want[n], v, strlen(want[n])) == 0);
		n++;
	}
	CHECK_EQ(4, n);
	cur = "[]";
	CHECK(bale_jsonr_next(&cur, cur + 2, &vend) == NULL);
}

static void check_string(const char *json, const char *want)
{
	char *got = bale_jsonr_string(json, json + strlen(json));

	if (want)
		CHECK_STR(want, got);
	else
		CHECK(got == NULL);
	free(got);
}

static void test_string(void)
{
	check_string("\"plain\"", "plain");
	check_string("\"a\\nb\\t\\\"c\\\\/\\/\"", "a\nb\t\"c\\//");
	check_string("\"\\u00e9t\\u00e9\"", "\xc3\xa9t\xc3\xa9");
	check_string("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80");	/* pair */
	check_string("\"\\udcff\\udc80\"", "\xff\x80");	/* surrogateescape */
	check_string("\"\\x\"", NULL);		/* no such escape */
	check_string("\"\\u12\"", NULL);	/* short */
	check_string("\"unterminated", NULL);
	check_string("42", NULL);
}

static void check_u64(const char *s, int ok, uint64_t want)
{
	uint64_t got = 0;

	CHECK_EQ(ok ? 0 : -1, bale_jsonr_u64(s, s + strlen(s), &got));
	if (ok)
		CHECK(got == want);
}

static void test_u64(void)
{
	check_u64("0", 1, 0);
	check_u64("1234567890123", 1, 1234567890123ull);
	check_u64("", 0, 0);
	check_u64("-1", 0, 0);
	check_u64("1.5", 0, 0);
	check_u64("1e3", 0, 0);
	check_u64("18446744073709551616", 0, 0);	/* 2^64 */
}

/* Nesting far past the depth limit is refused, not recursed into. */
static void test_deep(void)
{
	size_t depth = 100000;
	char *doc = malloc(2 * depth + 16);
	const char *vend;
	size_t i;
	size_t n = 0;

	if (!doc)
		return;
	n += (size_t)sprintf(doc, "{\"a\": ");
	for (i = 0; i < depth; i++)
		doc[n++] = '[';
	for (i = 0; i < depth; i++)
		doc[n++] = ']';
	doc[n++] = '}';
	CHECK(bale_jsonr_find(doc, doc + n, "a", &vend) == NULL);
	free(doc);
}

int main(void)
{
	test_find();
	test_next();
	test_string();
	test_u64();
	test_deep();
	return CHECK_DONE();
}
