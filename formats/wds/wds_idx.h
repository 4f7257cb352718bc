/* wds_idx.h - the lines of NVIDIA DALI's wds2idx v1.2 index: after a
 * "v1.2 COUNT" line, one line per sample of "ext offset size member" for
 * each of its members (offset: where the member's data starts). */
#ifndef WDS_IDX_H
#define WDS_IDX_H

#include "bale_backend.h"
#include "bale_backend_util.h"

#include <stdint.h>

struct wds_member {
	uint64_t off;
	uint64_t size;
};

struct wds_entry {
	uint32_t shard;
	struct wds_member image;
	struct wds_member cls;
	struct wds_member json;
	size_t key;		/* arena offset of the key */
};

/** Append one member's "ext offset size name" to the line being built in
 *  @idx (a space before it unless the line is empty). */
void bale_wds_idx_add(struct bale_buf *idx, const char *ext, uint64_t off,
    uint64_t size, const char *name);

/** Parse one sample's @line (changed in place) into @e's image, cls and
 *  json members; *member is the last member's name.
 *  @return 0, or -1 if it is not such a line */
int bale_wds_idx_parse(char *line, struct wds_entry *e, char **member);

#endif
