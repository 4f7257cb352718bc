/* jsonread.h - find and decode values in JSON text we wrote, or anyone.
 *
 * No tree is built: values are located in the text by skipping over what
 * precedes them, with a depth limit, so hostile input cannot make us
 * recurse without end or read past @end.
 */
#ifndef BALE_JSONREAD_H
#define BALE_JSONREAD_H

#include <stddef.h>
#include <stdint.h>

/** The text of @key's value in the object at [s, end), or NULL (absent,
 *  or the text is not a valid object). Sets *vend past the value. */
const char *bale_jsonr_find(const char *s, const char *end, const char *key,
    const char **vend);

/** The next element of the array at [*cur, end) (start *cur at the '['),
 *  or NULL at its end or on bad input. Sets *vend past it. */
const char *bale_jsonr_next(const char **cur, const char *end,
    const char **vend);

/** Decode the string value at [v, vend) into a new NUL-terminated byte
 *  string; \udcXX becomes byte XX (surrogateescape). NULL if invalid. */
char *bale_jsonr_string(const char *v, const char *vend);

/** The non-negative integer at [v, vend). @return 0 or -1 */
int bale_jsonr_u64(const char *v, const char *vend, uint64_t *out);

#endif
