/* lmdb_records.c - every record of an environment another run wrote,
 * in key order: what merge (the parts) and update (the delta) copy. */
#include "lmdb_env.h"
#include "lmdb_write.h"

#include <lmdb.h>

#include <stdlib.h>
#include <sys/mman.h>

/* Map the environment's pages in one call rather than a fault per page:
 * every page is read, and on a VM a fault costs microseconds (it was
 * most of a merge's time). Best effort: older kernels lack the advice. */
static void lmdb_records_populate(MDB_env *env)
{
#ifdef MADV_POPULATE_READ
	MDB_envinfo info;
	MDB_stat st;

	if (mdb_env_info(env, &info) == 0 && mdb_env_stat(env, &st) == 0)
		madvise(info.me_mapaddr, (info.me_last_pgno + 1) *
		    (size_t)st.ms_psize, MADV_POPULATE_READ);
#else
	(void)env;
#endif
}

int bale_lmdb_each_record(const char *path, int nosubdir,
    int (*fn)(void *ctx, MDB_val *k, MDB_val *v), void *ctx,
    struct bale_errbuf *err)
{
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_cursor *cur = NULL;
	MDB_dbi dbi;
	MDB_val k, v;
	int e, rc = BALE_OK;

	e = mdb_env_create(&env);
	if (!e)
		e = mdb_env_open(env, path, MDB_RDONLY | MDB_NOLOCK |
		    (nosubdir ? MDB_NOSUBDIR : 0), 0644);
	if (!e && !bale_lmdb_env_fits(env, path, nosubdir))
		rc = bale_errbuf_set(err, BALE_EBACKEND, "lmdb: '%s' is cut "
		    "short: its data file lacks pages it uses", path);
	if (!e && rc == BALE_OK)
		lmdb_records_populate(env);
	if (!e)
		e = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
	if (!e)
		e = mdb_dbi_open(txn, NULL, 0, &dbi);
	if (!e)
		e = mdb_cursor_open(txn, dbi, &cur);
	while (!e && rc == BALE_OK && !(e = mdb_cursor_get(cur, &k, &v,
	    MDB_NEXT)))
		rc = fn(ctx, &k, &v);
	if (rc == BALE_OK && e != MDB_NOTFOUND)
		rc = bale_errbuf_set(err, BALE_EIO, "lmdb: cannot read '%s': "
		    "%s", path, mdb_strerror(e));
	if (cur)
		mdb_cursor_close(cur);
	if (txn)
		mdb_txn_abort(txn);
	mdb_env_close(env);
	return rc;
}
