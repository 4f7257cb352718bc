/* multipart.h - an object written front to back into S3 (multipart.c):
 * small ones in one PUT, large ones as a multipart upload whose parts
 * are sent while the writer fills the next. */
#ifndef BALE_MULTIPART_H
#define BALE_MULTIPART_H

#include "http.h"

#include <stddef.h>
#include <stdint.h>

struct bale_mpu;

/** Begin object @name (the user's word for it) at @url, signed with
 *  @aws (NULL: unsigned): nothing is sent until a part is full or it
 *  is finished. @return BALE_OK or BALE_ENOMEM */
int bale_mpu_open(struct bale_mpu **u, const char *name, const char *url,
    const struct bale_aws *aws, struct bale_errbuf *err);
/** Append @n bytes; a full part is handed to the senders, waiting
 *  while as many parts as may be are on their way. @return BALE_OK, or
 *  the failure of a part sent before (said in @err) */
int bale_mpu_write(struct bale_mpu *u, const void *p, size_t n,
    struct bale_errbuf *err);
/** Send what is left and make the object whole under its name, each
 *  part's MD5 and the whole's checked against the store's ETags; @u is
 *  gone. On failure the upload is aborted: nothing of it is left. */
int bale_mpu_finish(struct bale_mpu *u, struct bale_errbuf *err);
/** Stop: the upload is aborted and @u gone (NULL is fine). */
void bale_mpu_abort(struct bale_mpu *u);

/** Abort upload @upload_id of the object @name at @url (one a killed
 *  run began and never finished): its parts go. @return BALE_OK (or it
 *  was gone already), or an error in @err */
int bale_mpu_abort_id(const char *name, const char *url,
    const struct bale_aws *aws, const char *upload_id,
    struct bale_errbuf *err);

/** The part size and the parts on their way at once of the uploads
 *  begun from here on (0: leave as it is). */
void bale_mpu_configure(size_t part_size, unsigned in_flight);
/** What they are now. */
void bale_mpu_settings(size_t *part_size, unsigned *in_flight);

/* S3's bounds on a part: at least 5 MiB (but the last), at most 5 GiB,
 * 10 000 of them. */
#define BALE_MPU_PART_MIN ((size_t)5 << 20)
#define BALE_MPU_PART_MAX ((size_t)5 << 30)
#define BALE_MPU_PARTS_MAX 10000
#define BALE_MPU_PART_DEFAULT ((size_t)8 << 20)
#define BALE_MPU_IN_FLIGHT_DEFAULT 4

#endif
