/* lmdb_records.c - every record of an environment another run wrote,
 * in key order: what merge (the parts) and update (the delta) copy. */
#include "lmdb_env.h"
#include "lmdb_pages.h"
#include "lmdb_write.h"

#include <lmdb.h>

#include <stdint.h>
#include <stdlib.h>

/* The pages read are let go every BALE_LMDB_LET_GO_EVERY records:
 * copying millions holds only so many in memory. */
int bale_lmdb_each_record(const char *path, int nosubdir,
    int (*fn)(void *ctx, MDB_val *k, MDB_val *v), void *ctx,
    struct bale_errbuf *err)
{
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_cursor *cur = NULL;
	MDB_dbi dbi;
	MDB_val k, v;
	uint64_t n = 0;
	int e, rc = BALE_OK;

	e = mdb_env_create(&env);
	if (!e)
		e = mdb_env_open(env, path, MDB_RDONLY | MDB_NOLOCK |
		    (nosubdir ? MDB_NOSUBDIR : 0), 0644);
	if (!e && !bale_lmdb_env_fits(env, path, nosubdir))
		rc = bale_errbuf_set(err, BALE_EBACKEND, "'%s' is cut "
		    "short: its data file lacks pages it uses", path);
	if (!e)
		e = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
	if (!e)
		e = mdb_dbi_open(txn, NULL, 0, &dbi);
	if (!e)
		e = mdb_cursor_open(txn, dbi, &cur);
	while (!e && rc == BALE_OK && !(e = mdb_cursor_get(cur, &k, &v,
	    MDB_NEXT))) {
		rc = fn(ctx, &k, &v);
		if (++n % BALE_LMDB_LET_GO_EVERY == 0)
			bale_lmdb_let_go(env, SIZE_MAX);
	}
	if (rc == BALE_OK && e != MDB_NOTFOUND)
		rc = bale_errbuf_set(err, BALE_EIO, "cannot read '%s': "
		    "%s", path, mdb_strerror(e));
	if (cur)
		mdb_cursor_close(cur);
	if (txn)
		mdb_txn_abort(txn);
	mdb_env_close(env);
	return rc;
}
