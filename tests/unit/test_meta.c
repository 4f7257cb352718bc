/* test_meta.c - stored labels are read back exactly, or refused. */
#include "check.h"
#include "bale_backend.h"
#include "bale_backend_util.h"

/* @text's label, or -999 when it is refused */
static long long label_of(const char *text)
{
	int64_t label = 12345;

	if (bale_meta_label(text, strlen(text), &label) != 0)
		return -999;
	return label;
}

static void test_labels_bale_writes(void)
{
	CHECK_EQ(0, label_of("0"));
	CHECK_EQ(7, label_of("7"));
	CHECK_EQ(-1, label_of("-1"));
	CHECK_EQ(INT64_MAX, label_of("9223372036854775807"));
}

static void test_other_writers_newline(void)
{
	CHECK_EQ(3, label_of("3\n"));
	CHECK_EQ(3, label_of("3\r\n"));
}

static void test_not_numbers_are_refused(void)
{
	CHECK_EQ(-999, label_of(""));
	CHECK_EQ(-999, label_of("three"));
	CHECK_EQ(-999, label_of("3x"));
	CHECK_EQ(-999, label_of(" 3"));
	CHECK_EQ(-999, label_of("-"));
	CHECK_EQ(-999, label_of("9223372036854775808"));
	CHECK_EQ(-999, label_of("12345678901234567890123"));
}

static void test_label_agrees_with_json(void)
{
	const char *json = "{\"path\":\"a/b.jpg\",\"label\":3,"
	    "\"class\":\"b\"}";
	int64_t stored = 0;

	CHECK_EQ(1, bale_meta_label_agrees(json, strlen(json), 3, &stored));
	CHECK_EQ(0, bale_meta_label_agrees(json, strlen(json), 2, &stored));
	CHECK_EQ(3, stored);
	CHECK_EQ(1, bale_meta_label_agrees("{}", 2, 2, &stored));
	CHECK_EQ(1, bale_meta_label_agrees("{\"label\":null}", 14, 2,
	    &stored));
	CHECK_EQ(1, bale_meta_label_agrees("{\"label\":\"cat\"}", 15, 2,
	    &stored));
}

int main(void)
{
	test_labels_bale_writes();
	test_other_writers_newline();
	test_not_numbers_are_refused();
	test_label_agrees_with_json();
	return CHECK_DONE();
}
