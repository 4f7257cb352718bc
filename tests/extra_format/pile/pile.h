/* pile.h - a throwaway format that shows a format is one folder and one
 * line (HACKING.md, "Adding a format"): scripts/test copies this folder
 * into formats/ of a copy of the tree, adds "pile" to formats/meson.build
 * and runs the whole suite with it. Not built otherwise.
 *
 * NAME.pile is one file:
 *   "BALEPILE1\n", u32 length, {"classes":[...]} (the head)
 *   the samples, each: u32 key length, key, i64 label, u32 path length,
 *   path, u32 crc32, u64 size, the bytes
 *   the index: u64 offset of each sample's record
 *   u64 count, u64 offset of the index, "BALEPILE1\n" (the tail)
 * Integers are little-endian. It is written as NAME.pile.partial and
 * renamed when whole.
 */
#ifndef PILE_H
#define PILE_H

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <stdint.h>

#define PILE_MAGIC "BALEPILE1\n"
#define PILE_MAGIC_LEN 10
#define PILE_TAIL (16 + PILE_MAGIC_LEN)

/* A writer's state. */
struct pile_w {
	char *final;		/* DIR/NAME.pile */
	char *tmp;		/* and its .partial, written */
	int fd;
	uint64_t at;		/* bytes written */
	struct bale_buf index;	/* a u64 offset a sample */
	struct bale_buf rec;	/* the record being put */
	int published;
};

/* A reader's state. */
struct pile_r {
	int fd;
	uint64_t size;		/* of the file */
	uint64_t count;
	unsigned char *index;	/* count u64 offsets */
	char *path;
	const char *files[2];
	char *info;		/* the head's JSON */
	char *key;		/* the last get's key and path */
	char *spath;
	unsigned char *buf;
	size_t cap;
};

extern const struct bale_writer_ops bale_pile_writer;
extern const struct bale_reader_ops bale_pile_reader;

static inline void pile_put64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t pile_get64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif
