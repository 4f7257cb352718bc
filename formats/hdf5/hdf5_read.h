/* hdf5_read.h - the HDF5 backend's reader (hdf5_read.c, where the
 * images are, hdf5_images.c, and opening a file in an object store,
 * hdf5_vfd.c), for the backend table in hdf5.c, which needs the
 * handle's size. */
#ifndef BALE_HDF5_READ_H
#define BALE_HDF5_READ_H

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_store.h"


#include <hdf5.h>

/* A run of the "images" bytes (encoded layout) in one file: the file
 * itself, or in a merged or updated file a run of one source's. */
struct hdf5_seg {
	uint64_t start, len;	/* its bytes of images */
	uint64_t src_start;	/* where they start in the source's */
	struct bale_sfile *sf;	/* the source's (not owned); NULL: the
				 * file's */
	hsize_t chunk;
	uint64_t first_chunk;	/* of the source's, addr[0]'s */
	haddr_t *addr;		/* file address of each chunk it spans */
	uint64_t nchunks;
};

/* A file a virtual "images" reads from, opened once however many
 * mappings read from it. */
struct hdf5_src {
	char *path;		/* as found, from the file's folder */
	struct bale_sfile *sf;	/* in its store */
	hid_t file, dset;	/* open while the mappings are checked */
	uint64_t size;		/* of the file, bytes */
	hsize_t extent;		/* of its dataset's first dimension */
};

struct hdf5_r {
	hid_t file;
	hid_t images;
	int vlen;
	int pixels;		/* layout "pixels" */
	int pixels_w, pixels_h;
	struct bale_sfile *sf;	/* the file, in its store */
	uint64_t size;		/* of the file, bytes */
	uint64_t n;
	uint64_t *offsets;	/* encoded: n + 1 */
	uint64_t images_end;	/* encoded: the bytes the samples take */
	struct bale_index ix;	/* NAME.h5.bidx, mapped (meta=0), else
				 * the rows are read at open */
	int by_index;
	uint64_t reads;		/* every so many, the index pages go */
	int check;		/* check_indexes=1: the rows are read, and
				 * each sample compared with the index */
	int index_bad;		/* check: the index is there, but damaged
				 * or not the file's */
	struct hdf5_seg *segs;	/* encoded: where its bytes are */
	size_t nsegs;
	size_t nparts;		/* a merged file's: its virtual sources */
	struct hdf5_src *srcs;	/* their files */
	/* the rows held: [rows_first, rows_first + rows_n) of labels, crcs,
	 * keys, paths (offsets: one more); every row once a read went
	 * elsewhere than the next window */
	uint64_t rows_first;
	uint64_t rows_n;
	uint64_t window;	/* rows read at once, in order */
	int64_t *labels;
	int no_meta;		/* meta=0: no crc32 or paths read */
	uint32_t *crcs;
	char *keys;		/* fixed-width keys */
	size_t keylen;
	char **paths;
	unsigned char *buf;
	size_t bufcap;
	char key[64];
	char **files;		/* the file, then its sources; NULL ends */
	struct bale_buf info;
};

extern const struct bale_reader_ops bale_hdf5_reader;

/** Find the images (hdf5_images.c): every part of a merged file is
 *  there and holds what it maps; where the encoded bytes lie. Call with
 *  the HDF5 lock held, the rows read. @return BALE_OK or an error */
int bale_hdf5_images_open(struct bale_reader *r, struct hdf5_r *st);

/** Bytes [@lo, @hi) of the encoded images into @to, with preads only.
 *  @return BALE_OK or an error */
int bale_hdf5_images_pread(struct bale_reader *r, const struct hdf5_r *st,
    unsigned char *to, uint64_t lo, uint64_t hi);

/** Ask for the encoded images of @n consecutive samples ahead (sample
 *  k's bytes [@lo[k], @hi[k])): one GET per run of chunks that lie end
 *  to end in their file, for the reads of the samples there. @return as
 *  bale_sfile_prefetch(); 0 when they lie in several parts */
int bale_hdf5_images_prefetch(const struct hdf5_r *st, const uint64_t *lo,
    const uint64_t *hi, uint64_t n);

void bale_hdf5_images_release(struct hdf5_r *st);

/** Open the HDF5 file at @path read-only: a local path as HDF5 does, an
 *  object store's name through bale's stores (hdf5_vfd.c), @size its
 *  size when known (0: asked). Under the HDF5 lock. @return the file, or
 *  a negative id */
hid_t bale_hdf5_open_read(const char *path, uint64_t size);

#endif
