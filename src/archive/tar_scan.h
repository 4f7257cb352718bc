/* tar_scan.h - find the members of an uncompressed tar by its headers.
 *
 * One pass over the headers with pread (the data is skipped, not read),
 * so a caller can later read each member in place at its offset. Reads
 * ustar, GNU (long names, base-256 sizes) and pax (path, size) headers.
 * Works on a byte range of a file, so an inner tar of a tar of tars is
 * scanned where it lies.
 */
#ifndef BALE_TAR_SCAN_H
#define BALE_TAR_SCAN_H

#include "bale_backend_util.h"

#include <stdint.h>

#define BALE_TAR_BLOCK 512
/* Longest member name or pax header bale accepts. */
#define BALE_TAR_MAX_NAME 65536
#define BALE_TAR_MAX_PAX ((uint64_t)1 << 20)

enum bale_tar_kind {
	BALE_TAR_FILE,		/* regular file */
	BALE_TAR_DIR,
	BALE_TAR_SYMLINK,
	BALE_TAR_HARDLINK,
	BALE_TAR_SPECIAL,	/* device node, FIFO */
	BALE_TAR_OTHER,		/* sparse, multi-volume, unknown type */
};

struct bale_tar_member {
	const char *name;	/* as stored (pax and GNU long names applied) */
	enum bale_tar_kind kind;
	char type;		/* the header's type flag */
	uint64_t offset;	/* of the data, in the file */
	uint64_t size;
};

/** Called for each member; a non-zero return stops the scan with it. */
typedef int (*bale_tar_member_fn)(void *ctx, const struct bale_tar_member *m);

/** Scan the tar occupying [@start, @end) of @fd.
 *  @return BALE_OK at the end-of-archive blocks or at @end (a tar whose
 *  end blocks are missing is accepted when its last member is whole),
 *  BALE_EINPUT when the archive is damaged (bad header checksum, a member
 *  running past @end, a header cut short): @err says where; BALE_EIO on a
 *  read error; or what @fn returned */
int bale_tar_scan(int fd, uint64_t start, uint64_t end,
    bale_tar_member_fn fn, void *ctx, struct bale_errbuf *err);

/** 1 if @block (512 bytes) is a tar header with a valid checksum. */
int bale_tar_is_header(const unsigned char *block);

/** 1 if @name ends in ".tar" (case-insensitively). */
int bale_tar_is_tar_name(const char *name);

#endif
