/* wds_verify.h - check a finished WebDataset shard before keeping it. */
#ifndef BALE_WDS_VERIFY_H
#define BALE_WDS_VERIFY_H

#include "bale_backend_util.h"

#include <stddef.h>
#include <stdint.h>

/** What a verified shard holds. */
struct bale_wds_shard {
	uint64_t samples;
	uint64_t last_index;	/* position of its last sample */
	uint64_t filesize;
};

/** Read @tar back and check each sample against the crc32 its .json
 *  records, and that @idx counts the same samples.
 *  @return BALE_OK, or BALE_EIO / BALE_EINVAL with @err saying what is
 *  wrong */
int bale_wds_verify_shard(const char *tar, const char *idx,
    struct bale_wds_shard *out, struct bale_errbuf *err);

#endif
