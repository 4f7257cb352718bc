/* meta.c - per-sample and per-dataset JSON shared by the backends. */
#include "meta.h"

#include "json.h"

#include <inttypes.h>
#include <stdio.h>

void bale_meta_json(struct bale_buf *b, const struct bale_sample *s)
{
	char crc[16];

	snprintf(crc, sizeof(crc), "%08" PRIx32, s->crc32);
	bale_buf_reset(b);
	bale_buf_puts(b, "{");
	bale_json_kv_str(b, "path", s->relpath, 1);
	bale_json_kv_u64(b, "size", s->size, 0);
	bale_json_kv_str(b, "crc32", crc, 0);
	bale_json_key(b, "label", 0);
	bale_buf_printf(b, "%" PRId64, s->label);
	bale_json_kv_str(b, "class", s->label_name, 0);
	bale_buf_puts(b, "}");
}

void bale_meta_classes(struct bale_buf *b, const struct bale_dataset *ds)
{
	size_t i;

	bale_buf_puts(b, "[");
	for (i = 0; i < ds->nclasses; i++) {
		if (i)
			bale_buf_puts(b, ",");
		bale_json_str(b, ds->classes ? ds->classes[i] : NULL);
	}
	bale_buf_puts(b, "]");
}
