/* test_hdf5_btree.c - chunk addresses read from the file's chunk index
 * (formats/hdf5/hdf5_btree.c) are HDF5's own, chunk for chunk, for any
 * range of chunks; files laid out otherwise are refused, not misread. */
#include "check.h"

#include "hdf5_btree.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 16
#define NCHUNKS 5000	/* a tree of three levels with HDF5's 64 a node */

static char path[] = "/tmp/bale-btree-XXXXXX";

/* @size bytes into @dset, its whole extent. */
static herr_t write_all(hid_t dset, hsize_t size)
{
	unsigned char *b = calloc(size, 1);
	herr_t rc = b ? H5Dwrite(dset, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL,
	    H5P_DEFAULT, b) : -1;

	free(b);
	return rc;
}

/* A file in format @low..@high with "images": @n chunks of CHUNK bytes,
 * chunk @missing (if below @n) never written; or through deflate;
 * "other" grows beside it, so the chunks are not laid end to end. */
static void make_file(H5F_libver_t low, H5F_libver_t high, uint64_t n,
    uint64_t missing, int deflate)
{
	hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = CHUNK;
	hsize_t size, off;
	unsigned char buf[CHUNK];
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t space = H5Screate_simple(1, &dims, &maxdims);
	hid_t file, images, other;
	uint64_t c;

	H5Pset_libver_bounds(fapl, low, high);
	H5Pset_chunk(dcpl, 1, &chunk);
	if (deflate)
		H5Pset_deflate(dcpl, 1);
	file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	images = H5Dcreate2(file, "images", H5T_NATIVE_UCHAR, space,
	    H5P_DEFAULT, dcpl, H5P_DEFAULT);
	other = H5Dcreate2(file, "other", H5T_NATIVE_UCHAR, space,
	    H5P_DEFAULT, dcpl, H5P_DEFAULT);
	CHECK(file >= 0 && images >= 0 && other >= 0);
	for (c = 0; c < n && !deflate; c++) {
		size = (c + 1) * CHUNK;
		off = c * CHUNK;
		memset(buf, (int)(c & 0xff), sizeof(buf));
		H5Dset_extent(images, &size);
		if (c != missing)
			CHECK(H5Dwrite_chunk(images, H5P_DEFAULT, 0, &off,
			    CHUNK, buf) >= 0);
		if (c % 7 == 0) {
			H5Dset_extent(other, &size);
			H5Dwrite_chunk(other, H5P_DEFAULT, 0, &off, CHUNK, buf);
		}
	}
	if (deflate) {	/* through the filter: chunks of another size */
		size = n * CHUNK;
		H5Dset_extent(images, &size);
		CHECK(write_all(images, size) >= 0);
	}
	H5Dclose(other);
	H5Dclose(images);
	H5Fclose(file);
	H5Sclose(space);
	H5Pclose(dcpl);
	H5Pclose(fapl);
}

/* Chunks [first, first + n) of the file made last, read from its tree:
 * -1 refused, 0 read and HDF5's answer for each, 1 read but wrong. */
static int read_chunks(uint64_t first, uint64_t n)
{
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t images = H5Dopen2(file, "images", H5P_DEFAULT);
	struct bale_sfile *sf = NULL;
	struct bale_errbuf err;
	int opened = bale_sfile_open(&sf, path, &err) == BALE_OK;
	haddr_t *addr = calloc(n + 1, sizeof(*addr));
	haddr_t want;
	hsize_t off, bytes;
	unsigned mask;
	uint64_t c;
	int rc;

	CHECK(file >= 0 && images >= 0 && opened && addr);
	rc = bale_hdf5_chunk_addrs(images, sf, CHUNK, first, n, addr);
	for (c = 0; rc == 0 && c < n; c++) {
		off = (first + c) * CHUNK;
		if (H5Dget_chunk_info_by_coord(images, &off, &mask, &want,
		    &bytes) < 0 || want != addr[c])
			rc = 1;
	}
	free(addr);
	bale_sfile_close(sf);
	H5Dclose(images);
	H5Fclose(file);
	return rc;
}

/* Every range a reader asks for: all, a merged file's run from inside,
 * the first chunk, the last alone. */
static void check_ranges(void)
{
	CHECK_EQ(0, read_chunks(0, NCHUNKS));
	CHECK_EQ(0, read_chunks(1234, 777));
	CHECK_EQ(0, read_chunks(0, 1));
	CHECK_EQ(0, read_chunks(NCHUNKS - 1, 1));
	CHECK_EQ(-1, read_chunks(NCHUNKS - 1, 2));	/* past the end */
}

int main(void)
{
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	/* what bale writes: the 1.8 format, version 2 object headers */
	make_file(H5F_LIBVER_V18, H5F_LIBVER_LATEST, NCHUNKS, NCHUNKS, 0);
	check_ranges();
	/* files of the oldest format: version 1 object headers */
	make_file(H5F_LIBVER_EARLIEST, H5F_LIBVER_LATEST, NCHUNKS, NCHUNKS,
	    0);
	check_ranges();
	/* a chunk never written: refused across it, read around it */
	make_file(H5F_LIBVER_V18, H5F_LIBVER_LATEST, 300, 150, 0);
	CHECK_EQ(-1, read_chunks(0, 300));
	CHECK_EQ(0, read_chunks(0, 150));
	CHECK_EQ(0, read_chunks(151, 149));
	/* filtered chunks, and the 1.10 format's other indexes: refused */
	make_file(H5F_LIBVER_V18, H5F_LIBVER_LATEST, 300, 300, 1);
	CHECK_EQ(-1, read_chunks(0, 300));
	make_file(H5F_LIBVER_V110, H5F_LIBVER_LATEST, 300, 300, 0);
	CHECK_EQ(-1, read_chunks(0, 300));
	unlink(path);
	return CHECK_DONE();
}
