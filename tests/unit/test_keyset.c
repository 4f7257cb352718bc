/* test_keyset.c - what an update holds per sample instead of lists:
 * bits (which samples stayed, which were written), the keys before it
 * as bits read back in order, and the spill the files to pack wait in,
 * read back at any offset. */
#include "check.h"
#include "bale_backend_util.h"
#include "bits.h"
#include "keyset.h"

#include <stdint.h>
#include <unistd.h>

static void test_bits(void)
{
	struct bale_bits b = BALE_BITS_INIT;

	CHECK(!bale_bits_get(&b, 0));
	CHECK(!bale_bits_get(&b, 1u << 30));	/* past the end: not set */
	CHECK_EQ(0, bale_bits_set(&b, 5));
	CHECK_EQ(0, bale_bits_set(&b, 100000));	/* grows, zeroed */
	CHECK_EQ(0, bale_bits_set(&b, 5));
	CHECK(bale_bits_get(&b, 5));
	CHECK(bale_bits_get(&b, 100000));
	CHECK(!bale_bits_get(&b, 6));
	CHECK(!bale_bits_get(&b, 99999));
	CHECK(!bale_bits_get(&b, 5000));
	CHECK_EQ(2, bale_bits_count(&b));
	bale_bits_release(&b);
}

/* Keys added in any order (a manifest's path order) come back
 * ascending, across blocks of 4096 and word edges. */
static void test_keyset_order(void)
{
	struct bale_keyset ks = BALE_KEYSET_INIT;
	uint64_t want[3000], i, n = 0, k;

	/* every third key up to 6000, then a run far above */
	for (k = 0; k < 6000; k += 3)
		want[n++] = k;
	for (k = 20000; n < 3000; k++)
		want[n++] = k;
	for (i = n; i-- > 0;)	/* added backwards */
		CHECK_EQ(0, bale_keyset_add(&ks, want[i]));
	CHECK_EQ(1, bale_keyset_add(&ks, 3));	/* twice: said */
	CHECK_EQ(0, bale_keyset_seal(&ks));
	CHECK_EQ(n, ks.count);
	for (i = 0; i < n; i++)
		if (bale_keyset_at(&ks, i) != want[i]) {
			CHECK_EQ(want[i], bale_keyset_at(&ks, i));
			break;
		}
	CHECK(bale_keyset_at(&ks, n) == UINT64_MAX);
	CHECK_EQ(want[n - 1], bale_keyset_last(&ks));
	bale_keyset_release(&ks);
}

static void test_keyset_empty(void)
{
	struct bale_keyset ks = BALE_KEYSET_INIT;

	CHECK_EQ(0, bale_keyset_seal(&ks));
	CHECK_EQ(0, ks.count);
	CHECK(bale_keyset_at(&ks, 0) == UINT64_MAX);
	CHECK_EQ(0, bale_keyset_last(&ks));
	CHECK_EQ(0, bale_keyset_add(&ks, 0));
	CHECK_EQ(0, bale_keyset_seal(&ks));
	CHECK_EQ(0, bale_keyset_at(&ks, 0));
	bale_keyset_release(&ks);
}

/* Past the spill's buffer part goes to its file: a read at any offset
 * gets the bytes appended there, across the two. */
static void test_spill_pread(void)
{
	char dir[] = "/tmp/bale-keyset-XXXXXX";
	struct bale_spill s;
	uint64_t i, v, got[3], n = 300000;	/* 2.4 MB: past the buffer */

	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(0, bale_spill_init(&s, dir));
	for (i = 0; i < n; i++) {
		v = i * 7 + 1;
		bale_spill_add(&s, &v, sizeof(v));
	}
	CHECK_EQ(n * 8, bale_spill_size(&s));
	CHECK(s.written > 0 && s.buf.len > 0);	/* both parts in use */
	for (i = 0; i + 3 <= n; i += 4999) {
		CHECK_EQ(0, bale_spill_pread(&s, got, sizeof(got), i * 8));
		CHECK_EQ(i * 7 + 1, got[0]);
		CHECK_EQ((i + 2) * 7 + 1, got[2]);
	}
	i = s.written / 8 - 1;	/* the last in the file, the first after */
	CHECK_EQ(0, bale_spill_pread(&s, got, 16, i * 8));
	CHECK_EQ(i * 7 + 1, got[0]);
	CHECK_EQ((i + 1) * 7 + 1, got[1]);
	CHECK(bale_spill_pread(&s, got, 16, (n - 1) * 8) != 0);	/* past */
	bale_spill_release(&s);
	CHECK_EQ(0, rmdir(dir));	/* nothing left behind */
}

int main(void)
{
	test_bits();
	test_keyset_order();
	test_keyset_empty();
	test_spill_pread();
	return CHECK_DONE();
}
