/* size.c - parse byte sizes given on the command line. */
#include "bale.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int size_shift(char suffix, unsigned *shift)
{
	switch (toupper((unsigned char)suffix)) {
	case '\0': *shift = 0; return 0;
	case 'K': *shift = 10; return 0;
	case 'M': *shift = 20; return 0;
	case 'G': *shift = 30; return 0;
	case 'T': *shift = 40; return 0;
	default: return -1;
	}
}

/* After the K/M/G/T letter, accept "", "i", "B" or "iB". */
static int size_unit_tail(const char *rest)
{
	if (*rest == 'i')
		rest++;
	if (*rest == 'B')
		rest++;
	return *rest == '\0' ? 0 : -1;
}

int bale_parse_size(const char *s, uint64_t *out)
{
	unsigned shift;
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)*s))
		return BALE_EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || size_shift(*end, &shift) != 0)
		return BALE_EINVAL;
	if (*end != '\0' && size_unit_tail(end + 1) != 0)
		return BALE_EINVAL;
	v = ldexp(v, (int)shift);
	if (v >= 18446744073709551615.0 || v != floor(v))
		return BALE_EINVAL;
	*out = (uint64_t)v;
	return BALE_OK;
}
