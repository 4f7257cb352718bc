/* fuzz_parquet.c - a Parquet footer as a hostile file could hold it:
 * decoded with its pages said to end at a bound the input's first
 * bytes choose. Whatever it decodes to must hold together: every
 * column chunk inside that bound, every leaf's levels within the
 * schema's nesting, the row groups' rows the file's. */
#include "parquet_meta.h"

#include "bale.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(const struct bale_pq_meta *m, uint64_t data_end)
{
	const struct bale_pq_chunk *c;
	int64_t rows = 0;
	size_t g, i;

	for (i = 0; i < m->nleaves; i++)
		if (m->leaves[i].max_def > BALE_PQ_MAX_LEVEL ||
		    m->leaves[i].max_rep > m->leaves[i].max_def ||
		    !m->leaves[i].path)
			abort();
	for (g = 0; g < m->ngroups; g++) {
		rows += m->groups[g].num_rows;
		for (i = 0; i < m->nleaves; i++) {
			c = &m->groups[g].chunks[i];
			if (c->start > data_end || c->size > data_end -
			    c->start)
				abort();
		}
	}
	if (rows != m->num_rows)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bale_pq_meta m;
	struct bale_errbuf err;
	uint64_t data_end;

	if (size < 4)
		return 0;
	data_end = (uint64_t)data[0] << 24 | (uint64_t)data[1] << 16 |
	    (uint64_t)data[2] << 8 | data[3];
	if (bale_pq_meta_decode(&m, data + 4, size - 4, data_end, &err) !=
	    BALE_OK)
		return 0;
	fuzz_check(&m, data_end);
	bale_pq_meta_release(&m);
	return 0;
}
