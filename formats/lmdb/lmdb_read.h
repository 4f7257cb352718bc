/* lmdb_read.h - the LMDB backend's reader (formats/lmdb_read.c), for the
 * backend table in formats/lmdb.c, which needs the handle's size. */
#ifndef BALE_LMDB_READ_H
#define BALE_LMDB_READ_H

#include "bale_backend.h"
#include "bale_backend_util.h"


#include <lmdb.h>

struct lmdb_env;
struct lmdb_view;

/* One reader handle: its own transaction and cursor on a shared file,
 * and the view of the version the transaction reads. */
struct lmdb_r {
	struct lmdb_env *e;
	struct lmdb_view *v;
	MDB_txn *txn;
	MDB_cursor *cursor;
	long page;
	unsigned char *buf;	/* pread target */
	size_t bufcap;
	int no_meta;		/* meta=0: bytes and label only */
	int map_reads;		/* map=1: repeat reads from the map */
	uint64_t at;		/* the last get's bytes: their offset in
				 * the data file, when at_known */
	int at_known;
	struct bale_buf info;
	char key[40];
	char *path;
	char *files[2];
};

extern const struct bale_reader_ops bale_lmdb_reader;

#endif
