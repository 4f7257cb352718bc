/* zip_scan.h - find the members of a zip archive by its central directory.
 *
 * One read of the central directory (zip64 included) and one of each
 * member's local header, so a caller can read every member in place:
 * stored members as they are, deflated ones inflated by the reader.
 */
#ifndef BALE_ZIP_SCAN_H
#define BALE_ZIP_SCAN_H

#include "bale_backend_util.h"

#include <stdint.h>

#define BALE_ZIP_STORED 0
#define BALE_ZIP_DEFLATED 8

enum bale_zip_kind {
	BALE_ZIP_FILE,
	BALE_ZIP_DIR,
	BALE_ZIP_SYMLINK,
	BALE_ZIP_SPECIAL,	/* a device node or FIFO (Unix attributes) */
};

struct bale_zip_member {
	const char *name;
	enum bale_zip_kind kind;
	unsigned method;	/* BALE_ZIP_STORED, _DEFLATED or another */
	int encrypted;
	uint32_t crc;		/* CRC-32 of the uncompressed data */
	uint64_t offset;	/* of the (compressed) data, in the file */
	uint64_t csize;		/* bytes stored */
	uint64_t size;		/* bytes once uncompressed */
};

/** Called for each member in central-directory order; a non-zero return
 *  stops the scan with it. A member whose local header is missing or
 *  runs past the archive is handed over with @why set (it cannot be
 *  read; the scan goes on), else @why is NULL. */
typedef int (*bale_zip_member_fn)(void *ctx, const struct bale_zip_member *m,
    const char *why);

/** 1 if @fd (@size bytes) ends with a zip end-of-central-directory. */
int bale_zip_probe(int fd, uint64_t size);

/** Scan the zip archive @fd of @size bytes.
 *  @return BALE_OK, BALE_EINPUT when the central directory is missing or
 *  damaged (@err says why), BALE_EIO, BALE_ENOMEM, or what @fn returned */
int bale_zip_scan(int fd, uint64_t size, bale_zip_member_fn fn, void *ctx,
    struct bale_errbuf *err);

#endif
