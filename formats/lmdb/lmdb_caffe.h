/* lmdb_caffe.h - Caffe's Datum protobuf, as far as the Caffe layout
 * needs it: field 4 data (bytes), 5 label (int32 varint), 7 encoded
 * (bool, true). Writing and reading it are here together, so the two
 * cannot drift apart. */
#ifndef LMDB_CAFFE_H
#define LMDB_CAFFE_H

#include <stddef.h>
#include <stdint.h>

#define LMDB_CAFFE_FRAME_MAX 16	/* bytes before, or after, the data */

/* What goes around a payload: the record is head, data, tail. */
struct bale_lmdb_caffe_frame {
	unsigned char head[LMDB_CAFFE_FRAME_MAX];
	size_t nhead;
	unsigned char tail[LMDB_CAFFE_FRAME_MAX];
	size_t ntail;
};

/** The frame of a Datum holding @size bytes with @label. The label and
 *  flag follow the data, as protobuf serialises by field number. */
void bale_lmdb_caffe_frame(struct bale_lmdb_caffe_frame *f, size_t size,
    int64_t label);

/** Find the data and the label in the Datum @p[0..n). A missing label
 *  leaves *label as it was. @return 0, -1 if it is not a Datum, -2 if
 *  its data are raw pixels (channels x height x width, not encoded: what
 *  convert_imageset writes without --encoded) rather than an image file */
int bale_lmdb_caffe_parse(const unsigned char *p, size_t n,
    const unsigned char **data, size_t *size, int64_t *label);

#endif
