/* hdf5_remote.c - an HDF5 output in an object store (bale pack -o
 * s3://bucket/out/ -f hdf5).
 *
 * The HDF5 library writes its file in place (it goes back to its tables
 * as the file grows), which an object cannot be: the file is made in a
 * staging folder on local disk ($TMPDIR/bale-h5-XXXXXX, as large as the
 * output) and uploaded at publish, as a multipart upload whose object
 * appears only once whole, its .bidx after it. A run replacing an output
 * removes the old .bidx first (readers then take the file's own tables,
 * which are right for either file), the new file then replaces the old
 * in one completion. A resumed run writes the file again: its staging
 * folder was the killed run's.
 */
#include "hdf5_index.h"
#include "hdf5_write.h"

#include "bale_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


int bale_hdf5_remote_paths(struct bale_writer *w, struct hdf5_w *st,
    const char *dir, const struct bale_dataset *ds)
{
	if (bale_store_is_local(dir))
		return bale_hdf5_paths(w, st, dir, ds);
	st->remote = bale_strfmt("%s/%s.h5", dir, ds->name);
	if (!st->remote)
		return bale_hdf5_wnomem(w);
	st->stage = bale_file_stage_new("bale-h5");
	if (!st->stage)
		return bale_writer_seterr(w, BALE_EIO, "cannot make a staging "
		    "folder for '%s' in $TMPDIR: %s", st->remote,
		    strerror(errno));
	return bale_hdf5_paths(w, st, st->stage, ds);
}

int bale_hdf5_remote_claim(struct bale_writer *w, struct hdf5_w *st,
    int replace)
{
	struct bale_store_stat sb;
	struct bale_errbuf err;
	int rc = bale_store_stat(st->remote, &sb, &err);

	if (rc == BALE_OK && !replace)
		return bale_writer_seterr(w, BALE_EEXIST, "'%s' exists",
		    st->remote);
	if (rc == BALE_ENOENT || rc == BALE_OK)
		return BALE_OK;
	return bale_writer_seterr(w, rc, "%s", err.msg);
}

int bale_hdf5_remote_publish(struct bale_writer *w, struct hdf5_w *st)
{
	char *bidx = bale_hdf5_index_path(st->remote);
	char *staged = bale_hdf5_index_path(st->final);
	struct bale_errbuf err;
	int rc = bidx && staged ? BALE_OK : BALE_ENOMEM;

	if (rc == BALE_OK)
		rc = bale_store_remove(bidx, &err);
	if (rc == BALE_OK)
		rc = bale_store_copy(st->tmp, st->remote, &err);
	/* an output too large for a compact index has none */
	if (rc == BALE_OK && access(staged, F_OK) == 0)
		rc = bale_store_copy(staged, bidx, &err);
	if (rc == BALE_ENOMEM)
		bale_writer_seterr(w, rc, "no memory");
	else if (rc != BALE_OK)
		bale_writer_seterr(w, rc, "%s", err.msg);
	free(bidx);
	free(staged);
	return rc;
}

void bale_hdf5_remote_release(struct hdf5_w *st)
{
	if (st->stage)
		(void)bale_file_remove_tree(st->stage);
	free(st->stage);
	free(st->remote);
	st->stage = NULL;
	st->remote = NULL;
}
