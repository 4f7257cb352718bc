/* wds_fetch.c - a reader's bytes of a shard, from the store that holds
 * it (a local file, or an object read by a ranged GET): what the reads
 * through the .idx files (wds_read.c) and through the compact indexes
 * (wds_bidx.c) both call. */
#include "wds.h"

int bale_wds_read_at(struct bale_reader *r, struct wds_r *st, size_t shard,
    const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct bale_errbuf err;
	int rc = bale_sfile_preadv(st->files[shard], iov, iovcnt, off, &err);

	return rc == BALE_OK ? rc : bale_reader_seterr(r, rc, "%s", err.msg);
}
