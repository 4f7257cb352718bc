/* meta.h - the per-sample JSON every format stores beside the bytes. */
#ifndef BALE_META_H
#define BALE_META_H

#include "bale_backend.h"
#include "buf.h"

/** Replace @b's content with {"path","size","crc32","label","class"}. */
void bale_meta_json(struct bale_buf *b, const struct bale_sample *s);

/** Append a JSON array of the class names (null where unnamed). */
void bale_meta_classes(struct bale_buf *b, const struct bale_dataset *ds);

/** Parse a stored label: the decimal text of a .cls member or value,
 *  trailing newline or spaces allowed (as other WebDataset writers do).
 *  @return 0, or -1 if it is not such a number of 64 bits */
int bale_meta_label(const void *text, size_t n, int64_t *label);

/** Does the "label" in sample JSON @json agree with @label, read from
 *  the label record (.cls)? 0 when it is a number that differs (*stored
 *  is that number), else 1 (also when there is none, or it is not a
 *  number, as other writers' JSON may have). A changed label digit
 *  passes every checksum: this is what catches it. */
int bale_meta_label_agrees(const char *json, size_t n, int64_t label,
    int64_t *stored);

/** Read "path" and "crc32" back from such JSON: *path becomes a new
 *  string or NULL; *has_crc is set when a valid crc32 was found. */
void bale_meta_parse(const char *json, size_t n, char **path,
    uint32_t *crc, int *has_crc);

#endif
