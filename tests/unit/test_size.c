/* test_size.c - sizes on the command line. */
#include "bale.h"
#include "check.h"

static uint64_t size_of(const char *s)
{
	uint64_t v = 12345;

	CHECK_EQ(BALE_OK, bale_parse_size(s, &v));
	return v;
}

static void test_units(void)
{
	CHECK_EQ(0, size_of("0"));
	CHECK_EQ(1000, size_of("1000"));
	CHECK_EQ(65536, size_of("64K"));
	CHECK_EQ(65536, size_of("64k"));
	CHECK_EQ(3 << 20, size_of("3M"));
	CHECK_EQ(3 << 20, size_of("3MiB"));
	CHECK_EQ(3 << 20, size_of("3MB"));
	CHECK_EQ(1610612736, size_of("1.5G"));
	CHECK_EQ(1ULL << 40, size_of("1T"));
}

static void test_rejects(void)
{
	static const char *const bad[] = {
		"", "-1", "K", "1Q", "1KX", "0.3K", "1e30T", "1 K", NULL,
	};
	uint64_t v;
	size_t i;

	for (i = 0; bad[i]; i++) {
		if (bale_parse_size(bad[i], &v) != BALE_EINVAL) {
			fprintf(stderr, "accepted '%s'\n", bad[i]);
			check_failures++;
		}
	}
}

int main(void)
{
	test_units();
	test_rejects();
	return CHECK_DONE();
}
