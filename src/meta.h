/* meta.h - the per-sample JSON every format stores beside the bytes. */
#ifndef BALE_META_H
#define BALE_META_H

#include "bale_backend.h"
#include "buf.h"

/** Replace @b's content with {"path","size","crc32","label","class"}. */
void bale_meta_json(struct bale_buf *b, const struct bale_sample *s);

/** Append a JSON array of the class names (null where unnamed). */
void bale_meta_classes(struct bale_buf *b, const struct bale_dataset *ds);

#endif
