/* walk_classes.c - class names as a walk meets them: their ids, the
 * labels they get once all are known (sorted by name), the top folder
 * that is the root, classes left empty, paths met twice. */
#include "walk_int.h"

#include "bale.h"
#include "bale_backend_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t bale_walk_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int walk_classes_rehash(struct walk_classes *c)
{
	size_t nslots = c->nslots ? c->nslots * 2 : 256;
	size_t *slots = calloc(nslots, sizeof(*slots));
	size_t i, k;

	if (!slots)
		return -1;
	for (i = 0; i < c->n; i++) {
		k = bale_walk_hash(c->names[i], strlen(c->names[i])) &
		    (nslots - 1);
		while (slots[k])
			k = (k + 1) & (nslots - 1);
		slots[k] = i + 1;
	}
	free(c->slots);
	c->slots = slots;
	c->nslots = nslots;
	return 0;
}

int64_t bale_walk_class_id(struct walk_classes *c, const char *name,
    size_t n)
{
	size_t k;
	char *copy;

	if (c->n * 2 >= c->nslots && walk_classes_rehash(c) != 0)
		return -1;
	k = bale_walk_hash(name, n) & (c->nslots - 1);
	for (; c->slots[k]; k = (k + 1) & (c->nslots - 1)) {
		copy = c->names[c->slots[k] - 1];
		if (strncmp(copy, name, n) == 0 && copy[n] == '\0')
			return (int64_t)c->slots[k] - 1;
	}
	if (bale_grow_array((void **)&c->names, &c->cap, c->n + 1,
	    sizeof(*c->names)) != 0 || !(copy = strndup(name, n)))
		return -1;
	c->names[c->n] = copy;
	c->slots[k] = ++c->n;
	return (int64_t)c->n - 1;
}

void bale_walk_classes_release(struct walk_classes *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

static int walk_cmp_names(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

int bale_walk_label_classes(struct bale_walk *w, int64_t **map)
{
	struct walk_classes *c = &w->found;
	char ***byname = malloc((c->n ? c->n : 1) * sizeof(*byname));
	int64_t *label = malloc((c->n ? c->n : 1) * sizeof(*label));
	size_t i;

	w->classes = calloc(c->n ? c->n : 1, sizeof(char *));
	if (!byname || !label || !w->classes) {
		free(byname);
		free(label);
		return bale_walk_nomem(w);
	}
	for (i = 0; i < c->n; i++)
		byname[i] = &c->names[i];
	qsort(byname, c->n, sizeof(*byname), walk_cmp_names);
	for (i = 0; i < c->n; i++) {
		label[byname[i] - c->names] = (int64_t)i;
		w->classes[i] = *byname[i];
		*byname[i] = NULL;	/* now owned by w->classes */
	}
	w->nclasses = c->n;
	for (i = 0; i < w->nitems; i++)
		w->items[i].label = label[w->items[i].label];
	free(byname);
	if (map)
		*map = label;
	else
		free(label);
	return BALE_OK;
}

int bale_walk_note_duplicate(struct bale_walk *w, const char *path)
{
	char *copy = strdup(path);
	int rc;

	if (!copy)
		return bale_walk_nomem(w);
	rc = bale_walk_add_note(w, BALE_NOTE_SKIPPED, copy, "duplicate member "
	    "name: a later copy in the archive is used, as extraction "
	    "would");
	free(copy);
	return rc;
}

int bale_walk_warn_empty_classes(struct bale_walk *w, const size_t *count)
{
	size_t i;
	int rc = BALE_OK;

	for (i = 0; rc == BALE_OK && i < w->nclasses; i++)
		if (count[i] == 0)
			rc = bale_walk_add_note(w, BALE_NOTE_WARNING,
			    w->classes[i], "class folder holds no image; its "
			    "label is kept");
	return rc;
}

/* The rule for an archive's root: every image below one top folder,
 * and some in its sub-folders (what `tar -cf top.tar top` makes, top
 * holding the class folders): the top folder is the root and its
 * sub-folders are the classes, as packing the extracted folder would
 * have them; an image directly in it lies outside any class, as a file
 * in a root folder does. Otherwise the archive's top level is the
 * root. A root the user named overrides the rule. */
int bale_walk_top_is_root(const struct bale_walk *w)
{
	return !w->root && w->found.n == 1 && w->sort.deep;
}

int bale_walk_note_top_folder(struct bale_walk *w)
{
	char note[400];
	const char *top = w->found.names[0];
	int rc;

	snprintf(note, sizeof(note), "every image is below the one folder "
	    "'%s', some in its sub-folders: they are taken as the classes, "
	    "as packing the extracted folder would, and an image directly "
	    "in '%s' is left out (another folder can be named as the one "
	    "holding the classes)", top, top);
	rc = bale_walk_add_note(w, BALE_NOTE_WARNING, top, note);
	bale_walk_classes_release(&w->found);
	return rc;
}
