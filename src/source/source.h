/* source.h - what a run reads, as descriptors: one kind of source per
 * file (source_*.c), listed once in source_kinds.c. The pipeline asks the
 * run's source what it can do; it never tests for a kind.
 *
 * Adding a kind of source is one file defining a struct bale_source_kind
 * and one line in source_kinds.c's list, before the kinds it must win
 * over (the first whose probe says yes is the run's).
 */
#ifndef BALE_SOURCE_H
#define BALE_SOURCE_H

#include "walk.h"

#include <stddef.h>

struct bale_errbuf;

/* What a source can do. */
#define BALE_SOURCE_TREE 1u	/* files below a root folder: the run opens
				 * the folder, refuses an output inside it,
				 * and an update can compare file times */
#define BALE_SOURCE_LISTABLE 2u	/* a list file may name its samples */

/** One run's source: its paths (the SRC arguments), the list file, and
 *  what the kind's probe found (the shards a pattern names). */
struct bale_source {
	const struct bale_source_kind *kind;
	const char *const *paths;
	size_t npaths;
	const char *list;
	char **found;
	size_t nfound;
};

struct bale_source_kind {
	const char *name;	/* "folder", "list", "archives", ... */
	const char *what;	/* in a sentence: "a packed output" */
	unsigned caps;		/* BALE_SOURCE_* */
	/** 1 when @s is of this kind (@s->found may be set), 0 when not,
	 *  or a BALE_E* error described in @err. */
	int (*probe)(struct bale_source *s, struct bale_errbuf *err);
	/** Collect the samples of @s into @w. @return as bale_walk_*() */
	int (*scan)(const struct bale_source *s, struct bale_walk *w);
};

/** The kinds, in the order they are tried, ending with NULL. */
const struct bale_source_kind *const *bale_source_kinds(void);

/** Find the kind of the source at @paths (@n of them, the first the
 *  run's SRC) with list file @list (or NULL): the first kind whose probe
 *  says yes. @return BALE_OK with @s set (release it), or an error in
 *  @err (BALE_EINVAL: no kind takes these paths) */
int bale_source_classify(struct bale_source *s, const char *const *paths,
    size_t n, const char *list, struct bale_errbuf *err);

static inline int bale_source_can(const struct bale_source *s,
    unsigned caps)
{
	return s->kind && (s->kind->caps & caps) == caps;
}

void bale_source_release(struct bale_source *s);

#endif
