/* wds.c - WebDataset tar shards, with DALI .idx files and a wids shard list.
 *
 * Output, for name N in folder D:
 *   D/N-000000.tar ...   plain ustar shards; per sample KEY.<ext> (original
 *                        bytes), KEY.cls (decimal label), KEY.json (path,
 *                        size, crc32, label, class); fixed owner/mode/mtime
 *   D/N-000000.idx ...   DALI wds2idx v1.2: "v1.2 COUNT", then per sample
 *                        "ext data_offset size member_name" per member
 *   D/N-shards.json      wids-shard-index-v1 list; written last, so its
 *                        presence means the output is complete
 * Shards are written as "*.partial" and renamed when complete. Member
 * offsets are computed, not read back: a ustar member is a 512-byte header
 * plus its data padded to 512, and the archive ends with 1024 zero bytes.
 * Each finished shard is a checkpoint (bale pack --resume): a failed or
 * killed run leaves them; a resumed run verifies and keeps them
 * (wds_verify.c). The open shard is one too, every few MiB, and is then
 * kept as "*.partial" for a resumed run to cut back to and carry on
 * (wds_partial.c).
 */
#include "wds.h"

#include <string.h>

/* A wids shard list: named NAME-shards.json as bale writes it, or any
 * file that says it is one. */
static int wds_probe(const char *path, int is_dir, const unsigned char *head,
    size_t n)
{
	static const char kind[] = "wids-shard-index-v1";
	static const char suffix[] = WDS_LIST_SUFFIX;
	size_t len = strlen(path);

	if (is_dir)
		return 0;
	if (len > sizeof(suffix) - 1 &&
	    strcmp(path + len - (sizeof(suffix) - 1), suffix) == 0)
		return 1;
	return memmem(head, n, kind, sizeof(kind) - 1) != NULL;
}

static const char *wds_library_version(void)
{
	return archive_version_details();
}

/* The shards and their indexes: six digits, seven past a million */
#define WDS_D "[0-9]"
#define WDS_NO "-" WDS_D WDS_D WDS_D WDS_D WDS_D WDS_D
static const struct bale_option wds_writer_options[] = {
	{ "shard_size", "SIZE", 0, "shard-size",
	    "at most SIZE bytes per shard (default 1G)" },
	{ "shard_count", "N", 0, "shard-count",
	    "at most N samples per shard" },
	{ "fsync", NULL, BALE_OPTION_SYNC, "fsync", BALE_FSYNC_HELP },
	{ "direct_io", "auto|1|0", 0, NULL,
	    "write shards past the page cache (O_DIRECT): auto once the "
	    "run has written 1 GiB (default)" },
	{ NULL, NULL, 0, NULL, NULL },
};

static const struct bale_option wds_reader_options[] = {
	{ "images_only", NULL, BALE_OPTION_BENCH, "pread-ref",
	    "the image bytes only, a bare pread each: any format's limit" },
	{ "check_indexes", NULL, 0, NULL,
	    "read through the .idx files and compare every sample with its "
	    ".bidx entry (what verify does)" },
	{ NULL, NULL, 0, NULL, NULL },
};

static const char *const wds_side_files[] = {
	WDS_NO ".tar", WDS_NO ".idx", WDS_NO ".bidx", WDS_NO WDS_D ".tar",
	WDS_NO WDS_D ".idx", WDS_NO WDS_D ".bidx", NULL,
};

const struct bale_backend bale_backend_wds = {
	.abi = BALE_BACKEND_ABI,
	.name = "wds",
	.summary = "WebDataset tar shards with .idx files and a wids list",
	.caps = BALE_CAP_EMPTY | BALE_CAP_RANDOM | BALE_CAP_THREADS |
	    BALE_CAP_REMOTE | BALE_CAP_WRITE_REMOTE | BALE_CAP_UPDATE_REMOTE |
	    BALE_CAP_MERGE_REMOTE,
	.probe = wds_probe,
	.suffix = WDS_LIST_SUFFIX,
	.read_rank = 30,	/* many shards, each opened */
	.side_files = wds_side_files,
	.library = "libarchive",
	.library_version = wds_library_version,
	.writer_priv = sizeof(struct wds_w),
	.writer = &bale_wds_writer,
	.writer_options = wds_writer_options,
	.reader_priv = sizeof(struct wds_r),
	.reader = &bale_wds_reader,
	.reader_options = wds_reader_options,
	.merge = bale_wds_merge,
	.update = bale_wds_update,
};
