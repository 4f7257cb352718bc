/* fuzz_wds.c - the WebDataset reader on a hostile output: the input is
 * split into a shard list, one .idx and one .tar, written to a scratch
 * folder, then opened, counted and read through.
 *
 * Input: 2-byte little-endian length of the shard list, the list, 2-byte
 * length of the index, the index, then the tar. */
#include "bale.h"
#include "check.h"
#include "scratch.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_MAX_READS 256	/* samples read per input */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Take a part of @len bytes prefixed by its 2-byte length. */
static const uint8_t *fuzz_part(const uint8_t **p, size_t *left, size_t *len)
{
	const uint8_t *part;

	if (*left < 2)
		return NULL;
	*len = (size_t)(*p)[0] | (size_t)(*p)[1] << 8;
	*p += 2;
	*left -= 2;
	if (*len > *left)
		return NULL;
	part = *p;
	*p += *len;
	*left -= *len;
	return part;
}

static void fuzz_read(const char *list)
{
	struct bale_reader *r = NULL;
	struct bale_blob b;
	uint64_t n, i;

	if (bale_reader_new(&r) != BALE_OK)
		abort();
	if (bale_reader_open(r, "wds", list) == BALE_OK &&
	    bale_reader_count(r, &n) == BALE_OK)
		for (i = 0; i < n && i < FUZZ_MAX_READS; i++)
			if (bale_reader_get(r, i, &b) == BALE_OK)
				fuzz_check_blob(&b);
	bale_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *json, *idx;
	size_t json_len, idx_len;
	char list[128];

	json = fuzz_part(&data, &size, &json_len);
	idx = json ? fuzz_part(&data, &size, &idx_len) : NULL;
	if (!idx)
		return 0;
	fuzz_scratch_put("f-shards.json", json, json_len);
	fuzz_scratch_put("f-000000.idx", idx, idx_len);
	fuzz_scratch_put("f-000000.tar", data, size);
	snprintf(list, sizeof(list), "%s", fuzz_scratch_path("f-shards.json"));
	fuzz_read(list);
	return 0;
}
