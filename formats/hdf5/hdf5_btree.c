/* hdf5_btree.c - where a chunked dataset's chunks lie, read from its
 * version 1 B-tree: the chunk index HDF5 gives a chunked dataset in the
 * 1.8 file format, which bale writes.
 *
 * HDF5 1.10 answers "where is chunk k" (H5Dget_chunk_info_by_coord) by
 * stepping through the index from its start each time, so finding every
 * chunk of a file costs the square of their count (some 180 ms for the
 * 5 500 chunks of ten million 2 KB images, seconds for ImageNet's
 * 33 000), and 1.14's H5Dchunk_iter is not in Debian 12. The tree is
 * read here instead, as the file format specification lays it out: the
 * dataset's object header holds its layout message (version 3, chunked),
 * which gives the tree's root; the tree's leaves, linked left to right,
 * hold the chunks in order, each with its offset, size, filter mask and
 * address. So one descent and one pass along the leaves.
 *
 * Anything not as expected (another header or layout version, another
 * index, a missing chunk, a filter, a loop) gives -1 and the caller
 * asks HDF5 chunk by chunk, as before; the first and the last chunk
 * found are checked against HDF5's own answer.
 */
#include "hdf5_btree.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OHDR_READ 4096		/* an object header's first chunk: a
				 * dataset's is a few hundred bytes */
#define NODE_MAX_ENTRIES 1024	/* 64 with HDF5's defaults */
#define LAYOUT_MESSAGE 8
#define RAW_DATA_NODE 1
#define UNDEF_ADDR UINT64_MAX

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* A dataset's tree: where its root is, and how long a key is. */
struct bt_tree {
	struct bale_sfile *sf;
	uint64_t root;
	size_t key_len;		/* chunk size, filter mask, offsets */
	size_t ndims;		/* the dataset's rank + 1 */
};

/* Layout message @p (@n bytes): version 3, chunked, one dimension (two
 * with the element's). */
static int bt_layout(const unsigned char *p, size_t n, struct bt_tree *t)
{
	if (n < 11 || p[0] != 3 || p[1] != 2 || p[2] != 2)
		return -1;
	t->ndims = p[2];
	t->root = le(p + 3, 8);
	t->key_len = 8 + 8 * t->ndims;
	return t->root == UNDEF_ADDR ? -1 : 0;
}

/* The layout message among a version 2 header's first chunk (@h, @n
 * bytes read): "OHDR", version, flags, optional times and attribute
 * limits, the chunk's size, then messages of type, size, flags and
 * (with flag 4) a creation order. */
static int bt_header_v2(const unsigned char *h, size_t n, struct bt_tree *t)
{
	unsigned flags = h[5];
	size_t p = 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
	size_t szlen = (size_t)1 << (flags & 3);
	size_t end;
	size_t size;

	if (p + szlen > n)
		return -1;
	end = p + szlen + (size_t)le(h + p, (int)szlen);
	p += szlen;
	if (end > n)
		end = n;	/* a layout message past it: not found */
	while (p + 4 + (flags & 4 ? 2 : 0) <= end) {
		size = (size_t)le(h + p + 1, 2);
		if (h[p] == LAYOUT_MESSAGE) {
			p += 4 + (flags & 4 ? 2 : 0);
			return p + size <= end ? bt_layout(h + p, size, t) : -1;
		}
		p += 4 + (flags & 4 ? 2 : 0) + size;
	}
	return -1;
}

/* The same in a version 1 header: version, reserved, message count,
 * reference count, header size, padding to 8; then messages of type
 * (2 bytes), size (2), flags, 3 reserved, their data. */
static int bt_header_v1(const unsigned char *h, size_t n, struct bt_tree *t)
{
	size_t p = 16;
	size_t size;
	uint64_t k, count = le(h + 2, 2);

	for (k = 0; k < count && p + 8 <= n; k++) {
		size = (size_t)le(h + p + 2, 2);
		if (le(h + p, 2) == LAYOUT_MESSAGE)
			return p + 8 + size <= n ? bt_layout(h + p + 8, size,
			    t) : -1;
		p += 8 + size;
	}
	return -1;
}

/* Up to @n bytes at @at of @sf, fewer at its end. @return the count, or
 * -1 */
static ssize_t bt_pread(struct bale_sfile *sf, void *buf, size_t n,
    uint64_t at)
{
	uint64_t size = bale_sfile_size(sf);
	struct bale_errbuf err;

	if (at >= size)
		return 0;
	n = size - at < n ? (size_t)(size - at) : n;
	return bale_sfile_pread(sf, buf, n, at, &err) == BALE_OK ?
	    (ssize_t)n : -1;
}

/* @dset's tree, from its object header. */
static int bt_find_root(hid_t dset, struct bale_sfile *sf, struct bt_tree *t)
{
	unsigned char h[OHDR_READ];
	H5O_info_t oi;
	hid_t file = H5Iget_file_id(dset);
	hid_t fcpl = file >= 0 ? H5Fget_create_plist(file) : -1;
	size_t addr_len = 0, len_len = 0;
	ssize_t n;
	int ok = fcpl >= 0 && H5Pget_sizes(fcpl, &addr_len, &len_len) >= 0 &&
	    addr_len == 8 && len_len == 8 &&
	    H5Oget_info2(dset, &oi, H5O_INFO_BASIC) >= 0;

	if (fcpl >= 0)
		H5Pclose(fcpl);
	if (file >= 0)
		H5Fclose(file);
	if (!ok)
		return -1;
	t->sf = sf;
	n = bt_pread(sf, h, sizeof(h), oi.addr);
	if (n >= 16 && memcmp(h, "OHDR", 4) == 0 && h[4] == 2)
		return bt_header_v2(h, (size_t)n, t);
	if (n >= 16 && h[0] == 1)
		return bt_header_v1(h, (size_t)n, t);
	return -1;
}

/* A node read: its level, entries, right sibling; keys and children
 * interleaved in @body. */
struct bt_node {
	unsigned level;
	size_t used;
	uint64_t right;
	unsigned char *body;
	size_t cap;
};

static int bt_read_node(const struct bt_tree *t, uint64_t at,
    struct bt_node *nd)
{
	unsigned char head[24];
	size_t need;
	unsigned char *grown;

	if (bt_pread(t->sf, head, sizeof(head), at) != sizeof(head) ||
	    memcmp(head, "TREE", 4) != 0 || head[4] != RAW_DATA_NODE)
		return -1;
	nd->level = head[5];
	nd->used = (size_t)le(head + 6, 2);
	nd->right = le(head + 16, 8);
	if (nd->used == 0 || nd->used > NODE_MAX_ENTRIES)
		return -1;
	need = nd->used * (t->key_len + 8) + t->key_len;
	if (need > nd->cap) {
		if (!(grown = realloc(nd->body, need)))
			return -1;
		nd->body = grown;
		nd->cap = need;
	}
	return bt_pread(t->sf, nd->body, need, at + sizeof(head)) ==
	    (ssize_t)need ? 0 : -1;
}

/* Entry @i's key and child in @nd. */
static const unsigned char *bt_key(const struct bt_tree *t,
    const struct bt_node *nd, size_t i)
{
	return nd->body + i * (t->key_len + 8);
}

static uint64_t bt_child(const struct bt_tree *t, const struct bt_node *nd,
    size_t i)
{
	return le(bt_key(t, nd, i) + t->key_len, 8);
}

/* Down from the root to the leaf holding byte @target: in each node,
 * the last child whose key starts at or before it. */
static int bt_descend(const struct bt_tree *t, uint64_t target,
    struct bt_node *nd)
{
	uint64_t at = t->root;
	unsigned depth;
	size_t i;

	for (depth = 0; depth < 64; depth++) {
		if (bt_read_node(t, at, nd) != 0)
			return -1;
		if (nd->level == 0)
			return 0;
		for (i = 0; i + 1 < nd->used &&
		    le(bt_key(t, nd, i + 1) + 8, 8) <= target; i++)
			;
		at = bt_child(t, nd, i);
	}
	return -1;
}

/* The leaves from @nd on, chunk @first's onwards, into @addr. */
static int bt_walk_leaves(const struct bt_tree *t, struct bt_node *nd,
    hsize_t chunk, uint64_t first, uint64_t n, haddr_t *addr)
{
	const unsigned char *key;
	uint64_t k = 0, off;
	uint64_t nodes = 0;
	size_t i;

	for (;;) {
		for (i = 0; i < nd->used && k < n; i++) {
			key = bt_key(t, nd, i);
			off = le(key + 8, 8);
			if (off < first * chunk)
				continue;
			if (off != (first + k) * chunk || le(key, 4) != chunk ||
			    le(key + 4, 4) != 0 || le(key + 16, 8) != 0)
				return -1;	/* a gap, a size, a filter */
			addr[k++] = (haddr_t)bt_child(t, nd, i);
		}
		if (k == n)
			return 0;
		if (nd->right == UNDEF_ADDR || ++nodes > n + 1 ||
		    bt_read_node(t, nd->right, nd) != 0 || nd->level != 0)
			return -1;
	}
}

/* HDF5's own answer for chunk @c agrees with @a. */
static int bt_agrees(hid_t dset, hsize_t chunk, uint64_t c, haddr_t a)
{
	hsize_t off = c * chunk, bytes;
	unsigned mask;
	haddr_t addr;

	return H5Dget_chunk_info_by_coord(dset, &off, &mask, &addr,
	    &bytes) >= 0 && addr == a && mask == 0 && bytes == chunk;
}

int bale_hdf5_chunk_addrs(hid_t dset, struct bale_sfile *sf, hsize_t chunk,
    uint64_t first, uint64_t n, haddr_t *addr)
{
	struct bt_tree t;
	struct bt_node nd;
	int rc;

	if (n == 0)
		return 0;
	memset(&nd, 0, sizeof(nd));
	rc = bt_find_root(dset, sf, &t);
	if (rc == 0)
		rc = bt_descend(&t, first * chunk, &nd);
	if (rc == 0)
		rc = bt_walk_leaves(&t, &nd, chunk, first, n, addr);
	free(nd.body);
	if (rc == 0 && (!bt_agrees(dset, chunk, first, addr[0]) ||
	    !bt_agrees(dset, chunk, first + n - 1, addr[n - 1])))
		rc = -1;
	return rc;
}
