/* test_snappy_view.c - Snappy blocks read where they lie: what libsnappy
 * compressed (random bytes: literals; a repeated pattern: copies that
 * overlap themselves; images behind 4-byte lengths, as a Parquet page
 * holds them) reads back byte for byte at any place, in pieces of any
 * size; blocks that a decompressor refuses are refused (a copy reaching
 * back nowhere or before the start, a literal past the end, a length
 * that the runs do not add up to), and a block of too many runs, or one
 * whose copies chain back too far to follow, is told so. */
#include "check.h"
#include "snappy_view.h"

#include <snappy-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t seed = 46;

static unsigned char next_byte(void)
{
	seed = seed * 1103515245u + 12345u;
	return (unsigned char)(seed >> 16);
}

/* @n bytes @in compressed by libsnappy into @v (block in *@block, to
 * free). */
static void compress_into(struct bale_snappy_view *v, const unsigned char *in,
    size_t n, unsigned char **block)
{
	size_t clen = snappy_max_compressed_length(n);

	*block = malloc(clen);
	memset(v, 0, sizeof(*v));
	CHECK(*block != NULL);
	CHECK_EQ(SNAPPY_OK, snappy_compress((const char *)in, n,
	    (char *)*block, &clen));
	CHECK_EQ(0, bale_snappy_view_open(v, *block, clen, clen));
	CHECK_EQ(n, v->size);
}

/* One read: the right bytes, or (@copies: the block has copies) told
 * that following them back costs too much; never wrong bytes. */
static void read_checked(struct bale_snappy_view *v, const unsigned char *in,
    size_t at, size_t len, unsigned char *out, int copies)
{
	int rc = bale_snappy_view_read(v, at, out, len);

	CHECK(rc == 0 || (copies && rc == BALE_SNAPPY_VIEW_MANY));
	if (rc == 0)
		CHECK(memcmp(in + at, out, len) == 0);
}

/* @n bytes read back through a view, whole, in pieces of 1 to 997
 * bytes, and at scattered places, backwards. */
static void round_trip(const unsigned char *in, size_t n, int copies)
{
	unsigned char *block, *out = malloc(n + 1);
	struct bale_snappy_view v;
	size_t at, piece;
	unsigned char b;

	CHECK(out != NULL);
	compress_into(&v, in, n, &block);
	read_checked(&v, in, 0, n, out, copies);
	for (at = 0; at < n; at += piece) {
		piece = 1 + at % 997;
		if (piece > n - at)
			piece = n - at;
		read_checked(&v, in, at, piece, out, copies);
	}
	for (at = n; at > 0; at /= 3)	/* backwards: no hint helps */
		read_checked(&v, in, at - 1, 1, out, copies);
	CHECK(bale_snappy_view_read(&v, n, &b, 1) != 0);
	CHECK_EQ(0, bale_snappy_view_read(&v, n, &b, 0));
	bale_snappy_view_release(&v);
	free(block);
	free(out);
}

/* Values behind 4-byte lengths (@n bytes of them): every length read
 * through the view, as a listing reads them, in full. */
static void lengths_read(const unsigned char *in, size_t n)
{
	struct bale_snappy_view v;
	unsigned char *block, le[4];
	uint32_t len, want;
	size_t at, values = 0;

	compress_into(&v, in, n, &block);
	for (at = 0; at < n; at += 4 + len) {
		CHECK_EQ(0, bale_snappy_view_read(&v, at, le, 4));
		memcpy(&len, le, 4);
		memcpy(&want, in + at, 4);
		CHECK_EQ(want, len);
		values++;
	}
	CHECK(values > 50);
	bale_snappy_view_release(&v);
	free(block);
}

static void compressed_by_libsnappy(void)
{
	size_t n = 300000, i, at;
	unsigned char *in = malloc(n);
	uint32_t len;

	CHECK(in != NULL);
	for (i = 0; i < n; i++)
		in[i] = next_byte();
	round_trip(in, n, 0);
	for (i = 0; i < n; i++)
		in[i] = "abc"[i % 3];
	round_trip(in, n, 1);
	/* images behind their lengths, each starting alike */
	for (at = 0; at + 4 + 5000 <= n; at += 4 + len) {
		len = 2000 + next_byte() * 10;
		memcpy(in + at, &len, 4);
		for (i = 0; i < len; i++)
			in[at + 4 + i] = i < 20 ?
			    "\xff\xd8\xff\xe0JFIF"[i % 8] : next_byte();
	}
	round_trip(in, at, 1);
	lengths_read(in, at);
	round_trip(in, 1, 0);
	free(in);
}

/* A block made by hand, opened with room for @max runs. */
static int open_made(const char *block, size_t n, size_t max)
{
	struct bale_snappy_view v;
	int rc;

	memset(&v, 0, sizeof(v));
	rc = bale_snappy_view_open(&v, block, n, max);
	bale_snappy_view_release(&v);
	return rc;
}

static void refused(void)
{
	/* 5 bytes: literal "ab" (tag: length - 1 << 2), then a copy of 3
	 * reaching back 2 (tag: length - 1 << 2 | 2, two bytes of distance) */
	CHECK_EQ(0, open_made("\x05\x04" "ab" "\x0a\x02\x00", 7, 16));
	/* the copy reaching back 0, or 3 (before the start) */
	CHECK_EQ(BALE_SNAPPY_VIEW_BAD, open_made("\x05\x04" "ab" "\x0a\x00\x00",
	    7, 16));
	CHECK_EQ(BALE_SNAPPY_VIEW_BAD, open_made("\x05\x04" "ab" "\x0a\x03\x00",
	    7, 16));
	/* a literal past the end; a length the runs do not reach, or pass */
	CHECK_EQ(BALE_SNAPPY_VIEW_BAD, open_made("\x05\x10" "ab", 4, 16));
	CHECK_EQ(BALE_SNAPPY_VIEW_BAD, open_made("\x06\x04" "ab" "\x0a\x02\x00",
	    7, 16));
	CHECK_EQ(BALE_SNAPPY_VIEW_BAD, open_made("\x04\x04" "ab" "\x0a\x02\x00",
	    7, 16));
	/* a tag cut short; a preamble over 2^32 */
	CHECK_EQ(BALE_SNAPPY_VIEW_BAD, open_made("\x05\x04" "ab" "\x0a\x02", 6,
	    16));
	CHECK_EQ(BALE_SNAPPY_VIEW_BAD, open_made("\xff\xff\xff\xff\x7f", 5,
	    16));
	/* more runs than allowed */
	CHECK_EQ(BALE_SNAPPY_VIEW_MANY, open_made("\x05\x04" "ab"
	    "\x0a\x02\x00", 7, 1));
}

/* Copies each reaching back to the one before: read whole, each copy
 * takes from what the read wrote; read a byte at a time, each byte is
 * followed back the chain, and the budget stops that. */
static void chain_too_long(void)
{
	size_t runs = 4096, i, n = 8 + 66 + 3 * runs;
	unsigned char *block = malloc(n), *out = malloc(64 * runs);
	struct bale_snappy_view v;
	uint64_t size = 64 * (uint64_t)runs;
	size_t at = 0;

	CHECK(block && out);
	while (size >= 0x80) {	/* the preamble */
		block[at++] = (unsigned char)(size | 0x80);
		size >>= 7;
	}
	block[at++] = (unsigned char)size;
	block[at++] = 60 << 2;	/* a literal of 64 bytes (its length - 1
				 * in the byte after) */
	block[at++] = 63;
	for (i = 0; i < 64; i++)
		block[at++] = (unsigned char)i;
	for (i = 1; i < runs; i++) {	/* copies of 64 reaching back 64 */
		block[at++] = (63 << 2) | 2;
		block[at++] = 64;
		block[at++] = 0;
	}
	memset(&v, 0, sizeof(v));
	CHECK_EQ(0, bale_snappy_view_open(&v, block, at, runs));
	CHECK_EQ(63, (bale_snappy_view_read(&v, 64 * 5 + 63, out, 1), out[0]));
	/* read whole, each copy takes from what the read wrote */
	CHECK_EQ(0, bale_snappy_view_read(&v, 0, out, (size_t)v.size));
	for (i = 0; i < 64 * runs; i++)
		CHECK_EQ(i % 64, out[i]);
	/* a byte at a time from the end, each followed back its run's
	 * number of steps: the budget runs out */
	for (i = runs; i > 0; i--)
		if (bale_snappy_view_read(&v, 64 * (i - 1) + 7, out, 1) != 0)
			break;
	CHECK(i > 0);
	CHECK_EQ(BALE_SNAPPY_VIEW_MANY, bale_snappy_view_read(&v, 64 * runs - 1,
	    out, 1));
	bale_snappy_view_release(&v);
	free(block);
	free(out);
}

int main(void)
{
	compressed_by_libsnappy();
	refused();
	chain_too_long();
	return check_failures ? 1 : 0;
}
