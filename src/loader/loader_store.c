/* loader_store.c - a crop's last step: rows of RGB bytes into the batch's
 * layout (planes, or rows with channels_last) and type (bytes, or float32
 * normalized with the caller's mean and std).
 *
 * Normalizing is a table of 256 floats a channel, each computed as
 * torchvision's ToTensor and Normalize compute it, in float32 (x / 255,
 * then (x - mean) / std), so the values are bit for bit theirs.
 */
#include "loader_store.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STORE_AVX2 1
#endif

void bale_loader_store_init(struct bale_loader_store *s, int planes,
    const float mean[3], const float std[3])
{
	int c, v;

	memset(s, 0, sizeof(*s));
	s->planes = planes;
	s->normalize = mean && std;
	for (c = 0; s->normalize && c < 3; c++)
		for (v = 0; v < 256; v++)	/* ToTensor, then Normalize */
			s->table[c][v] = ((float)v / 255.0f - mean[c]) / std[c];
}

size_t bale_loader_store_bytes(const struct bale_loader_store *s, int w, int h)
{
	return (size_t)w * (size_t)h * 3 * (s->normalize ? sizeof(float) : 1);
}

int bale_loader_store_direct(const struct bale_loader_store *s)
{
	return !s->planes && !s->normalize;
}

/* Pixels [@i, @n) of @src into planes, a byte at a time. */
static void store_planes_tail(const unsigned char *src, unsigned char *dst,
    size_t i, size_t n)
{
	for (; i < n; i++) {
		dst[i] = src[i * 3];
		dst[n + i] = src[i * 3 + 1];
		dst[2 * n + i] = src[i * 3 + 2];
	}
}

#ifdef STORE_AVX2
/* 16 pixels a step: each of the three 16-byte loads gives the R, G and B
 * bytes it holds, shuffled to their places in the plane's 16 bytes. */
__attribute__((target("avx2")))
static size_t store_planes_avx2(const unsigned char *src, unsigned char *dst,
    size_t n)
{
#define Z -1
	static const signed char pick[3][3][16] = {
		{ { 0, 3, 6, 9, 12, 15, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z },
		  { Z, Z, Z, Z, Z, Z, 2, 5, 8, 11, 14, Z, Z, Z, Z, Z },
		  { Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, 1, 4, 7, 10, 13 } },
		{ { 1, 4, 7, 10, 13, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z },
		  { Z, Z, Z, Z, Z, 0, 3, 6, 9, 12, 15, Z, Z, Z, Z, Z },
		  { Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, 2, 5, 8, 11, 14 } },
		{ { 2, 5, 8, 11, 14, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z },
		  { Z, Z, Z, Z, Z, 1, 4, 7, 10, 13, Z, Z, Z, Z, Z, Z },
		  { Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, 0, 3, 6, 9, 12, 15 } },
	};
#undef Z
	__m128i in[3], out;
	size_t i;
	int c, k;

	for (i = 0; i + 16 <= n; i += 16) {
		for (k = 0; k < 3; k++)
			in[k] = _mm_loadu_si128((const void *)(src + i * 3 +
			    k * 16));
		for (c = 0; c < 3; c++) {
			out = _mm_setzero_si128();
			for (k = 0; k < 3; k++)
				out = _mm_or_si128(out, _mm_shuffle_epi8(in[k],
				    _mm_loadu_si128((const void *)pick[c][k])));
			_mm_storeu_si128((void *)(dst + c * n + i), out);
		}
	}
	return i;
}
#endif

static void store_planes(const unsigned char *src, unsigned char *dst,
    size_t n)
{
	size_t i = 0;

#ifdef STORE_AVX2
	if (__builtin_cpu_supports("avx2"))
		i = store_planes_avx2(src, dst, n);
#endif
	store_planes_tail(src, dst, i, n);
}

static void store_floats(const struct bale_loader_store *s,
    const unsigned char *src, float *dst, size_t n)
{
	size_t i;

	if (s->planes)
		for (i = 0; i < n; i++) {
			dst[i] = s->table[0][src[i * 3]];
			dst[n + i] = s->table[1][src[i * 3 + 1]];
			dst[2 * n + i] = s->table[2][src[i * 3 + 2]];
		}
	else
		for (i = 0; i < n * 3; i++)
			dst[i] = s->table[i % 3][src[i]];
}

void bale_loader_store(const struct bale_loader_store *s,
    const unsigned char *rgb, int w, int h, void *dst)
{
	size_t n = (size_t)w * (size_t)h;

	if (s->normalize)
		store_floats(s, rgb, dst, n);
	else if (s->planes)
		store_planes(rgb, dst, n);
	else
		memcpy(dst, rgb, n * 3);
}
