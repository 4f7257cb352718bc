/* walk_locs.c - where each sealed sample's bytes lie in its archive (or
 * packed output), coded in a few bytes: a struct bale_walk_member is 48
 * bytes, which at ten million samples would be most of a run's memory.
 *
 * Each sample's record, in blocks of LOCS_BLOCK that start afresh (so one
 * decodes in at most LOCS_BLOCK steps):
 *   varint  0 for a file below the root, else (origin + 1) << 5 | flags
 *   zigzag  offset less the block's previous member's offset, or
 *           less where that member's stored bytes end (LOC_AFTER,
 *           when that is nearer: a tar's next header, an LMDB's next
 *           overflow pages, whatever the samples' size), in tar
 *           blocks of 512 bytes when both offsets are whole blocks
 *           (LOC_BLOCKS, its end rounded up: one byte where bytes
 *           took four); none when it is one more (LOC_NEXT: a packed
 *           output's samples are numbered)
 *   varint  size
 *   varint  csize, if LOC_CSIZE: a zip member stored deflated
 *   varint  method, if LOC_METHOD
 *   4 bytes crc, if LOC_CRC
 * An origin is an archive (its kind and open file), kept once. */
#include "walk_int.h"

#include "bale.h"
#include "kind.h"

#include <stdlib.h>
#include <string.h>

#define LOCS_BLOCK 16

#define LOC_CSIZE 1
#define LOC_METHOD 2
#define LOC_CRC 4
#define LOC_BLOCKS 8
#define LOC_NEXT 16
#define LOC_AFTER 32
#define LOC_FLAGS 6	/* bits of flags */
#define TAR_UNIT 512

void bale_walk_put_member(struct bale_buf *b, uint64_t origin,
    const struct bale_walk_member *m)
{
	bale_varint_put(b, origin);
	bale_varint_put(b, m->offset);
	bale_varint_put(b, m->size);
	bale_varint_put(b, m->csize);
	bale_varint_put(b, (uint64_t)m->method);
	bale_varint_put(b, m->has_crc ? (uint64_t)m->crc + 1 : 0);
}

/* A member of origin @o, nothing else known of it yet, into @m. */
static void locs_member_of(const struct walk_origin *o,
    struct bale_walk_member *m)
{
	memset(m, 0, sizeof(*m));
	m->kind = o->kind;
	m->fd = o->fd;
	m->file_stamp = o->file_stamp;
	m->size_guess = o->size_guess;
}

void bale_walk_get_member(const struct walk_locs *l, const unsigned char **p,
    struct bale_walk_member *m)
{
	uint64_t origin = bale_varint_get(p);
	uint64_t crc;

	locs_member_of(&l->origins[origin], m);
	m->offset = bale_varint_get(p);
	m->size = bale_varint_get(p);
	m->csize = bale_varint_get(p);
	m->method = (int)bale_varint_get(p);
	crc = bale_varint_get(p);
	m->has_crc = crc != 0;
	m->crc = crc ? (uint32_t)(crc - 1) : 0;
}

/* Samples come archive by archive: the last origin is almost always
 * the one. */
int64_t bale_walk_locs_origin(struct walk_locs *l,
    const struct bale_walk_member *m)
{
	size_t i = l->norigins;

	while (i-- > 0)
		if (l->origins[i].kind == m->kind && l->origins[i].fd == m->fd)
			return (int64_t)i;
	if (bale_grow_array((void **)&l->origins, &l->caporigins,
	    l->norigins + 1, sizeof(*l->origins)) != 0)
		return -1;
	l->origins[l->norigins] = (struct walk_origin){ m->kind, m->fd,
	    m->file_stamp, m->size_guess };
	return (int64_t)l->norigins++;
}

/* Start sample @n's record: a new block every LOCS_BLOCK. */
static int locs_begin(struct walk_locs *l, size_t n)
{
	if (n % LOCS_BLOCK)
		return 0;
	if (bale_grow_array((void **)&l->block_at, &l->capblocks,
	    n / LOCS_BLOCK + 1, sizeof(*l->block_at)) != 0)
		return -1;
	l->block_at[n / LOCS_BLOCK] = l->text.len;
	l->prev_offset = 0;
	l->prev_end = 0;
	return 0;
}

/* Samples before the first member are files: a zero each. */
static int locs_catch_up(struct walk_locs *l, size_t n)
{
	while (l->n < n) {
		if (locs_begin(l, l->n) != 0)
			return -1;
		bale_buf_add(&l->text, "", 1);
		l->n++;
	}
	return l->text.failed ? -1 : 0;
}

static uint64_t locs_zigzag(uint64_t now, uint64_t before)
{
	int64_t d = (int64_t)(now - before);

	return d < 0 ? ((uint64_t)~d << 1) | 1 : (uint64_t)d << 1;
}

/* Where the offsets of a record with @flags count from, after a member
 * at @prev whose stored bytes end at @end: in blocks with LOC_BLOCKS. */
static uint64_t locs_base(unsigned flags, uint64_t prev, uint64_t end)
{
	if (flags & LOC_AFTER)
		return flags & LOC_BLOCKS ? (end + TAR_UNIT - 1) / TAR_UNIT :
		    end;
	return flags & LOC_BLOCKS ? prev / TAR_UNIT : prev;
}

/* What @m's record holds after the block's previous member (@l), and
 * its offset's coded difference in *@zz. */
static unsigned locs_flags(const struct walk_locs *l,
    const struct bale_walk_member *m, uint64_t *zz)
{
	unsigned flags = (m->csize != m->size ? LOC_CSIZE : 0) |
	    (m->method ? LOC_METHOD : 0) | (m->has_crc ? LOC_CRC : 0);
	uint64_t at = m->offset;
	uint64_t after;

	if (at == l->prev_offset + 1)
		return flags | LOC_NEXT;
	if (at % TAR_UNIT == 0 && l->prev_offset % TAR_UNIT == 0) {
		flags |= LOC_BLOCKS;
		at /= TAR_UNIT;
	}
	*zz = locs_zigzag(at, locs_base(flags, l->prev_offset, l->prev_end));
	after = locs_zigzag(at, locs_base(flags | LOC_AFTER, l->prev_offset,
	    l->prev_end));
	if (after >= *zz)
		return flags;
	*zz = after;
	return flags | LOC_AFTER;
}

int bale_walk_locs_add(struct walk_locs *l, size_t n,
    const struct bale_walk_member *m)
{
	unsigned char crc[4];
	unsigned flags;
	int64_t origin;
	uint64_t zz = 0;

	if (!m && !l->n)
		return 0;	/* no member yet: nothing is kept */
	if (locs_catch_up(l, n) != 0 || locs_begin(l, n) != 0)
		return -1;
	l->n = n + 1;
	if (!m) {
		bale_buf_add(&l->text, "", 1);
		return l->text.failed ? -1 : 0;
	}
	if ((origin = bale_walk_locs_origin(l, m)) < 0)
		return -1;
	flags = locs_flags(l, m, &zz);
	bale_varint_put(&l->text, (uint64_t)(origin + 1) << LOC_FLAGS |
	    flags);
	if (!(flags & LOC_NEXT))
		bale_varint_put(&l->text, zz);
	bale_varint_put(&l->text, m->size);
	if (flags & LOC_CSIZE)
		bale_varint_put(&l->text, m->csize);
	if (flags & LOC_METHOD)
		bale_varint_put(&l->text, (uint64_t)m->method);
	if (flags & LOC_CRC) {
		crc[0] = (unsigned char)m->crc;
		crc[1] = (unsigned char)(m->crc >> 8);
		crc[2] = (unsigned char)(m->crc >> 16);
		crc[3] = (unsigned char)(m->crc >> 24);
		bale_buf_add(&l->text, crc, sizeof(crc));
	}
	l->prev_offset = m->offset;
	l->prev_end = m->offset + m->csize;
	return l->text.failed ? -1 : 0;
}

/* Decode one record at *@p into @m (0: a file), after the member at
 * @prev[0] whose stored bytes end at @prev[1], which it moves on. */
static int locs_decode(const struct walk_locs *l, const unsigned char **p,
    uint64_t prev[2], struct bale_walk_member *m)
{
	uint64_t head = bale_varint_get(p);
	uint64_t zz = 2;	/* LOC_NEXT: one more */
	uint64_t delta;

	if (!head)
		return 0;
	if (!(head & LOC_NEXT))
		zz = bale_varint_get(p);
	locs_member_of(&l->origins[(head >> LOC_FLAGS) - 1], m);
	delta = zz & 1 ? ~(zz >> 1) : zz >> 1;
	m->offset = locs_base((unsigned)head, prev[0], prev[1]) + delta;
	if (head & LOC_BLOCKS)
		m->offset *= TAR_UNIT;
	m->size = m->csize = bale_varint_get(p);
	if (head & LOC_CSIZE)
		m->csize = bale_varint_get(p);
	if (head & LOC_METHOD)
		m->method = (int)bale_varint_get(p);
	if (head & LOC_CRC) {
		m->has_crc = 1;
		m->crc = (uint32_t)(*p)[0] | (uint32_t)(*p)[1] << 8 |
		    (uint32_t)(*p)[2] << 16 | (uint32_t)(*p)[3] << 24;
		*p += 4;
	}
	prev[0] = m->offset;
	prev[1] = m->offset + m->csize;
	return 1;
}

int bale_walk_locs_get(const struct walk_locs *l, size_t i,
    struct bale_walk_member *m)
{
	const unsigned char *p;
	uint64_t prev[2] = { 0, 0 };
	size_t k;

	if (i >= l->n)	/* files after the last member */
		return 0;
	p = (const unsigned char *)l->text.data + l->block_at[i / LOCS_BLOCK];
	for (k = 0; k < i % LOCS_BLOCK; k++)
		locs_decode(l, &p, prev, m);
	return locs_decode(l, &p, prev, m);
}

int bale_walk_has_streamed(const struct bale_walk *w)
{
	const struct walk_locs *l = &w->store.locs;
	size_t i;

	for (i = 0; i < l->norigins; i++)
		if (bale_source_streams(l->origins[i].kind))
			return 1;
	return 0;
}

void bale_walk_locs_release(struct walk_locs *l)
{
	bale_buf_release(&l->text);
	free(l->block_at);
	free(l->origins);
	memset(l, 0, sizeof(*l));
}
