/* use_bale.c - a program built against the installed bale, as a user
 * builds one: `cc use_bale.c $(pkg-config --cflags --libs bale)`.
 * Prints the version and the formats; checks a known CRC-32. */
#include <bale.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
	const char *const *names = bale_backend_names();
	size_t i;

	if (bale_crc32("123456789", 9) != 0xcbf43926u) {
		fprintf(stderr, "use_bale: wrong crc32\n");
		return 1;
	}
	printf("%s", bale_version());
	for (i = 0; names[i]; i++)
		printf(" %s", names[i]);
	printf("\n");
	return 0;
}
