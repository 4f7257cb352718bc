/* resize16.c - the loader's resampling passes with 16-bit weights.
 *
 * Output line y is the weighted sum of @count input lines. With weights
 * of at most 15 bits, two lines are summed per multiply: their bytes are
 * interleaved as 16-bit pairs and multiplied by a pair of weights with
 * one madd, eight 32-bit sums an AVX2 instruction (Pillow-SIMD's way).
 * The portable loops compute exactly the same integers, so a machine
 * without AVX2 gives byte-identical batches.
 */
#include "resize16.h"

#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LINES16_AVX2 1
#endif

static unsigned char lines16_clip(int32_t acc, int bits)
{
	acc >>= bits;
	return (unsigned char)(acc < 0 ? 0 : acc > 255 ? 255 : acc);
}

/* Bytes [@x, @len) of one output line, one at a time. */
static void lines16_tail(const unsigned char *const *src, const int16_t *w,
    int count, int bits, size_t x, size_t len, unsigned char *dst)
{
	int32_t acc;
	int k;

	for (; x < len; x++) {
		acc = (int32_t)1 << (bits - 1);
		for (k = 0; k < count; k++)
			acc += (int32_t)w[k] * src[k][x];
		dst[x] = lines16_clip(acc, bits);
	}
}

#ifdef LINES16_AVX2
/* Four vectors of 32-bit sums for 32 bytes of two lines, a pair of
 * weights @wp; @b may be a line of zeros' stand-in (the same as @a with
 * a zero weight). Byte i of the 32 lands in sum vector (i % 16) / 4
 * (lanes of 128 bits keep their halves), which the packs undo. */
__attribute__((target("avx2")))
static void lines16_pair(__m256i a, __m256i b, __m256i wp, __m256i acc[4])
{
	const __m256i zero = _mm256_setzero_si256();
	__m256i lo = _mm256_unpacklo_epi8(a, b);
	__m256i hi = _mm256_unpackhi_epi8(a, b);

	acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(
	    _mm256_unpacklo_epi8(lo, zero), wp));
	acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(
	    _mm256_unpackhi_epi8(lo, zero), wp));
	acc[2] = _mm256_add_epi32(acc[2], _mm256_madd_epi16(
	    _mm256_unpacklo_epi8(hi, zero), wp));
	acc[3] = _mm256_add_epi32(acc[3], _mm256_madd_epi16(
	    _mm256_unpackhi_epi8(hi, zero), wp));
}

static int32_t lines16_wpair(int16_t w0, int16_t w1)
{
	return (int32_t)((uint32_t)(uint16_t)w0 |
	    ((uint32_t)(uint16_t)w1 << 16));
}

__attribute__((target("avx2")))
static size_t lines16_avx2(const unsigned char *const *src, const int16_t *w,
    int count, int bits, size_t len, unsigned char *dst)
{
	const __m256i round = _mm256_set1_epi32((int32_t)1 << (bits - 1));
	const __m128i shift = _mm_cvtsi32_si128(bits);
	__m256i acc[4], a, b, p01, p23;
	size_t x;
	int k;

	for (x = 0; x + 32 <= len; x += 32) {
		acc[0] = acc[1] = acc[2] = acc[3] = round;
		for (k = 0; k + 1 < count; k += 2) {
			a = _mm256_loadu_si256((const void *)(src[k] + x));
			b = _mm256_loadu_si256((const void *)(src[k + 1] + x));
			lines16_pair(a, b, _mm256_set1_epi32(
			    lines16_wpair(w[k], w[k + 1])), acc);
		}
		if (k < count) {
			a = _mm256_loadu_si256((const void *)(src[k] + x));
			lines16_pair(a, a, _mm256_set1_epi32(
			    lines16_wpair(w[k], 0)), acc);
		}
		/* saturating packs clamp to 0..255, as lines16_clip */
		p01 = _mm256_packs_epi32(_mm256_sra_epi32(acc[0], shift),
		    _mm256_sra_epi32(acc[1], shift));
		p23 = _mm256_packs_epi32(_mm256_sra_epi32(acc[2], shift),
		    _mm256_sra_epi32(acc[3], shift));
		_mm256_storeu_si256((void *)(dst + x),
		    _mm256_packus_epi16(p01, p23));
	}
	return x;
}

/* The last bytes of a line of at least 32: the last 32 done again
 * (they come out the same), in place of a byte-at-a-time tail. */
__attribute__((target("avx2")))
static size_t lines16_avx2_all(const unsigned char *const *src,
    const int16_t *w, int count, int bits, size_t len, unsigned char *dst)
{
	const unsigned char *end[RESIZE16_TAPS];
	size_t x = lines16_avx2(src, w, count, bits, len, dst);
	int k;

	if (x == len || len < 32)
		return x;
	for (k = 0; k < count; k++)
		end[k] = src[k] + len - 32;
	lines16_avx2(end, w, count, bits, 32, dst + len - 32);
	return len;
}
#endif

void bale_resize_lines16(const unsigned char *const *src, const int16_t *w,
    int count, int bits, size_t len, unsigned char *dst)
{
	size_t x = 0;

#ifdef LINES16_AVX2
	if (__builtin_cpu_supports("avx2"))
		x = lines16_avx2_all(src, w, count, bits, len, dst);
#endif
	lines16_tail(src, w, count, bits, x, len, dst);
}
