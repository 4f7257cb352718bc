/* thrift_compact.c - Thrift's compact protocol, read with limits
 * (thrift_compact.h). */
#include "thrift_compact.h"

#include <string.h>

void bale_thrift_init(struct bale_thrift *t, const void *p, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->end = t->p + n;
	t->depth = -1;		/* not in a struct yet */
}

int bale_thrift_fail(struct bale_thrift *t, const char *why)
{
	if (!t->why)
		t->why = why;
	t->p = t->end;
	return -1;
}

size_t bale_thrift_used(const struct bale_thrift *t, const void *start)
{
	return (size_t)(t->p - (const unsigned char *)start);
}

static int thrift_byte(struct bale_thrift *t, unsigned char *b)
{
	if (t->why)
		return -1;
	if (t->p >= t->end)
		return bale_thrift_fail(t, "thrift data cut short");
	*b = *t->p++;
	return 0;
}

/* An unsigned varint of at most 64 bits. */
static int thrift_varint(struct bale_thrift *t, uint64_t *v)
{
	unsigned char b;
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 64; shift += 7) {
		if (thrift_byte(t, &b) != 0)
			return -1;
		if (shift == 63 && (b & 0x7e))
			return bale_thrift_fail(t, "thrift varint over 64 "
			    "bits");
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return bale_thrift_fail(t, "thrift varint over 64 bits");
}

static int64_t thrift_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int bale_thrift_enter(struct bale_thrift *t)
{
	if (t->why)
		return -1;
	if (t->depth + 1 > BALE_THRIFT_MAX_DEPTH)
		return bale_thrift_fail(t, "thrift structs nested too deep");
	t->last[++t->depth] = 0;
	return 0;
}

int bale_thrift_field(struct bale_thrift *t, int16_t *id, uint8_t *type)
{
	unsigned char b;
	uint64_t v;
	int64_t wide;

	if (t->depth < 0)
		return bale_thrift_fail(t, "thrift field outside a struct");
	if (thrift_byte(t, &b) != 0)
		return -1;
	if (b == BALE_THRIFT_STOP) {
		t->depth--;
		return 0;
	}
	*type = b & 0x0f;
	if (*type > BALE_THRIFT_STRUCT)
		return bale_thrift_fail(t, "unknown thrift type");
	if (b >> 4) {		/* a delta from the last id */
		*id = (int16_t)(t->last[t->depth] + (b >> 4));
	} else {
		if (thrift_varint(t, &v) != 0)
			return -1;
		wide = thrift_unzigzag(v);
		if (wide < INT16_MIN || wide > INT16_MAX)
			return bale_thrift_fail(t, "thrift field id out of "
			    "range");
		*id = (int16_t)wide;
	}
	t->last[t->depth] = *id;
	return 1;
}

int bale_thrift_int(struct bale_thrift *t, uint8_t type, int64_t *v)
{
	uint64_t raw;
	unsigned char b;

	switch (type) {
	case BALE_THRIFT_TRUE:
	case BALE_THRIFT_FALSE:
		*v = type == BALE_THRIFT_TRUE;
		return t->why ? -1 : 0;
	case BALE_THRIFT_BYTE:
		if (thrift_byte(t, &b) != 0)
			return -1;
		*v = (int8_t)b;
		return 0;
	case BALE_THRIFT_I16:
	case BALE_THRIFT_I32:
	case BALE_THRIFT_I64:
		if (thrift_varint(t, &raw) != 0)
			return -1;
		*v = thrift_unzigzag(raw);
		if ((type == BALE_THRIFT_I16 && (*v < INT16_MIN ||
		    *v > INT16_MAX)) || (type == BALE_THRIFT_I32 &&
		    (*v < INT32_MIN || *v > INT32_MAX)))
			return bale_thrift_fail(t, "thrift integer out of "
			    "its type's range");
		return 0;
	default:
		return bale_thrift_fail(t, "thrift field is not an integer");
	}
}

int bale_thrift_binary(struct bale_thrift *t, uint8_t type,
    const unsigned char **p, size_t *n)
{
	uint64_t len;

	if (type != BALE_THRIFT_BINARY)
		return bale_thrift_fail(t, "thrift field is not binary");
	if (thrift_varint(t, &len) != 0)
		return -1;
	if (len > (uint64_t)(t->end - t->p))
		return bale_thrift_fail(t, "thrift binary runs past its data");
	*p = t->p;
	*n = (size_t)len;
	t->p += len;
	return 0;
}

int bale_thrift_list(struct bale_thrift *t, uint8_t type, uint8_t *elem,
    uint32_t *n)
{
	unsigned char b;
	uint64_t size;

	if (type != BALE_THRIFT_LIST && type != BALE_THRIFT_SET)
		return bale_thrift_fail(t, "thrift field is not a list");
	if (thrift_byte(t, &b) != 0)
		return -1;
	*elem = b & 0x0f;
	size = b >> 4;
	if (size == 15 && thrift_varint(t, &size) != 0)
		return -1;
	if (*elem == BALE_THRIFT_STOP || *elem > BALE_THRIFT_STRUCT)
		return bale_thrift_fail(t, "unknown thrift list type");
	/* every element takes a byte at least */
	if (size > (uint64_t)(t->end - t->p))
		return bale_thrift_fail(t, "thrift list longer than its data");
	*n = (uint32_t)size;
	return 0;
}

int bale_thrift_struct(struct bale_thrift *t, bale_thrift_field_fn fn,
    void *ctx)
{
	int16_t id;
	uint8_t type;
	int r, rc = 0;

	if (bale_thrift_enter(t) != 0)
		return -1;
	while (rc == 0 && (r = bale_thrift_field(t, &id, &type)) > 0)
		rc = fn(ctx, id, type) != 0 || t->why ? -1 : 0;
	return rc != 0 || r < 0 ? -1 : 0;
}

static int thrift_skip_field(void *ctx, int16_t id, uint8_t type)
{
	(void)id;
	return bale_thrift_skip(ctx, type);
}

/* A list's elements, or a map's pairs. */
static int thrift_skip_elements(struct bale_thrift *t, uint8_t type,
    uint64_t n)
{
	unsigned char b;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (type == BALE_THRIFT_TRUE || type == BALE_THRIFT_FALSE) {
			if (thrift_byte(t, &b) != 0)	/* one byte each */
				return -1;
		} else if (bale_thrift_skip(t, type) != 0) {
			return -1;
		}
	}
	return 0;
}

static int thrift_skip_map(struct bale_thrift *t)
{
	unsigned char kv;
	uint64_t n;

	if (thrift_varint(t, &n) != 0)
		return -1;
	if (n == 0)
		return 0;
	if (n > (uint64_t)(t->end - t->p) || thrift_byte(t, &kv) != 0)
		return bale_thrift_fail(t, "thrift map longer than its data");
	if ((kv >> 4) == 0 || (kv >> 4) > BALE_THRIFT_STRUCT ||
	    (kv & 0x0f) == 0 || (kv & 0x0f) > BALE_THRIFT_STRUCT)
		return bale_thrift_fail(t, "unknown thrift map type");
	for (; n > 0; n--)
		if (thrift_skip_elements(t, kv >> 4, 1) != 0 ||
		    thrift_skip_elements(t, kv & 0x0f, 1) != 0)
			return -1;
	return 0;
}

/* One more list or map inside the value being skipped: bounded, as
 * structs are, so the skip's recursion is. */
static int thrift_nest(struct bale_thrift *t)
{
	if (++t->nest > BALE_THRIFT_MAX_DEPTH)
		return bale_thrift_fail(t, "thrift lists nested too deep");
	return 0;
}

int bale_thrift_skip(struct bale_thrift *t, uint8_t type)
{
	const unsigned char *p;
	uint8_t elem;
	uint32_t n;
	int64_t v;
	size_t len;

	if (t->why)
		return -1;
	switch (type) {
	case BALE_THRIFT_TRUE:
	case BALE_THRIFT_FALSE:
		return 0;
	case BALE_THRIFT_BYTE:
	case BALE_THRIFT_I16:
	case BALE_THRIFT_I32:
	case BALE_THRIFT_I64:
		return bale_thrift_int(t, type, &v);
	case BALE_THRIFT_DOUBLE:
		if (t->end - t->p < 8)
			return bale_thrift_fail(t, "thrift data cut short");
		t->p += 8;
		return 0;
	case BALE_THRIFT_BINARY:
		return bale_thrift_binary(t, type, &p, &len);
	case BALE_THRIFT_LIST:
	case BALE_THRIFT_SET:
		if (thrift_nest(t) != 0 || bale_thrift_list(t, type, &elem,
		    &n) != 0 || thrift_skip_elements(t, elem, n) != 0)
			return -1;
		t->nest--;
		return 0;
	case BALE_THRIFT_MAP:
		if (thrift_nest(t) != 0 || thrift_skip_map(t) != 0)
			return -1;
		t->nest--;
		return 0;
	case BALE_THRIFT_STRUCT:
		return bale_thrift_struct(t, thrift_skip_field, t);
	default:
		return bale_thrift_fail(t, "unknown thrift type");
	}
}
