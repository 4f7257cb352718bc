/* test_xsort.c - records sorted past memory come back all, in order,
 * equal ones in the order they were added, bytes intact; in one chunk
 * or in many runs. */
#include "check.h"
#include "xsort.h"

#include <stdint.h>

/* Record i: key (i * 7919) % keys as a string, then i, so equal keys
 * show whether their order held. */
static size_t make_record(char *buf, size_t i, size_t keys)
{
	int n = snprintf(buf, 64, "k%05zu", (i * 7919) % keys);

	bale_xsort_put_u64be((unsigned char *)buf + n + 1, i);
	return (size_t)n + 1 + 8;
}

static void check_sorted(size_t n, size_t keys, size_t chunk)
{
	struct bale_xsort x;
	char buf[64];
	char prev[64] = "";
	const void *p;
	size_t len, got = 0, len_bad = 0, order_bad = 0;
	uint64_t prev_i = 0, i;
	int r;

	CHECK_EQ(0, bale_xsort_init(&x, "/tmp", bale_xsort_by_string, chunk));
	for (i = 0; i < n; i++)
		CHECK_EQ(0, bale_xsort_add(&x, buf, make_record(buf, i, keys)));
	CHECK_EQ(0, bale_xsort_sort(&x));
	if (chunk)
		CHECK(x.nruns > 2);	/* the merge was what ran */
	while ((r = bale_xsort_next(&x, &p, &len)) == 1) {
		i = bale_xsort_get_u64be((const unsigned char *)p +
		    strlen(p) + 1);
		len_bad += len != make_record(buf, i, keys) ||
		    memcmp(buf, p, len) != 0;
		if (got && (strcmp(prev, p) > 0 ||
		    (strcmp(prev, p) == 0 && prev_i >= i)))
			order_bad++;
		snprintf(prev, sizeof(prev), "%s", (const char *)p);
		prev_i = i;
		got++;
	}
	CHECK_EQ(0, r);
	CHECK_EQ(n, got);
	CHECK_EQ(0, len_bad);
	CHECK_EQ(0, order_bad);
	CHECK_EQ(0, bale_xsort_next(&x, &p, &len));	/* stays at the end */
	bale_xsort_release(&x);
}

static void test_one_chunk(void)
{
	check_sorted(1000, 97, 0);
}

static void test_many_runs(void)
{
	/* 100 000 records of 15 bytes in runs of about 4 KiB: some 400
	 * runs, each key in many of them */
	check_sorted(100000, 1009, 4096);
}

static void test_empty(void)
{
	struct bale_xsort x;
	const void *p;
	size_t len;

	CHECK_EQ(0, bale_xsort_init(&x, "/tmp", bale_xsort_by_u64be, 0));
	CHECK_EQ(0, bale_xsort_sort(&x));
	CHECK_EQ(0, bale_xsort_next(&x, &p, &len));
	bale_xsort_release(&x);
}

static void test_by_ordinal(void)
{
	struct bale_xsort x;
	unsigned char rec[9];
	const void *p;
	size_t len;
	uint64_t want = 0;
	uint64_t i;

	CHECK_EQ(0, bale_xsort_init(&x, "/tmp", bale_xsort_by_u64be, 64));
	for (i = 0; i < 300; i++) {	/* 0, 299, 1, 298, ...: all bytes */
		bale_xsort_put_u64be(rec, (i % 2 ? 299 - i / 2 : i / 2) << 32);
		rec[8] = (unsigned char)i;
		CHECK_EQ(0, bale_xsort_add(&x, rec, sizeof(rec)));
	}
	CHECK_EQ(0, bale_xsort_sort(&x));
	while (bale_xsort_next(&x, &p, &len) == 1) {
		CHECK_EQ(9, len);
		CHECK_EQ(want << 32, bale_xsort_get_u64be(p));
		want++;
	}
	CHECK_EQ(300, want);
	bale_xsort_release(&x);
}

int main(void)
{
	test_one_chunk();
	test_many_runs();
	test_empty();
	test_by_ordinal();
	return CHECK_DONE();
}
