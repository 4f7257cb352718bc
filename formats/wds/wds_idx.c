/* wds_idx.c - DALI .idx lines, written and read (see wds_idx.h). */
#include "wds_idx.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void bale_wds_idx_add(struct bale_buf *idx, const char *ext, uint64_t off,
    uint64_t size, const char *name)
{
	char nums[2 * BALE_FMT_MAX + 3];	/* " OFF SIZE " */
	size_t n = 0;

	if (idx->len && idx->data[idx->len - 1] != '\n')
		bale_buf_add(idx, " ", 1);
	bale_buf_puts(idx, ext);
	nums[n++] = ' ';
	n += bale_fmt_u64(nums + n, off, 0);
	nums[n++] = ' ';
	n += bale_fmt_u64(nums + n, size, 0);
	nums[n++] = ' ';
	bale_buf_add(idx, nums, n);
	bale_buf_puts(idx, name);
}

/* "ext off size name" for one member; returns the next field or NULL. */
static char *wds_idx_member(char *p, struct wds_entry *e, char **name)
{
	char *ext = strtok_r(p, " ", name);
	char *off = strtok_r(NULL, " ", name);
	char *size = strtok_r(NULL, " ", name);
	char *member = strtok_r(NULL, " ", name);
	struct wds_member m;
	char *end1;
	char *end2;

	if (!ext || !off || !size || !member)
		return NULL;
	m.off = strtoull(off, &end1, 10);
	m.size = strtoull(size, &end2, 10);
	if (*end1 || *end2 || *off == '-' || *size == '-')
		return NULL;
	if (strcmp(ext, "cls") == 0)
		e->cls = m;
	else if (strcmp(ext, "json") == 0)
		e->json = m;
	else
		e->image = m;
	return member;
}

int bale_wds_idx_parse(char *line, struct wds_entry *e, char **member)
{
	char *save = NULL;
	char *p = line;

	*member = NULL;
	while (p && *p) {
		*member = wds_idx_member(p, e, &save);
		if (!*member)
			return -1;
		p = save;
	}
	return *member ? 0 : -1;
}
