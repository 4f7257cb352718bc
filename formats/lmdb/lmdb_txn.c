/* lmdb_txn.c - the writer's environment and transactions, as a fresh
 * run (lmdb_write.c) and a resume (lmdb_resume.c) both start them: its
 * paths, claiming the output, opening the environment, beginning and
 * committing, and how the writer says it failed. */
#include "lmdb_write.h"

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "lmdb_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* LMDB turns a short write into EIO: when errno is still set, it says
 * why (a full disk, a file-size limit); else say what EIO may mean. */
int bale_lmdb_fail(struct bale_writer *w, const struct lmdb_w *st,
    const char *what, int err)
{
	int sys = errno;
	const char *why = mdb_strerror(err);

	if (err == EIO && (sys == ENOSPC || sys == EFBIG || sys == EDQUOT))
		why = strerror(sys);
	else if (err == EIO)
		why = "a write came up short (disk full, or a file-size "
		    "limit reached?)";

	return bale_writer_seterr(w, err == ENOMEM ? BALE_ENOMEM :
	    BALE_EBACKEND, "'%s': %s: %s", st->tmp, what, why);
}

/* Remove an LMDB output at @path (folder or single file) and its lock. */
int bale_lmdb_remove(const char *path, int nosubdir)
{
	char *data = bale_strfmt("%s/data.mdb", path);
	char *lock = bale_strfmt(nosubdir ? "%s-lock" : "%s/lock.mdb", path);
	int rc = 0;

	if (!data || !lock)
		rc = -1;
	else if (nosubdir)
		rc = unlink(path) != 0 && errno != ENOENT ? -1 : 0;
	else if ((unlink(data) != 0 && errno != ENOENT) ||
	    (unlink(lock) != 0 && errno != ENOENT) ||
	    (rmdir(path) != 0 && errno != ENOENT))
		rc = -1;
	if (rc == 0 && lock && nosubdir)
		unlink(lock);
	free(data);
	free(lock);
	return rc;
}

static int lmdb_claim_output(struct bale_writer *w, struct lmdb_w *st,
    int replace)
{
	struct stat sb;
	int exists = lstat(st->final, &sb) == 0;

	if (exists && !replace)
		return bale_writer_seterr(w, BALE_EEXIST,
		    "'%s' exists",
		    st->final);
	if (exists && bale_lmdb_remove(st->final, S_ISREG(sb.st_mode)) != 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "cannot remove the old '%s': %s", st->final,
		    strerror(errno));
	if (lstat(st->tmp, &sb) == 0 &&
	    bale_lmdb_remove(st->tmp, st->nosubdir) != 0)
		return bale_writer_seterr(w, BALE_EIO, "cannot remove "
		    "'%s', left by an earlier run: %s", st->tmp,
		    strerror(errno));
	if (!st->nosubdir && mkdir(st->tmp, 0777) != 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "cannot create '%s': %s", st->tmp, strerror(errno));
	return BALE_OK;
}

int bale_lmdb_begin(struct bale_writer *w, struct lmdb_w *st)
{
	int err = mdb_txn_begin(st->env, NULL, 0, &st->txn);

	if (err == 0)
		err = mdb_dbi_open(st->txn, NULL, 0, &st->dbi);
	st->txn_pages = LMDB_TXN_SLACK_PAGES;
	st->txn_bytes = 0;
	return err ? bale_lmdb_fail(w, st, "cannot begin a transaction", err) :
	    BALE_OK;
}

int bale_lmdb_paths(struct bale_writer *w, struct lmdb_w *st,
    const char *dir, const struct bale_dataset *ds)
{
	st->final = bale_strfmt("%s/%s.lmdb", dir, ds->name);
	st->tmp = bale_strfmt("%s/%s.lmdb%s", dir, ds->name, BALE_PARTIAL);
	bale_meta_classes(&st->classes, ds);
	/* the key and label lists wait beside the output, not in memory */
	if (!st->final || !st->tmp || st->classes.failed ||
	    bale_spill_init(&st->keys, dir) != 0 ||
	    bale_spill_init(&st->labels, dir) != 0)
		return bale_writer_seterr(w, BALE_ENOMEM, "no memory");
	return BALE_OK;
}

/* Open the environment at st->tmp (new, or left by a run we resume:
 * LMDB then raises the map to what the file already holds). */
int bale_lmdb_env_start(struct bale_writer *w, struct lmdb_w *st,
    const struct bale_dataset *ds)
{
	unsigned flags = MDB_NOSYNC | MDB_NOMETASYNC | MDB_NORDAHEAD;
	MDB_envinfo info;
	MDB_stat stat;
	int err;

	st->mapsize = LMDB_MIN_MAP;
	if (ds->nitems > st->mapsize / LMDB_MAP_PER_SAMPLE)
		st->mapsize = (size_t)ds->nitems * LMDB_MAP_PER_SAMPLE;
	if (st->map_option)
		st->mapsize = (size_t)st->map_option;
	flags |= st->nosubdir ? MDB_NOSUBDIR : 0;
	err = mdb_env_create(&st->env);
	if (err == 0)
		err = mdb_env_set_mapsize(st->env, st->mapsize);
	if (err == 0)
		err = mdb_env_open(st->env, st->tmp, flags, 0644);
	if (err == 0)
		err = mdb_env_stat(st->env, &stat);
	if (err == 0)
		err = mdb_env_info(st->env, &info);
	if (err)
		return bale_lmdb_fail(w, st, "cannot open", err);
	st->psize = stat.ms_psize;
	st->mapsize = info.me_mapsize;
	st->used_pages = info.me_last_pgno + 1;
	return BALE_OK;
}

int bale_lmdb_start_fresh(struct bale_writer *w, struct lmdb_w *st,
    const struct bale_dataset *ds)
{
	int rc = lmdb_claim_output(w, st, ds->replace);

	if (rc == BALE_OK)
		rc = bale_lmdb_env_start(w, st, ds);
	return rc == BALE_OK ? bale_lmdb_begin(w, st) : rc;
}

/* Commit, and start the kernel writing the pages out in the background. */
int bale_lmdb_commit(struct bale_writer *w, struct lmdb_w *st)
{
	MDB_envinfo info;
	int err = mdb_txn_commit(st->txn);
	int fd;

	st->txn = NULL;
	if (err)
		return bale_lmdb_fail(w, st, "cannot commit", err);
	/* a commit in the middle of a sample covers those before it */
	if (st->have_sample) {
		st->ckpt_next = st->last_index + 1;
		bale_writer_reached(w, st->ckpt_next, NULL);
	}
	if (mdb_env_info(st->env, &info) == 0) {
		st->used_pages = info.me_last_pgno + 1;
		bale_lmdb_let_go(st->env, st->used_pages * st->psize);
	}
	if (st->sync && mdb_env_get_fd(st->env, &fd) == 0)
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	return BALE_OK;
}

void bale_lmdb_note_label(struct lmdb_w *st, int64_t label)
{
	int32_t l = (int32_t)label;

	if (label < BALE_LABEL_NONE || label > INT32_MAX)
		st->labels_unfit = 1;
	bale_spill_add(&st->labels, &l, sizeof(l));
}
