/* folder_read.c - the raw ImageFolder tree as a read-only backend, the
 * folder source kind's reader (source_folder.c).
 *
 * The benchmark's baseline: samples in torchvision order (walk.c),
 * each read as a PyTorch ImageFolder does, open + fstat + read + close;
 * in an object store, the tree's objects listed as the pack lists them
 * (walk_bucket.c: the same classes and order) and each read with one
 * GET, as a loader of small objects does.
 */
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_store.h"

#include "clock.h"
#include "input.h"
#include "relpath.h"
#include "walk.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct folder_r {
	struct bale_walk *walk;
	char *root;
	int rootfd;
	unsigned char *buf;
	size_t bufcap;
	char key[32];
	char **files;		/* built on first files() call */
	struct bale_buf info;
	struct bale_buf path;	/* the sample's, decoded from the walk */
	int remote;		/* the tree is in an object store */
	double list_seconds;	/* remote: what listing it took */
	char *data;		/* remote: the last sample's bytes */
};

static int folder_open(struct bale_reader *r, void *priv, const char *path)
{
	struct folder_r *st = priv;
	double t0 = bale_clock_now();
	int rc;

	st->rootfd = -1;
	st->remote = !bale_store_is_local(path);
	st->root = bale_strfmt("%.*s", bale_path_trim_len(path), path);
	if (!st->root || bale_walk_new(&st->walk) != BALE_OK)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	rc = st->remote ? bale_walk_bucket(st->walk, path, NULL) :
	    bale_walk_folder(st->walk, path);
	st->list_seconds = bale_clock_now() - t0;
	if (rc != BALE_OK)
		return bale_reader_seterr(r, rc, "%s",
		    bale_walk_errmsg(st->walk));
	if (st->remote)
		return BALE_OK;
	st->rootfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return st->rootfd >= 0 ? BALE_OK : bale_reader_seterr(r, BALE_EIO,
	    "cannot open '%s'", path);
}

static int folder_count(struct bale_reader *r, void *priv, uint64_t *n)
{
	const struct folder_r *st = priv;

	(void)r;
	*n = bale_walk_count(st->walk);
	return BALE_OK;
}

/* Sample @path of a tree in an object store: one GET. */
static int folder_get_remote(struct bale_reader *r, struct folder_r *st,
    const char *path, struct bale_blob *out)
{
	struct bale_errbuf err;
	char *name = bale_strfmt("%s/%s", st->root, path);
	size_t n;
	int rc;

	free(st->data);
	st->data = NULL;
	rc = name ? bale_store_read_all(name, &st->data, &n, &err) :
	    bale_errbuf_set(&err, BALE_ENOMEM, "no memory");
	free(name);
	if (rc != BALE_OK)
		return bale_reader_seterr(r, rc, "%s", err.msg);
	out->data = bale_reader_data_buffer(r, (unsigned char *)st->data, n);
	if (!out->data)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	if (out->data != (const unsigned char *)st->data)
		memcpy((void *)out->data, st->data, n);
	out->size = n;
	return BALE_OK;
}

/* Sample @path of a tree on disk, read as ImageFolder reads a file. */
static int folder_get_local(struct bale_reader *r, struct folder_r *st,
    const char *path, struct bale_blob *out)
{
	struct bale_input in;

	if (bale_input_open(&in, st->rootfd, path) != 0)
		return bale_reader_seterr(r, BALE_EIO, "'%s': %s", path,
		    in.err.msg);
	if (bale_grow(&st->buf, &st->bufcap, in.size ? in.size : 1) != 0 ||
	    !(out->data = bale_reader_data_buffer(r, st->buf, in.size))) {
		bale_input_close(&in);
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	}
	out->size = in.size;
	if (bale_input_read(&in, (unsigned char *)out->data) != 0)
		return bale_reader_seterr(r, BALE_EIO, "'%s': %s", path,
		    in.err.msg);
	return BALE_OK;
}

static int folder_get(struct bale_reader *r, void *priv, uint64_t i,
    struct bale_blob *out)
{
	struct folder_r *st = priv;
	const char *path;
	int rc;

	if (i >= bale_walk_count(st->walk))
		return bale_reader_seterr(r, BALE_EINVAL, "no sample %"
		    PRIu64, i);
	path = bale_walk_path(st->walk, (size_t)i, &st->path);
	if (!path)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	rc = st->remote ? folder_get_remote(r, st, path, out) :
	    folder_get_local(r, st, path, out);
	if (rc != BALE_OK)
		return rc;
	snprintf(st->key, sizeof(st->key), "%010" PRIu64, i);
	out->key = st->key;
	out->path = path;
	out->label = bale_walk_label(st->walk, (size_t)i);
	return BALE_OK;
}

static int folder_label(struct bale_reader *r, void *priv, uint64_t i,
    int64_t *label)
{
	const struct folder_r *st = priv;

	(void)r;
	*label = bale_walk_label(st->walk, (size_t)i);
	return BALE_OK;
}

static int folder_files(struct bale_reader *r, void *priv,
    const char *const **list)
{
	struct folder_r *st = priv;
	size_t n = bale_walk_count(st->walk);
	const char *path;
	size_t i;

	if (!st->files) {
		st->files = calloc(n + 1, sizeof(char *));
		for (i = 0; st->files && i < n; i++) {
			path = bale_walk_path(st->walk, i, &st->path);
			st->files[i] = path ? bale_strfmt("%s/%s", st->root,
			    path) : NULL;
			if (!st->files[i])
				return bale_reader_seterr(r, BALE_ENOMEM,
				    "no memory");
		}
		if (!st->files)
			return bale_reader_seterr(r, BALE_ENOMEM,
			    "no memory");
	}
	*list = (const char *const *)st->files;
	return BALE_OK;
}

static int folder_info(struct bale_reader *r, void *priv, const char **json)
{
	struct folder_r *st = priv;
	size_t i, n = bale_walk_nclasses(st->walk);
	const char *const *classes = bale_walk_classes(st->walk);

	bale_buf_reset(&st->info);
	bale_buf_puts(&st->info, "{\"classes\":[");
	for (i = 0; i < n; i++) {
		bale_buf_puts(&st->info, i ? "," : "");
		bale_json_str(&st->info, classes[i]);
	}
	bale_buf_puts(&st->info, "]");
	if (st->remote)	/* what the listing cost, in a store */
		bale_buf_printf(&st->info, ",\"listed_in_s\":%.3f",
		    st->list_seconds);
	bale_buf_puts(&st->info, "}");
	if (st->info.failed)
		return bale_reader_seterr(r, BALE_ENOMEM, "no memory");
	*json = st->info.data;
	return BALE_OK;
}

static void folder_release(void *priv)
{
	struct folder_r *st = priv;
	size_t i;

	bale_buf_release(&st->info);
	bale_buf_release(&st->path);
	for (i = 0; st->files && st->files[i]; i++)
		free(st->files[i]);
	free(st->files);
	if (st->rootfd >= 0)
		close(st->rootfd);
	bale_walk_free(st->walk);
	free(st->data);
	free(st->root);
	free(st->buf);
}

static const struct bale_reader_ops folder_reader = {
	.open = folder_open,
	.count = folder_count,
	.get = folder_get,
	.files = folder_files,
	.info = folder_info,
	.release = folder_release,
	.label = folder_label,
};

const struct bale_backend bale_backend_folder = {
	.abi = BALE_BACKEND_ABI,
	.name = "folder",
	.summary = "the raw ImageFolder tree, read file by file (baseline)",
	.caps = BALE_CAP_RANDOM | BALE_CAP_THREADS | BALE_CAP_REMOTE,
	.reader_priv = sizeof(struct folder_r),
	.reader = &folder_reader,
};
