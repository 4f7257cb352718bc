/* hdf5_write.h - the HDF5 writer's state, shared by the writer (hdf5.c)
 * and its resume (hdf5_resume.c). */
#ifndef HDF5_WRITE_H
#define HDF5_WRITE_H

#include "bale_backend.h"
#include "bale_backend_util.h"

#include "hdf5_rows.h"

#include <hdf5.h>
#include <stdint.h>

#define HDF5_CHUNK ((size_t)4 << 20)		/* bytes, "encoded" images */
#define HDF5_VLEN_CHUNK 256			/* samples, "vlen" images */
#define HDF5_VLEN_BATCH_BYTES ((size_t)32 << 20)
#define HDF5_PIXELS_CHECKPOINT 64		/* rows, "pixels" layout */

struct hdf5_w {
	int vlen;		/* layout */
	int layout_set;		/* the layout option was given */
	int pixels_w, pixels_h;	/* layout "pixels" when non-zero */
	int deflate;		/* pixels: deflate level, 0 for none */
	char npy_head[BALE_NPY_HEADER_MAX];	/* pixels: what samples hold */
	size_t npy_len;
	int sync;	/* fsync the file, and its folder once renamed */
	char *final;
	char *tmp;
	hid_t file;
	hid_t images;
	struct bale_buf chunk;	/* encoded: bytes of the chunk being filled */
	uint64_t chunks;	/* encoded: chunks written */
	struct bale_buf batch;	/* vlen: copies of samples not yet written */
	struct bale_buf lens;	/* vlen: their sizes, size_t each */
	uint64_t written;	/* vlen: samples written */
	struct bale_hdf5_rows rows;	/* labels, crc32, keys, paths ... */
	const char *const *classes;
	char **class_copy;
	size_t nclasses;
	uint64_t count;
	uint64_t total;
	int published;
	uint64_t durable_rows;	/* rows whose images bytes are written */
	uint64_t durable_bytes;	/* where the next of them starts */
	int flushed;		/* images were written during this put */
	uint64_t ckpt_next;	/* checkpoint: every sample below is kept */
	char *remote;		/* in an object store: the output's NAME.h5
				 * there (hdf5_remote.c); else NULL */
	char *stage;		/* and the local folder it is made in */
};

/** Where the output goes: st->final and st->tmp (the .partial). */
/** The writer failed at @what (HDF5's reason, or the disk's when it is
 *  full). @return BALE_EBACKEND or BALE_EIO, said in @w */
int bale_hdf5_wfail(struct bale_writer *w, struct hdf5_w *st,
    const char *what);
int bale_hdf5_wnomem(struct bale_writer *w);

/** Dataset creation properties: chunks of @chunk (0: none),
 *  extendible, no object times (the same input, the same bytes). */
hid_t bale_hdf5_dcpl(hsize_t chunk);

int bale_hdf5_paths(struct bale_writer *w, struct hdf5_w *st, const char *dir,
    const struct bale_dataset *ds);

/** Create st->tmp afresh with every dataset, empty. */
int bale_hdf5_create(struct bale_writer *w, struct hdf5_w *st,
    const struct bale_dataset *ds);

/** The writer's resume(): reopen the file at the checkpoint, check the
 *  rows it keeps, or make it anew. */
int bale_hdf5_resume(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs);

/** The backend's merge(): the parts' files as one whose images are a
 *  virtual dataset over theirs (hdf5_merge.c). */
int bale_hdf5_merge(const struct bale_merge *m, struct bale_errbuf *err);

/** The backend's update(): a new NAME.h5 whose images are a virtual
 *  dataset over files that never change (hdf5_update.c). */
int bale_hdf5_update(const struct bale_update *u, struct bale_errbuf *err);

/* hdf5_remote.c: an output in an object store, made in a local
 * staging folder and uploaded at publish */

/** bale_hdf5_paths() of the output in @dir: for a folder in an object
 *  store, the file is made in a new staging folder. */
int bale_hdf5_remote_paths(struct bale_writer *w, struct hdf5_w *st,
    const char *dir, const struct bale_dataset *ds);
/** An output there already: refused unless @replace. */
int bale_hdf5_remote_claim(struct bale_writer *w, struct hdf5_w *st,
    int replace);
/** Upload the finished file, then its .bidx (the old .bidx gone first). */
int bale_hdf5_remote_publish(struct bale_writer *w, struct hdf5_w *st);
/** The staging folder goes. */
void bale_hdf5_remote_release(struct hdf5_w *st);

#endif
