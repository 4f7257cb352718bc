/* stage.c - an output replaced only once its successor is complete. */
#include "stage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAGE_ASIDE ".replaced-"	/* old files moved into the stage */

/* The names in a folder that belong to one output. */
struct stage_names {
	char **v;
	size_t n;
	size_t cap;
};

char *bale_stage_dir(const char *out, const char *name)
{
	return bale_strfmt("%s/.%s-replace", out, name);
}

static void stage_names_release(struct stage_names *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int stage_names_add(struct stage_names *s, const char *name)
{
	char **v;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		v = realloc(s->v, s->cap * sizeof(*v));
		if (!v)
			return -1;
		s->v = v;
	}
	s->v[s->n] = strdup(name);
	return s->v[s->n++] ? 0 : -1;
}

static int stage_names_has(const struct stage_names *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return 1;
	return 0;
}

/* The entries of @dir that are @be's output @name. */
static int stage_list(const struct bale_backend *be, const char *dir,
    const char *name, struct stage_names *out, struct bale_errbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = BALE_OK;

	if (!d)
		return bale_errbuf_set(err, BALE_EIO, "cannot list '%s': %s",
		    dir, strerror(errno));
	while (rc == BALE_OK && (de = readdir(d)))
		if (bale_backend_owns(be, name, de->d_name) &&
		    stage_names_add(out, de->d_name) != 0)
			rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	closedir(d);
	return rc;
}

/* Move @out/@file into the stage, out of the way. */
static int stage_aside(const char *stage, const char *out, const char *file,
    struct bale_errbuf *err)
{
	char *from = bale_strfmt("%s/%s", out, file);
	char *to = bale_strfmt("%s/" STAGE_ASIDE "%s", stage, file);
	int rc = BALE_OK;

	if (!from || !to)
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	else if (bale_file_remove_tree(to) != 0 ||
	    (rename(from, to) != 0 && errno != ENOENT))
		rc = bale_errbuf_set(err, BALE_EIO, "cannot move the old '%s' "
		    "aside: %s", from, strerror(errno));
	free(from);
	free(to);
	return rc;
}

/* rename(2) fails so when the old entry is a folder, or a file where a
 * folder comes: then it is swapped or moved aside. */
static int stage_in_the_way(int e)
{
	return e == EISDIR || e == ENOTEMPTY || e == EEXIST || e == ENOTDIR;
}

/* Move @stage/@file to @out/@file, over what is there: atomically for a
 * file, and for a folder where the file system can swap two. */
static int stage_move(const char *stage, const char *out, const char *file,
    struct bale_errbuf *err)
{
	char *from = bale_strfmt("%s/%s", stage, file);
	char *to = bale_strfmt("%s/%s", out, file);
	int rc = BALE_OK;

	if (!from || !to) {
		rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
		goto out_free;
	}
	if (rename(from, to) == 0)
		goto out_free;
	if (!stage_in_the_way(errno))
		goto out_fail;
	/* a folder over a folder: swapped; the old one ends up in the stage,
	 * removed with it */
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0)
		goto out_free;
	rc = stage_aside(stage, out, file, err);
	if (rc != BALE_OK || rename(from, to) == 0)
		goto out_free;
out_fail:
	rc = bale_errbuf_set(err, BALE_EIO, "cannot move '%s' to '%s': %s",
	    from, to, strerror(errno));
out_free:
	free(from);
	free(to);
	return rc;
}

/* The old output's files that the new one has not overwritten go. */
static int stage_remove_rest(const char *out, const struct stage_names *old,
    const struct stage_names *now, struct bale_errbuf *err)
{
	char *path;
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < old->n; i++) {
		if (stage_names_has(now, old->v[i]))
			continue;
		path = bale_strfmt("%s/%s", out, old->v[i]);
		if (!path)
			rc = bale_errbuf_set(err, BALE_ENOMEM, "no memory");
		else if (bale_file_remove_tree(path) != 0)
			rc = bale_errbuf_set(err, BALE_EIO, "cannot remove the "
			    "old '%s': %s", path, strerror(errno));
		free(path);
	}
	return rc;
}

/* Every file but the output's own name, then that one: it is what makes
 * the output look complete. With more than one file, the old output
 * stops looking complete first (its own name moved aside), so no moment
 * shows old and new files mixed under a complete-looking name. */
static int stage_move_all(const char *stage, const char *out,
    const char *own, const struct stage_names *now,
    struct bale_errbuf *err)
{
	size_t i;
	int rc = BALE_OK;

	if (now->n > 1)
		rc = stage_aside(stage, out, own, err);
	for (i = 0; rc == BALE_OK && i < now->n; i++)
		if (strcmp(now->v[i], own) != 0)
			rc = stage_move(stage, out, now->v[i], err);
	return rc == BALE_OK ? stage_move(stage, out, own, err) : rc;
}

int bale_stage_swap(const struct bale_backend *be, const char *stage,
    const char *out, const char *name, int sync, struct bale_errbuf *err)
{
	struct stage_names now = { NULL, 0, 0 };
	struct stage_names old = { NULL, 0, 0 };
	char *own = bale_strfmt("%s%s", name, be->suffix ? be->suffix : "");
	int rc = own ? BALE_OK : bale_errbuf_set(err, BALE_ENOMEM,
	    "no memory");

	if (rc == BALE_OK)
		rc = stage_list(be, stage, name, &now, err);
	if (rc == BALE_OK)
		rc = stage_list(be, out, name, &old, err);
	if (rc == BALE_OK && !stage_names_has(&now, own))
		rc = bale_errbuf_set(err, BALE_EIO, "%s: the new output "
		    "'%s/%s' is not there to take the old one's place",
		    be->name, stage, own);
	if (rc == BALE_OK)
		rc = stage_move_all(stage, out, own, &now, err);
	if (rc == BALE_OK)
		rc = stage_remove_rest(out, &old, &now, err);
	if (rc == BALE_OK && sync && bale_file_sync(out) != 0)
		rc = bale_errbuf_set(err, BALE_EIO, "cannot sync '%s': %s",
		    out, strerror(errno));
	stage_names_release(&now);
	stage_names_release(&old);
	free(own);
	return rc;
}
