/* walk.c - collect and order the samples of a folder tree or list file. */
#include "walk_int.h"

#include "bale.h"
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "bale_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folders above the one being read, to spot symlink loops. */
struct walk_frame {
	dev_t dev;
	ino_t ino;
	const struct walk_frame *up;
};

int bale_walk_new(struct bale_walk **out)
{
	struct bale_walk *w = calloc(1, sizeof(*w));

	if (!w)
		return BALE_ENOMEM;
	w->rootfd = -1;
	*out = w;
	return BALE_OK;
}

void bale_walk_set_stop(struct bale_walk *w, const atomic_int *stop)
{
	w->stop = stop;
}

void bale_walk_set_kinds(struct bale_walk *w,
    const struct bale_source_kind *const *kinds)
{
	w->kinds = kinds;
}

int bale_walk_set_archive_root(struct bale_walk *w, const char *root)
{
	struct bale_buf clean = BALE_BUF_INIT;

	if (bale_walk_clean_path(&clean, NULL, root) != 0) {
		bale_buf_release(&clean);
		return bale_errbuf_set(&w->err, BALE_EINVAL, "walk: the "
		    "folder holding the classes, '%s', must be a path "
		    "inside the archive (not absolute, no '..')", root);
	}
	if (clean.failed) {
		bale_buf_release(&clean);
		return bale_walk_nomem(w);
	}
	free(w->root);
	w->root = clean.data;	/* NUL-terminated by the clean */
	return BALE_OK;
}

int bale_walk_set_columns(struct bale_walk *w, const char *image,
    const char *label)
{
	free(w->image_column);
	free(w->label_column);
	w->image_column = image ? strdup(image) : NULL;
	w->label_column = label ? strdup(label) : NULL;
	if ((image && !w->image_column) || (label && !w->label_column))
		return bale_walk_nomem(w);
	return BALE_OK;
}

int bale_walk_archive_root_used(const struct bale_walk *w)
{
	return w->root_used;
}

/* 1 if the entry is a folder, following symlinks as os.walk does. */
static int walk_is_dir(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type == DT_DIR)
		return 1;
	if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
		return 0;
	if (fstatat(dirfd, de->d_name, &st, 0) != 0)
		return 0;	/* a broken link is a file to torchvision */
	return S_ISDIR(st.st_mode);
}

static int walk_is_loop(const struct walk_frame *f, const struct stat *st)
{
	for (; f; f = f->up)
		if (f->dev == st->st_dev && f->ino == st->st_ino)
			return 1;
	return 0;
}

/* Open @rel below the root as a folder; a refusal becomes a note. */
static DIR *walk_opendir(struct bale_walk *w, const char *rel,
    const struct walk_frame *up, struct walk_frame *self)
{
	char reason[256];
	struct stat st;
	DIR *d;
	int fd;

	fd = openat(w->rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(reason, sizeof(reason), "cannot open folder: %s",
		    strerror(errno));
		goto out_note;
	}
	if (walk_is_loop(up, &st)) {
		snprintf(reason, sizeof(reason),
		    "symlink loop: folder already being walked");
		goto out_note;
	}
	self->dev = st.st_dev;
	self->ino = st.st_ino;
	self->up = up;
	d = fdopendir(fd);
	if (d)
		return d;
	snprintf(reason, sizeof(reason), "cannot read folder: %s",
	    strerror(errno));
out_note:
	if (fd >= 0)
		close(fd);
	bale_walk_add_note(w, BALE_NOTE_SKIPPED, rel, reason);
	return NULL;
}

static int walk_tree(struct bale_walk *w, struct bale_buf *rel,
    int64_t label, const struct walk_frame *up);

/* Handle one entry of folder @rel (a subfolder or a file). */
static int walk_entry(struct bale_walk *w, struct bale_buf *rel,
    int64_t label, const struct walk_frame *frame, const struct dirent *de,
    int dirfd)
{
	size_t dirlen = rel->len;
	int rc;

	bale_buf_add(rel, "/", 1);
	bale_buf_puts(rel, de->d_name);
	if (rel->failed)
		return bale_walk_nomem(w);
	if (walk_is_dir(dirfd, de))
		rc = walk_tree(w, rel, label, frame);
	else if (bale_walk_is_image(de->d_name))
		rc = bale_walk_add_item(w, rel->data, rel->len, dirlen, label);
	else
		rc = bale_walk_add_note(w, BALE_NOTE_IGNORED, rel->data,
		    "not an image extension");
	rel->len = dirlen;
	rel->data[dirlen] = '\0';
	return rc;
}

static int walk_tree(struct bale_walk *w, struct bale_buf *rel,
    int64_t label, const struct walk_frame *up)
{
	struct walk_frame frame;
	struct dirent *de;
	DIR *d;
	int rc = BALE_OK;

	d = walk_opendir(w, rel->data, up, &frame);
	if (!d)
		return w->err.rc;
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		rc = walk_entry(w, rel, label, &frame, de, dirfd(d));
		if (rc != BALE_OK)
			break;
	}
	if (rc == BALE_OK && errno != 0)
		rc = bale_walk_add_note(w, BALE_NOTE_SKIPPED, rel->data,
		    strerror(errno));
	closedir(d);
	return rc;
}

static int walk_cmp_classes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Class folders of the root; other entries are noted as ignored. */
static int walk_find_classes(struct bale_walk *w, const char *root)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *d;
	int rc = BALE_OK;

	d = fdopendir(dup(w->rootfd));
	if (!d)
		return bale_errbuf_set(&w->err, BALE_EIO,
		    "walk: cannot read '%s': %s", root, strerror(errno));
	while (rc == BALE_OK && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (!walk_is_dir(w->rootfd, de)) {
			rc = bale_walk_note_outside(w, de->d_name,
			    bale_walk_is_image(de->d_name));
			continue;
		}
		if (bale_grow_array((void **)&w->classes, &cap, w->nclasses + 1,
		    sizeof(char *)) != 0 ||
		    !(w->classes[w->nclasses] = strdup(de->d_name)))
			rc = bale_walk_nomem(w);
		else
			w->nclasses++;
	}
	closedir(d);
	if (rc == BALE_OK && w->nclasses == 0)
		rc = bale_errbuf_set(&w->err, BALE_ENOENT,
		    "walk: no class folder in '%s' (expected ROOT/CLASS/IMAGE)",
		    root);
	if (rc == BALE_OK)
		qsort(w->classes, w->nclasses, sizeof(char *),
		    walk_cmp_classes);
	return rc;
}

static int walk_open_root(struct bale_walk *w, const char *root)
{
	w->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->rootfd < 0)
		return bale_errbuf_set(&w->err,
		    errno == ENOENT ? BALE_ENOENT : BALE_EIO,
		    "walk: cannot open folder '%s': %s", root,
		    strerror(errno));
	return BALE_OK;
}

static int walk_classes(struct bale_walk *w)
{
	struct bale_buf rel = BALE_BUF_INIT;
	struct walk_frame root = { 0, 0, NULL };
	struct stat st;
	size_t i;
	int rc = BALE_OK;

	/* the root heads the chain, so a link back to it is a loop too */
	if (fstat(w->rootfd, &st) == 0) {
		root.dev = st.st_dev;
		root.ino = st.st_ino;
	}

	for (i = 0; rc == BALE_OK && i < w->nclasses; i++) {
		bale_buf_reset(&rel);
		bale_buf_puts(&rel, w->classes[i]);
		if (rel.failed) {
			rc = bale_walk_nomem(w);
			break;
		}
		rc = walk_tree(w, &rel, (int64_t)i, &root);
		if (rc == BALE_OK && w->nitems == 0)
			rc = bale_walk_add_note(w, BALE_NOTE_WARNING,
			    w->classes[i], "class folder holds no image; its "
			    "label is kept");
		/* the order's first key is the class: each class is
		 * ordered and sealed alone, so listing holds one at most */
		bale_walk_sort_items(w);
		if (rc == BALE_OK)
			rc = bale_walk_seal(w);
	}
	bale_buf_release(&rel);
	return rc;
}

int bale_walk_folder(struct bale_walk *w, const char *root)
{
	int rc;

	rc = walk_open_root(w, root);
	if (rc == BALE_OK)
		rc = walk_find_classes(w, root);
	if (rc == BALE_OK)
		rc = walk_classes(w);
	return rc == BALE_OK ? bale_walk_seal_all(w) : rc;
}

/* A listed file below the root: read (or found missing) later. */
static int walk_take_listed_file(struct bale_walk *w, const char *path,
    int64_t label, void *ctx)
{
	int rc = bale_walk_add_item(w, path, strlen(path), 0, label);

	(void)ctx;
	/* the list's order is the samples': sealed as they come, a
	 * chunk at a time, they wait in the store's few bytes each */
	if (rc == BALE_OK && w->nitems >= WALK_SEAL_EVERY)
		rc = bale_walk_seal(w);
	return rc;
}

int bale_walk_list(struct bale_walk *w, const char *root, const char *list)
{
	struct walk_list_reader r = { walk_take_listed_file, NULL, -1 };
	int rc;

	rc = walk_open_root(w, root);
	if (rc == BALE_OK)
		rc = bale_walk_read_list(w, list, &r);
	return rc == BALE_OK ? bale_walk_seal_all(w) : rc;
}

size_t bale_walk_nclasses(const struct bale_walk *w)
{
	return w->nclasses;
}

const char *const *bale_walk_classes(const struct bale_walk *w)
{
	return (const char *const *)w->classes;
}

size_t bale_walk_damaged(const struct bale_walk *w, const char **path,
    const char **reason)
{
	enum bale_walk_note_kind kind;

	if (w->damaged)
		bale_walk_note(w, w->first_damage, &kind, path, reason);
	return w->damaged;
}

size_t bale_walk_nnotes(const struct bale_walk *w)
{
	return w->notes.n;
}

void bale_walk_note(const struct bale_walk *w, size_t i,
    enum bale_walk_note_kind *kind, const char **path, const char **reason)
{
	*kind = w->notes.v[i].kind;
	*path = w->note_text.data + w->notes.v[i].path;
	*reason = w->note_text.data + w->notes.v[i].reason;
}

const char *bale_walk_errmsg(const struct bale_walk *w)
{
	return w->err.msg;
}

void bale_walk_free(struct bale_walk *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; w->classes && i < w->nclasses; i++)
		free(w->classes[i]);
	free(w->classes);
	free(w->items);
	free(w->notes.v);
	bale_xsort_release(&w->candidates);
	bale_buf_release(&w->arena);
	bale_buf_release(&w->note_text);
	bale_walk_store_release(&w->store);
	if (w->rootfd >= 0)
		close(w->rootfd);
	for (i = 0; i < w->narchives; i++)
		bale_store_fd_close(w->archives[i]);
	free(w->archives);
	free(w->members);
	free(w->dataset);
	free(w->image_column);
	free(w->label_column);
	bale_walk_files_kept_release(w);
	free(w->dataset_format);
	free(w->root);
	bale_walk_release_held(w);
	bale_walk_classes_release(&w->found);
	bale_walk_sort_release(&w->sort);
	free(w);
}
