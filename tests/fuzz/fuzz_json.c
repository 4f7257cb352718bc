/* fuzz_json.c - the JSON reader on any text: look keys up, walk arrays,
 * decode strings and numbers, as the readers of shard lists and sample
 * metadata do. */
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_value(const char *v, const char *vend)
{
	uint64_t n;
	char *str = bale_jsonr_string(v, vend);

	free(str);
	(void)bale_jsonr_u64(v, vend, &n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "shards", "path", "count",
	    "classes", "label", "crc32" };
	const char *s = (const char *)data;
	const char *end = s + size;
	const char *v, *vend, *cur, *e, *eend;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = bale_jsonr_find(s, end, keys[i], &vend);
		if (!v)
			continue;
		if (v < s || vend > end || v > vend)
			abort();
		fuzz_value(v, vend);
		cur = v;
		while ((e = bale_jsonr_next(&cur, vend, &eend)) != NULL) {
			if (e < v || eend > vend)
				abort();
			fuzz_value(e, eend);
		}
	}
	return 0;
}
