/* update.c - what an update hands each format (struct bale_update):
 * which keys leave, and the keys the output held before, by position. */
#include "keyset.h"

#include "bale_backend.h"
#include "bale_backend_util.h"

int bale_update_removes(const struct bale_update *u, uint64_t key)
{
	size_t lo = 0, hi = u->nremoved, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (u->removed[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < u->nremoved && u->removed[lo] == key;
}

uint64_t bale_update_key_before(const struct bale_update *u, uint64_t pos)
{
	return bale_keyset_at(u->keys_before, pos);
}
