/* thrift_compact.h - values in Apache Thrift's compact protocol, as
 * Parquet writes its footer and page headers: read in place from a
 * buffer, every length and count checked against what is left of it,
 * nesting bounded, so a hostile file is refused, never followed.
 *
 * A struct is read a field at a time: bale_thrift_field() gives each
 * field's id and type until the struct's end; the caller reads the
 * values it knows (bale_thrift_int(), _binary(), _list(), a nested
 * struct between _enter() and its end) and skips the others
 * (bale_thrift_skip()). The first error sticks: every later call fails.
 */
#ifndef BALE_THRIFT_COMPACT_H
#define BALE_THRIFT_COMPACT_H

#include <stddef.h>
#include <stdint.h>

/* The compact protocol's types. */
enum bale_thrift_type {
	BALE_THRIFT_STOP = 0,
	BALE_THRIFT_TRUE = 1,	/* a bool field's value is its type */
	BALE_THRIFT_FALSE = 2,
	BALE_THRIFT_BYTE = 3,
	BALE_THRIFT_I16 = 4,
	BALE_THRIFT_I32 = 5,
	BALE_THRIFT_I64 = 6,
	BALE_THRIFT_DOUBLE = 7,
	BALE_THRIFT_BINARY = 8,
	BALE_THRIFT_LIST = 9,
	BALE_THRIFT_SET = 10,
	BALE_THRIFT_MAP = 11,
	BALE_THRIFT_STRUCT = 12,
};

/* Structs nested deeper than this are refused. */
#define BALE_THRIFT_MAX_DEPTH 32

struct bale_thrift {
	const unsigned char *p;
	const unsigned char *end;
	int depth;		/* structs entered */
	int nest;		/* lists and maps being skipped */
	int16_t last[BALE_THRIFT_MAX_DEPTH + 1];	/* each level's
							 * last field id */
	const char *why;	/* the first error, or NULL */
};

void bale_thrift_init(struct bale_thrift *t, const void *p, size_t n);

/** Begin reading a struct (the top one, or a field's of type STRUCT).
 *  @return 0, or -1 (nested too deep) */
int bale_thrift_enter(struct bale_thrift *t);

/** The next field of the struct being read: 1 with *@id and *@type set,
 *  0 at its end (the struct is left), -1 on an error. */
int bale_thrift_field(struct bale_thrift *t, int16_t *id, uint8_t *type);

/* One field of a struct read by bale_thrift_struct(): its value read
 * or skipped. @return 0, or -1 (the struct's read fails) */
typedef int (*bale_thrift_field_fn)(void *ctx, int16_t id, uint8_t type);

/** A whole struct: enter it, hand each field to @fn, up to its end.
 *  @return 0, or -1 (@fn failed, or the data did: t->why says) */
int bale_thrift_struct(struct bale_thrift *t, bale_thrift_field_fn fn,
    void *ctx);

/** An integer of a field (or list element) of @type BYTE, I16, I32 or
 *  I64, or a bool's (TRUE, FALSE: 1 or 0). @return 0 or -1 */
int bale_thrift_int(struct bale_thrift *t, uint8_t type, int64_t *v);

/** A BINARY (string) value, in place: @n bytes at *@p. @return 0 or -1 */
int bale_thrift_binary(struct bale_thrift *t, uint8_t type,
    const unsigned char **p, size_t *n);

/** A LIST's (or SET's) header: its elements' type and count, each
 *  element then read by type. @return 0 or -1 */
int bale_thrift_list(struct bale_thrift *t, uint8_t type, uint8_t *elem,
    uint32_t *n);

/** Skip a value of @type (a field's, or a list element's). @return 0 or
 *  -1 */
int bale_thrift_skip(struct bale_thrift *t, uint8_t type);

/** Fail with @why (the caller found a value it cannot take); -1. */
int bale_thrift_fail(struct bale_thrift *t, const char *why);

/** Bytes read so far from the start given to bale_thrift_init(). */
size_t bale_thrift_used(const struct bale_thrift *t,
    const void *start);

#endif
