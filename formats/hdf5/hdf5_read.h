/* hdf5_read.h - the HDF5 backend's reader (formats/hdf5_read.c), for the
 * backend table in formats/hdf5.c, which needs the handle's size. */
#ifndef BALE_HDF5_READ_H
#define BALE_HDF5_READ_H

#include "bale_backend.h"


#include <hdf5.h>

struct hdf5_r {
	hid_t file;
	hid_t images;
	int vlen;
	int pixels;		/* layout "pixels" */
	int pixels_w, pixels_h;
	int fd;
	uint64_t size;		/* of the file, bytes */
	uint64_t n;
	uint64_t *offsets;	/* encoded: n + 1 */
	haddr_t *chunk_addr;	/* encoded: per chunk */
	uint64_t nchunks;
	hsize_t chunk;
	int64_t *labels;
	uint32_t *crcs;
	char *keys;		/* n fixed-width keys */
	size_t keylen;
	char **paths;
	unsigned char *buf;
	size_t bufcap;
	char key[64];
	char *files[2];
	struct bale_buf info;
};

extern const struct bale_reader_ops bale_hdf5_reader;

#endif
