/* zip_scan.h - find the members of a zip archive by its central directory.
 *
 * One read of the central directory (zip64 included) and one of each
 * member's local header, so a caller can read every member in place:
 * stored members as they are, deflated ones inflated by the reader. In
 * an object store the local headers are left to the reader, which
 * reads each with its member (bale_zip_local_data): listing a zip there
 * reads its directory alone.
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
	uint64_t offset;	/* of the (compressed) data, in the file;
				 * @at_header: of its local header */
	int at_header;		/* the local header was not read */
	uint64_t csize;		/* bytes stored */
	uint64_t size;		/* bytes once uncompressed */
};

/** Called for each member in central-directory order; a non-zero return
 *  stops the scan with it. A member whose local header is missing or
 *  runs past the archive is handed over with @why set (it cannot be
 *  read; the scan goes on), else @why is NULL. */
typedef int (*bale_zip_member_fn)(void *ctx, const struct bale_zip_member *m,
    const char *why);

#define BALE_ZIP_LOCAL_LEN 30	/* a local header's fixed part */

/** The data offset of the member whose local header's fixed part @h lies
 *  at @lho, its data @csize bytes, in a zip of @size bytes. @return NULL,
 *  or why it cannot be read */
const char *bale_zip_local_data(const unsigned char *h, uint64_t lho,
    uint64_t csize, uint64_t size, uint64_t *data);

/** 1 if @fd (@size bytes) ends with a zip end-of-central-directory. */
int bale_zip_probe(int fd, uint64_t size);

/** Scan the zip archive @fd of @size bytes.
 *  @return BALE_OK, BALE_EINPUT when the central directory is missing or
 *  damaged (@err says why), BALE_EIO, BALE_ENOMEM, or what @fn returned */
int bale_zip_scan(int fd, uint64_t size, bale_zip_member_fn fn, void *ctx,
    struct bale_errbuf *err);

#endif
