/* hdf5_vfd.c - HDF5 files in an object store: a virtual file driver
 * (HDF5's VFL) that reads through bale's stores (bale_store.h), so
 * H5Fopen works on s3:// and https:// names as on paths. HDF5 asks for
 * its metadata in many small reads at scattered addresses; each is
 * served from blocks of HDF5_VFD_BLOCK bytes, each block one ranged GET
 * and kept (HDF5_VFD_BLOCKS of them, the least recently used going
 * first). Read-only: every write fails. Called under the HDF5 lock
 * (hdf5_read.c), like every HDF5 call.
 */
#include "hdf5_read.h"

#include "bale_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define HDF5_VFD_BLOCK ((uint64_t)256 << 10)
#define HDF5_VFD_BLOCKS 32

struct vfd_block {
	uint64_t no;		/* its place: bytes [no * BLOCK, +BLOCK) */
	uint64_t used;		/* last touched (a counter) */
	size_t len;
	unsigned char *data;	/* NULL: the slot is free */
};

struct vfd_file {
	H5FD_t pub;		/* HDF5's part: first */
	struct bale_sfile *f;
	haddr_t eoa;
	uint64_t clock;
	struct vfd_block blocks[HDF5_VFD_BLOCKS];
};

static hid_t vfd_id = -1;
static pthread_once_t vfd_once = PTHREAD_ONCE_INIT;

static H5FD_t *vfd_open(const char *name, unsigned flags, hid_t fapl,
    haddr_t maxaddr)
{
	const uint64_t *size = H5Pget_driver_info(fapl);
	struct vfd_file *v;
	struct bale_errbuf err;

	(void)maxaddr;
	if (flags & (H5F_ACC_RDWR | H5F_ACC_TRUNC | H5F_ACC_CREAT))
		return NULL;	/* read-only */
	v = calloc(1, sizeof(*v));
	if (!v || bale_sfile_open_sized(&v->f, name, size ? *size : 0,
	    &err) != BALE_OK) {
		free(v);
		return NULL;
	}
	return &v->pub;
}

static herr_t vfd_close(H5FD_t *file)
{
	struct vfd_file *v = (struct vfd_file *)file;
	size_t i;

	for (i = 0; i < HDF5_VFD_BLOCKS; i++)
		free(v->blocks[i].data);
	bale_sfile_close(v->f);
	free(v);
	return 0;
}

static int vfd_cmp(const H5FD_t *a, const H5FD_t *b)
{
	return strcmp(bale_sfile_name(((const struct vfd_file *)a)->f),
	    bale_sfile_name(((const struct vfd_file *)b)->f));
}

static herr_t vfd_query(const H5FD_t *file, unsigned long *flags)
{
	(void)file;
	*flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
	    H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_AGGREGATE_SMALLDATA;
	return 0;
}

static haddr_t vfd_get_eoa(const H5FD_t *file, H5FD_mem_t type)
{
	(void)type;
	return ((const struct vfd_file *)file)->eoa;
}

static herr_t vfd_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
	(void)type;
	((struct vfd_file *)file)->eoa = addr;
	return 0;
}

static haddr_t vfd_get_eof(const H5FD_t *file, H5FD_mem_t type)
{
	(void)type;
	return (haddr_t)bale_sfile_size(((const struct vfd_file *)file)->f);
}

/* Block @no, read if it is not held (in the least recently used slot).
 * NULL when it cannot be read. */
static struct vfd_block *vfd_block(struct vfd_file *v, uint64_t no)
{
	uint64_t size = bale_sfile_size(v->f);
	struct vfd_block *b = &v->blocks[0];
	struct bale_errbuf err;
	size_t i;

	for (i = 0; i < HDF5_VFD_BLOCKS; i++) {
		if (v->blocks[i].data && v->blocks[i].no == no) {
			v->blocks[i].used = ++v->clock;
			return &v->blocks[i];
		}
		if (!v->blocks[i].data || v->blocks[i].used < b->used)
			b = &v->blocks[i];
	}
	if (!b->data)
		b->data = malloc(HDF5_VFD_BLOCK);
	if (!b->data)
		return NULL;
	b->no = no;
	b->len = (size_t)(size - no * HDF5_VFD_BLOCK < HDF5_VFD_BLOCK ?
	    size - no * HDF5_VFD_BLOCK : HDF5_VFD_BLOCK);
	if (bale_sfile_pread(v->f, b->data, b->len, no * HDF5_VFD_BLOCK,
	    &err) != BALE_OK) {
		free(b->data);
		b->data = NULL;
		return NULL;
	}
	b->used = ++v->clock;
	return b;
}

/* Bytes past the end of the file read as zeros, as HDF5's own drivers
 * have them. */
static herr_t vfd_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl,
    haddr_t addr, size_t size, void *buf)
{
	struct vfd_file *v = (struct vfd_file *)file;
	uint64_t eof = bale_sfile_size(v->f);
	unsigned char *to = buf;
	struct vfd_block *b;
	size_t at, take;

	(void)type;
	(void)dxpl;
	while (size > 0 && addr < eof) {
		b = vfd_block(v, addr / HDF5_VFD_BLOCK);
		if (!b)
			return -1;
		at = (size_t)(addr % HDF5_VFD_BLOCK);
		if (at >= b->len)
			break;
		take = b->len - at < size ? b->len - at : size;
		memcpy(to, b->data + at, take);
		to += take;
		addr += take;
		size -= take;
	}
	memset(to, 0, size);
	return 0;
}

static herr_t vfd_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl,
    haddr_t addr, size_t size, const void *buf)
{
	(void)file;
	(void)type;
	(void)dxpl;
	(void)addr;
	(void)size;
	(void)buf;
	return -1;
}

static const H5FD_class_t vfd_class = {
	.name = "bale_store",
	.maxaddr = (haddr_t)1 << 62,
	.fc_degree = H5F_CLOSE_WEAK,
	/* the driver's information: the file's size, when the reader knows
	 * it (it opened the file itself), so that opening asks nothing */
	.fapl_size = sizeof(uint64_t),
	.open = vfd_open,
	.close = vfd_close,
	.cmp = vfd_cmp,
	.query = vfd_query,
	.get_eoa = vfd_get_eoa,
	.set_eoa = vfd_set_eoa,
	.get_eof = vfd_get_eof,
	.read = vfd_read,
	.write = vfd_write,
	.fl_map = H5FD_FLMAP_DICHOTOMY,
};

static void vfd_register(void)
{
	vfd_id = H5FDregister(&vfd_class);
}

hid_t bale_hdf5_open_read(const char *path, uint64_t size)
{
	hid_t fapl, file;

	if (bale_store_is_local(path))
		return H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	pthread_once(&vfd_once, vfd_register);
	fapl = vfd_id >= 0 ? H5Pcreate(H5P_FILE_ACCESS) : -1;
	if (fapl < 0 || H5Pset_driver(fapl, vfd_id, &size) < 0) {
		if (fapl >= 0)
			H5Pclose(fapl);
		return -1;
	}
	file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
	H5Pclose(fapl);
	return file;
}
