/* folder_remote.c - an ImageFolder tree stored as small objects in an
 * object store (s3://bucket/train/: a prefix per class, an object per
 * image): the folder reader's samples there, the benchmark's baseline
 * for outputs in the same store. The classes are the prefixes one level
 * down, sorted; each class's images are the keys under it (any depth)
 * with torchvision's image extensions, in the store's key order, which
 * is sorted as torchvision sorts a flat class folder. A sample is one
 * GET of its object.
 */
#include "folder_remote.h"

#include "clock.h"
#include "walk.h"

#include "bale_store.h"

#include <stdlib.h>
#include <string.h>

struct folder_remote {
	char *root;		/* no '/' at the end */
	char **classes;
	size_t nclasses, capclasses;
	struct bale_buf text;	/* every sample's "class/key", NUL-ended */
	uint64_t *at;		/* where each starts in text */
	int64_t *labels;
	size_t n, cap;
	int64_t label;		/* the class being listed */
	double list_seconds;
};

static int remote_add_class(void *arg, const char *entry, int is_dir)
{
	struct folder_remote *fr = arg;
	char **grown;

	if (!is_dir || entry[0] == '.')
		return 0;	/* a stray object, or a hidden folder */
	if (fr->nclasses == fr->capclasses) {
		fr->capclasses = fr->capclasses ? 2 * fr->capclasses : 64;
		grown = realloc(fr->classes, fr->capclasses * sizeof(*grown));
		if (!grown)
			return BALE_ENOMEM;
		fr->classes = grown;
	}
	fr->classes[fr->nclasses] = strdup(entry);
	return fr->classes[fr->nclasses++] ? 0 : BALE_ENOMEM;
}

static int remote_add_sample(void *arg, const struct bale_store_object *o)
{
	struct folder_remote *fr = arg;
	const char *cls = fr->classes[fr->label];
	const char *entry = o->name;

	if (!bale_walk_is_image(entry))
		return 0;
	if (fr->n == fr->cap) {
		size_t cap = fr->cap ? 2 * fr->cap : 4096;
		uint64_t *at = realloc(fr->at, cap * sizeof(*at));
		int64_t *labels = at ? realloc(fr->labels, cap *
		    sizeof(*labels)) : NULL;

		if (at)
			fr->at = at;
		if (!labels)
			return BALE_ENOMEM;
		fr->labels = labels;
		fr->cap = cap;
	}
	fr->at[fr->n] = fr->text.len;
	fr->labels[fr->n++] = fr->label;
	bale_buf_printf(&fr->text, "%s/%s", cls, entry);
	bale_buf_add(&fr->text, "", 1);
	return fr->text.failed ? BALE_ENOMEM : 0;
}

static int remote_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each class's images, the classes in order. */
static int remote_list(struct folder_remote *fr, struct bale_errbuf *err)
{
	char *dir;
	int rc = bale_store_list(fr->root, remote_add_class, fr, err);

	if (rc == BALE_ENOMEM)
		return bale_errbuf_set(err, rc, "no memory");
	if (rc != BALE_OK)
		return rc;
	if (fr->nclasses == 0)
		return bale_errbuf_set(err, BALE_ENOENT, "'%s': no class "
		    "folder (a prefix with objects under it)", fr->root);
	qsort(fr->classes, fr->nclasses, sizeof(char *), remote_cmp);
	for (fr->label = 0; rc == BALE_OK &&
	    (size_t)fr->label < fr->nclasses; fr->label++) {
		dir = bale_strfmt("%s/%s", fr->root,
		    fr->classes[fr->label]);
		rc = dir ? bale_store_walk(dir, remote_add_sample, fr, err) :
		    BALE_ENOMEM;
		free(dir);
	}
	if (rc == BALE_ENOMEM)
		bale_errbuf_set(err, rc, "no memory");
	return rc;
}

int bale_folder_remote_open(struct folder_remote **out, const char *root,
    struct bale_errbuf *err)
{
	struct folder_remote *fr = calloc(1, sizeof(*fr));
	size_t len = strlen(root);
	double t0;
	int rc;

	*out = NULL;
	while (len > 1 && root[len - 1] == '/')
		len--;
	if (fr)
		fr->root = bale_strfmt("%.*s", (int)len, root);
	if (!fr || !fr->root) {
		free(fr);
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	}
	t0 = bale_clock_now();
	rc = remote_list(fr, err);
	fr->list_seconds = bale_clock_now() - t0;
	if (rc != BALE_OK) {
		bale_folder_remote_free(fr);
		return rc;
	}
	*out = fr;
	return BALE_OK;
}

uint64_t bale_folder_remote_count(const struct folder_remote *fr)
{
	return fr->n;
}

const char *bale_folder_remote_path(const struct folder_remote *fr,
    uint64_t i)
{
	return fr->text.data + fr->at[i];
}

int64_t bale_folder_remote_label(const struct folder_remote *fr, uint64_t i)
{
	return fr->labels[i];
}

const char *const *bale_folder_remote_classes(const struct folder_remote *fr,
    size_t *n)
{
	*n = fr->nclasses;
	return (const char *const *)fr->classes;
}

double bale_folder_remote_list_seconds(const struct folder_remote *fr)
{
	return fr->list_seconds;
}

int bale_folder_remote_read(const struct folder_remote *fr, uint64_t i,
    char **data, size_t *n, struct bale_errbuf *err)
{
	char *name = bale_strfmt("%s/%s", fr->root,
	    bale_folder_remote_path(fr, i));
	int rc = name ? bale_store_read_all(name, data, n, err) :
	    bale_errbuf_set(err, BALE_ENOMEM, "no memory");

	free(name);
	return rc;
}

void bale_folder_remote_free(struct folder_remote *fr)
{
	size_t i;

	if (!fr)
		return;
	for (i = 0; i < fr->nclasses; i++)
		free(fr->classes[i]);
	free(fr->classes);
	bale_buf_release(&fr->text);
	free(fr->at);
	free(fr->labels);
	free(fr->root);
	free(fr);
}
