/* test_locs.c - archive locations coded and decoded (walk_locs.c). */
#include "check.h"
#include "source.h"
#include "walk_int.h"

#include <stdint.h>

static const struct bale_source_kind other_kind = { .name = "other" };

static struct bale_walk_member loc_at(size_t i)
{
	struct bale_walk_member m;

	memset(&m, 0, sizeof(m));
	m.kind = i % 7 == 3 ? &other_kind : &bale_source_packed;
	m.fd = 3 + (int)(i % 3);
	m.offset = i % 5 == 0 ? (uint64_t)1 << 40 : i % 11 == 0 ?
	    1234567 + i : 512 * (10000 - i);	/* whole tar blocks or not */
	m.size = i * 977;
	m.csize = i % 4 == 1 ? m.size / 3 : m.size;
	m.method = i % 4 == 1 ? BALE_WALK_DEFLATED : BALE_WALK_STORED;
	m.has_crc = i % 2;
	m.crc = m.has_crc ? (uint32_t)(0xdeadbeefu * i) : 0;
	return m;
}

/* Files before the first member, between members and after the last;
 * offsets that go back and jump far; every optional field. */
static void test_round_trip(void)
{
	struct walk_locs l;
	struct bale_walk_member m, want;
	size_t i, n = 200, bad = 0;

	memset(&l, 0, sizeof(l));
	for (i = 0; i < n; i++) {
		want = loc_at(i);
		CHECK_EQ(0, bale_walk_locs_add(&l, i,
		    i < 5 || i % 9 == 0 || i > 190 ? NULL : &want));
	}
	CHECK(l.norigins <= 6);	/* each archive kept once */
	for (i = 0; i < n + 3; i++) {
		want = loc_at(i);
		if (i < 5 || i % 9 == 0 || i > 190) {
			bad += bale_walk_locs_get(&l, i, &m) != 0;
			continue;
		}
		bad += bale_walk_locs_get(&l, i, &m) != 1;
		bad += m.kind != want.kind || m.fd != want.fd ||
		    m.offset != want.offset || m.size != want.size ||
		    m.csize != want.csize || m.method != want.method ||
		    m.has_crc != want.has_crc || m.crc != want.crc;
	}
	CHECK_EQ(0, bad);
	CHECK(l.text.len < 12 * n);
	bale_walk_locs_release(&l);
}

/* A packed output's samples are numbered: a record is its head and
 * size, with a number skipped (a sample the walk noted) coded as a
 * jump, and sample 1 after a block's start as one more than 0. */
static void test_numbered(void)
{
	struct walk_locs l;
	struct bale_walk_member m, want;
	size_t i, n = 1000, bad = 0;

	memset(&l, 0, sizeof(l));
	memset(&want, 0, sizeof(want));
	want.kind = &bale_source_packed;
	want.fd = -1;
	for (i = 0; i < n; i++) {
		want.offset = i < 500 ? i : i + 7;
		want.size = want.csize = 100 + i % 20;
		CHECK_EQ(0, bale_walk_locs_add(&l, i, &want));
	}
	for (i = 0; i < n; i++) {
		bad += bale_walk_locs_get(&l, i, &m) != 1;
		bad += m.offset != (i < 500 ? i : i + 7) ||
		    m.size != 100 + i % 20 || m.fd != -1 || m.has_crc;
	}
	CHECK_EQ(0, bad);
	/* a block starts afresh: its first number is coded whole */
	CHECK(l.text.len <= 2 * n + 2 * (n / 8) + 8);
	bale_walk_locs_release(&l);
}

/* Large members laid end to end (a tar's: a header block, then the
 * bytes rounded up to a block; an LMDB's overflow pages, a leaf page
 * now and then) code their offset in a byte, whatever their size: it
 * counts from where the member before ended. */
static void test_end_to_end(void)
{
	struct walk_locs l;
	struct bale_walk_member m, want[2][1000];
	uint64_t at[2] = { 512, 8192 };
	size_t i, k, n = 1000, bad = 0, len[2];

	for (k = 0; k < 2; k++) {
		memset(&l, 0, sizeof(l));
		for (i = 0; i < n; i++) {
			memset(&want[k][i], 0, sizeof(want[k][i]));
			want[k][i].kind = &bale_source_packed;
			want[k][i].fd = 3;
			want[k][i].offset = at[k];
			want[k][i].size = want[k][i].csize = 100000 + i * 37;
			CHECK_EQ(0, bale_walk_locs_add(&l, i, &want[k][i]));
			at[k] += k == 0 ?
			    (want[k][i].size + 511) / 512 * 512 + 512 :
			    (want[k][i].size + 4095) / 4096 * 4096 +
			    (i % 5 == 0 ? 4096 : 0);
		}
		for (i = 0; i < n; i++)
			bad += bale_walk_locs_get(&l, i, &m) != 1 ||
			    m.offset != want[k][i].offset ||
			    m.size != want[k][i].size;
		len[k] = l.text.len;
		bale_walk_locs_release(&l);
	}
	CHECK_EQ(0, bad);
	/* head, 3 bytes of size; the offset in 1 byte (tar) or 2 (LMDB),
	 * a block's first whole */
	CHECK(len[0] <= 5 * n + 4 * (n / 8));
	CHECK(len[1] <= 6 * n + 4 * (n / 8));
}

/* A folder's samples: nothing is kept. */
static void test_files_only(void)
{
	struct walk_locs l;
	struct bale_walk_member m;
	size_t i;

	memset(&l, 0, sizeof(l));
	for (i = 0; i < 100; i++)
		CHECK_EQ(0, bale_walk_locs_add(&l, i, NULL));
	CHECK_EQ(0, l.text.len);
	CHECK_EQ(0, bale_walk_locs_get(&l, 50, &m));
	bale_walk_locs_release(&l);
}

int main(void)
{
	test_round_trip();
	test_numbered();
	test_end_to_end();
	test_files_only();
	return CHECK_DONE();
}
