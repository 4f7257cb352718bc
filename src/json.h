/* json.h - write JSON values into a bale_buf.
 *
 * Strings are raw bytes (file names need not be UTF-8). Valid UTF-8 is
 * copied; each byte of an invalid sequence becomes \udcXX, the convention
 * of Python's "surrogateescape", so os.fsencode(json.loads(...)) gives the
 * original bytes back.
 */
#ifndef BALE_JSON_H
#define BALE_JSON_H

#include "buf.h"

#include <stddef.h>
#include <stdint.h>

void bale_json_str(struct bale_buf *b, const char *s);
void bale_json_strn(struct bale_buf *b, const char *s, size_t n);
/** "key": with a leading comma unless @first. */
void bale_json_key(struct bale_buf *b, const char *key, int first);
void bale_json_kv_str(struct bale_buf *b, const char *key, const char *v,
    int first);
void bale_json_kv_u64(struct bale_buf *b, const char *key, uint64_t v,
    int first);

#endif
