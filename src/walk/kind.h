/* kind.h - the kinds of source that fill a walk from files: one kind
 * per file (source_*.c), listed once in kinds.c. The pipeline asks the
 * run's source what it can do; it never tests for a kind. (The kinds
 * that read packed outputs are above the formats: src/source/.)
 *
 * Adding a kind of source is one file defining a struct bale_source_kind
 * and one line in kinds.c's list, before the kinds it must win over
 * (the first whose probe says yes is the run's).
 */
#ifndef BALE_KIND_H
#define BALE_KIND_H

#include "stream_member.h"
#include "walk.h"

#include <stddef.h>
#include <stdint.h>

struct arc_scan;
struct bale_backend;
struct bale_errbuf;
struct bale_input;

/* What a source can do. */
#define BALE_SOURCE_TREE 1u	/* files below a root folder: the run opens
				 * the folder, refuses an output inside it,
				 * and an update can compare file times */
#define BALE_SOURCE_LISTABLE 2u	/* a list file may name its samples */
#define BALE_SOURCE_RANDOM 4u	/* members are read in place, at their
				 * offsets, in any order (read) */
#define BALE_SOURCE_STREAMED 8u	/* members come front to back, on the
				 * feed's passes (stream_feed.h) */
#define BALE_SOURCE_COMPRESSED 16u	/* members may be compressed: a
					 * claimed size is checked first */
#define BALE_SOURCE_STAMPED 32u	/* each member carries its size and a
				 * stamp of its bytes as listed (an
				 * object's ETag): an update compares
				 * those, as a tree's file times */
#define BALE_SOURCE_COLUMNS 64u	/* rows of columns: the run may name
				 * the image and label columns */
#define BALE_SOURCE_FILE_ROWS 128u	/* STAMPED by their files: every
					 * row of a file has its stamp
					 * (file_stamp), and an update
					 * leaves a file unread whose stamp
					 * is known
					 * (bale_walk_set_known_files) */

/** One run's source: its paths (the SRC arguments), the list file, and
 *  what the kind's probe found (the shards a pattern names). */
struct bale_source {
	const struct bale_source_kind *kind;
	const char *const *paths;
	size_t npaths;
	const char *list;
	char **found;
	size_t nfound;
	const struct bale_source_kind *const *kinds;	/* those probed:
							 * an archive's is
							 * one of them */
};

struct bale_source_kind {
	const char *name;	/* "folder", "list", "archives", ... */
	const char *what;	/* in a sentence: "a packed output" */
	unsigned caps;		/* BALE_SOURCE_* */
	/** 1 when @s is of kind @self (@s->found may be set), 0 when not,
	 *  or a BALE_E* error described in @err. */
	int (*probe)(const struct bale_source_kind *self,
	    struct bale_source *s, struct bale_errbuf *err);
	/** Collect the samples of @s into @w. @return as bale_walk_*() */
	int (*scan)(const struct bale_source *s, struct bale_walk *w);
	/** The backend that reads such a source in place, as an output is
	 *  read (the raw folder: the benchmark's baseline), or NULL. The
	 *  registry lists it before the formats. */
	const struct bale_backend *reader;

	/* Archive kinds only (NULL for the others): one archive file. */

	/** 1 when the archive open at @fd (@size bytes, @head its first @n
	 *  bytes) is of this kind. */
	int (*sniff)(int fd, uint64_t size, const unsigned char *head,
	    size_t n);
	/** List the archive @s->fd (@size bytes, at @path) into the walk.
	 *  @return as bale_walk_archives() */
	int (*list)(struct arc_scan *s, uint64_t size, const char *path);
	/** Read member @in->member into @buf (@in->size bytes), or NULL
	 *  when its members come from the feed. @return as
	 *  bale_input_read() */
	int (*read)(struct bale_input *in, unsigned char *buf);
	/** A streamed kind's pass over one archive (its members come from
	 *  the feed, which passes over it as often as its order needs). */
	bale_stream_pass_fn stream;
	/** Optional: ask for member @m, at path @rel of the source @root,
	 *  ahead of its read (a remote object's GET, sent now). @return 1
	 *  asked, 0 not, -1 the bounds of what may be held are reached:
	 *  ask again later (bale_sfile_prefetch()) */
	int (*ahead)(const char *root, const char *rel,
	    const struct bale_walk_member *m);
};

/** The kinds of source read from files, in the order they are tried,
 *  ending with NULL. */
const struct bale_source_kind *const *bale_source_file_kinds(void);

/** The kind of @kinds whose sniff takes the archive open at @fd (@size
 *  bytes), or NULL (none, or its first bytes cannot be read). */
const struct bale_source_kind *bale_source_archive_kind(
    const struct bale_source_kind *const *kinds, int fd, uint64_t size);

/** The probe of every archive kind: 1 when @s->paths[0] is an archive
 *  of kind @self (several paths must all be archives, of any kind). */
int bale_source_archive_probe(const struct bale_source_kind *self,
    struct bale_source *s, struct bale_errbuf *err);

/** The scan of every archive kind: the archives at @s->paths, each
 *  listed by its own kind, as one dataset (bale_walk_archives()). */
int bale_source_archives_scan(const struct bale_source *s,
    struct bale_walk *w);

/* Why a sample whose bytes do not match its stored checksum is left. */
#define BALE_WHY_DAMAGED \
	"its bytes do not match the checksum the source stored (damaged)"

/** 1 when kind @k's members come front to back, from the feed. */
static inline int bale_source_streams(const struct bale_source_kind *k)
{
	return (k->caps & BALE_SOURCE_STREAMED) != 0;
}

/** 1 when member @m comes from the feed rather than from its kind's
 *  reads in place. */
static inline int bale_source_member_fed(const struct bale_walk_member *m)
{
	return !m->kind->read;
}

static inline int bale_source_can(const struct bale_source *s,
    unsigned caps)
{
	return s->kind && (s->kind->caps & caps) == caps;
}

void bale_source_release(struct bale_source *s);

#endif
