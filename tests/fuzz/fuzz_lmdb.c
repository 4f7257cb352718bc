/* fuzz_lmdb.c - the LMDB reader's record decoders on hostile records.
 *
 * Each input becomes a well-formed LMDB file whose keys and values are
 * the fuzzer's: the reader then decodes what bale put in the values (the
 * __keys__ list, K.cls labels, K.json metadata, Caffe Datum protobufs),
 * which is bale's code. LMDB's own page format is not fuzzed: liblmdb
 * trusts its file (it has no checksums and its documentation says a
 * corrupt file is undefined behaviour), so hostile pages would find
 * liblmdb's crashes, not bale's.
 *
 * Input: one byte of reader options (bit 0: meta=0, bit 1: map=1), then
 * records: key length (1 byte, 0 ends the input), key, value length
 * (2 bytes little-endian), value. Values over a page exercise LMDB's
 * overflow pages and so the reader's pread path. */
#include "bale.h"
#include "check.h"
#include "scratch.h"

#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define FUZZ_MAX_READS 256	/* samples read per input */
#define FUZZ_MAP_SIZE ((size_t)64 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Take @n bytes from the input; NULL when it holds fewer. */
static const uint8_t *fuzz_take(const uint8_t **p, size_t *left, size_t n)
{
	const uint8_t *got = *p;

	if (*left < n)
		return NULL;
	*p += n;
	*left -= n;
	return got;
}

/* Put every whole record of the input; LMDB refusing one (an empty key,
 * a key over its limit) is the input's problem, not a failure. */
static void fuzz_put_records(MDB_txn *txn, MDB_dbi dbi, const uint8_t *p,
    size_t left)
{
	const uint8_t *len;
	MDB_val k;
	MDB_val v;

	while ((len = fuzz_take(&p, &left, 1)) != NULL && *len) {
		k.mv_size = *len;
		k.mv_data = (void *)fuzz_take(&p, &left, k.mv_size);
		len = k.mv_data ? fuzz_take(&p, &left, 2) : NULL;
		if (!len)
			return;
		v.mv_size = (size_t)len[0] | (size_t)len[1] << 8;
		v.mv_data = (void *)fuzz_take(&p, &left, v.mv_size);
		if (!v.mv_data)
			return;
		(void)mdb_put(txn, dbi, &k, &v, 0);
	}
}

/* A new LMDB file at @path holding the input's records. */
static void fuzz_write(const char *path, const uint8_t *p, size_t left)
{
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_dbi dbi;
	int err;

	unlink(path);
	err = mdb_env_create(&env);
	if (err == 0)
		err = mdb_env_set_mapsize(env, FUZZ_MAP_SIZE);
	if (err == 0)
		err = mdb_env_open(env, path, MDB_NOSUBDIR | MDB_NOSYNC |
		    MDB_NOLOCK, 0644);
	if (err == 0)
		err = mdb_txn_begin(env, NULL, 0, &txn);
	if (err == 0)
		err = mdb_dbi_open(txn, NULL, 0, &dbi);
	if (err == 0)
		fuzz_put_records(txn, dbi, p, left);
	if (err == 0)
		err = mdb_txn_commit(txn);
	if (err)
		abort();
	mdb_env_close(env);
}

static void fuzz_get_all(struct bale_reader *r, uint64_t n)
{
	struct bale_blob b;
	uint64_t i;

	for (i = 0; i < n && i < FUZZ_MAX_READS; i++)
		if (bale_reader_get(r, i, &b) == BALE_OK)
			fuzz_check_blob(&b);
}

static void fuzz_read(const char *path, unsigned options)
{
	struct bale_reader *r = NULL;
	const char *info;
	uint64_t n;

	if (bale_reader_new(&r) != BALE_OK)
		abort();
	if (options & 1)
		(void)bale_reader_option(r, "meta", "0");
	if (options & 2)
		(void)bale_reader_option(r, "map", "1");
	if (bale_reader_open(r, "lmdb", path) == BALE_OK &&
	    bale_reader_count(r, &n) == BALE_OK) {
		(void)bale_reader_info(r, &info);
		fuzz_get_all(r, n);
		/* again: with map=1, repeat reads come from the map */
		fuzz_get_all(r, n);
	}
	bale_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;

	if (size < 1)
		return 0;
	path = fuzz_scratch_path("f.lmdb");
	fuzz_write(path, data + 1, size - 1);
	fuzz_read(path, data[0]);
	return 0;
}
