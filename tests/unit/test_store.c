/* test_store.c - a crop into the batch: planes, rows, floats. */
#include "check.h"
#include "loader_store.h"

#include <stdlib.h>
#include <string.h>

/* Planes and normalized floats hold each pixel's channels where the
 * batch's layout says, for sizes with and without a partial last step
 * of the vector loop. */
static void test_layouts(void)
{
	static const int sides[][2] = { { 16, 16 }, { 7, 5 }, { 33, 3 } };
	static const float mean[3] = { 0.5f, 0.25f, 0 };
	static const float std[3] = { 0.5f, 2, 1 };
	struct bale_loader_store s;
	unsigned char rgb[33 * 16 * 3], planes[sizeof(rgb)];
	float f[sizeof(rgb)];
	size_t i, n;
	int k, c, bad = 0;

	for (i = 0; i < sizeof(rgb); i++)
		rgb[i] = (unsigned char)(i * 37 + 11);
	for (k = 0; k < 3; k++) {
		n = (size_t)sides[k][0] * sides[k][1];
		bale_loader_store_init(&s, 1, NULL, NULL);
		CHECK_EQ(n * 3, bale_loader_store_bytes(&s, sides[k][0],
		    sides[k][1]));
		bale_loader_store(&s, rgb, sides[k][0], sides[k][1], planes);
		bale_loader_store_init(&s, 1, mean, std);
		CHECK_EQ(n * 12, bale_loader_store_bytes(&s, sides[k][0],
		    sides[k][1]));
		bale_loader_store(&s, rgb, sides[k][0], sides[k][1], f);
		for (i = 0; i < n; i++)
			for (c = 0; c < 3; c++) {
				bad += planes[c * n + i] != rgb[i * 3 + c];
				bad += f[c * n + i] != ((float)rgb[i * 3 + c] /
				    255.0f - mean[c]) / std[c];
			}
		bale_loader_store_init(&s, 0, mean, std);
		bale_loader_store(&s, rgb, sides[k][0], sides[k][1], f);
		for (i = 0; i < n * 3; i++)
			bad += f[i] != ((float)rgb[i] / 255.0f - mean[i % 3]) /
			    std[i % 3];
	}
	CHECK_EQ(0, bad);
}

/* Rows of bytes (channels_last, no normalizing) are the crop as it is:
 * the loader then crops straight into the batch ("direct"), and only
 * that layout may; stored, they are the same bytes. (The loader's own
 * tests compare its channels_last batches with its planes.) */
static void test_direct_rows(void)
{
	static const float mean[3] = { 0, 0, 0 };
	static const float std[3] = { 1, 1, 1 };
	struct bale_loader_store s;
	unsigned char rgb[7 * 5 * 3], out[sizeof(rgb)];
	size_t i;

	for (i = 0; i < sizeof(rgb); i++)
		rgb[i] = (unsigned char)(i * 91 + 3);
	bale_loader_store_init(&s, 0, NULL, NULL);
	CHECK(bale_loader_store_direct(&s));
	CHECK_EQ(sizeof(rgb), bale_loader_store_bytes(&s, 7, 5));
	memset(out, 0, sizeof(out));
	bale_loader_store(&s, rgb, 7, 5, out);
	CHECK(memcmp(out, rgb, sizeof(rgb)) == 0);
	bale_loader_store_init(&s, 1, NULL, NULL);
	CHECK(!bale_loader_store_direct(&s));
	bale_loader_store_init(&s, 0, mean, std);
	CHECK(!bale_loader_store_direct(&s));
}

int main(void)
{
	test_layouts();
	test_direct_rows();
	return CHECK_DONE();
}
