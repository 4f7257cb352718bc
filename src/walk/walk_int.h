/* walk_int.h - what walk.c (folders, list files) and walk_archive.c
 * (tar and zip archives) share: the sample list they build. */
#ifndef BALE_WALK_INT_H
#define BALE_WALK_INT_H

#include "walk.h"

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "varint.h"
#include "xsort.h"

#include <sys/types.h>

struct walk_item {
	size_t path;		/* arena offset of "class/sub/name.jpg" */
	size_t dirlen;		/* length of "class/sub" */
	int64_t label;
	size_t member;		/* 1 + index in bale_walk.members, 0 for a
				 * file below the root; members are kept in
				 * archive order, so it also orders equal
				 * paths (the last duplicate wins) */
};

struct walk_note {
	enum bale_walk_note_kind kind;
	size_t path;		/* note_text offsets */
	size_t reason;
};

struct walk_notes {
	struct walk_note *v;
	size_t n;
	size_t cap;
};

/* Class names as an archive walk meets them (any order), by id. */
struct walk_classes {
	char **names;
	size_t n;
	size_t cap;
	size_t *slots;		/* hash table of id + 1, 0 empty */
	size_t nslots;
};

/* The samples once ordered (walk_store.c): a few bytes each. */
struct walk_store {
	struct bale_buf text;	/* coded paths (walk_store.c) */
	size_t *block_at;	/* text offset of each block's first path */
	size_t capblocks;
	struct bale_buf prev;	/* the file name stored last */
	struct bale_buf prev_dir;	/* and its folder, with its '/' */
	struct walk_classes dirs;	/* folders by number */
	struct bale_buf last;	/* the path sealed last, while in order */
	struct bale_buf next;	/* the one being sealed */
	int disordered;		/* a path came before the one sealed
				 * before it (bale_walk_path_cmp) */
	struct walk_labels {	/* runs of equal labels, coded: a
				 * shuffled list's are one sample each */
		struct bale_buf text;	/* closed runs, coded
					 * (store_put_run) */
		struct walk_label_block {
			uint64_t first;	/* its first run's first sample */
			size_t at;	/* that run in @text */
		} *blocks;	/* one every LABEL_BLOCK runs */
		size_t capblocks;
		size_t nruns;	/* closed */
		uint64_t open_first;	/* the run still growing */
		int64_t open_label;
		int open;
	} labels;
	struct walk_locs {	/* where archive samples lie, coded
				 * (walk_locs.c); empty while no sample
				 * has a member */
		struct bale_buf text;
		size_t *block_at;
		size_t capblocks;
		uint64_t prev_offset;	/* coding: the block's last */
		uint64_t prev_end;	/* and where its stored bytes end */
		struct walk_origin {
			const struct bale_source_kind *kind;
			int fd;
			uint64_t file_stamp;	/* its members' */
			uint64_t size_guess;	/* theirs */
		} *origins;	/* the archives the samples lie in */
		size_t norigins;
		size_t caporigins;
		size_t n;	/* samples coded */
	} locs;
	size_t n;
};

struct bale_walk {
	struct bale_buf arena;	/* the unsealed items' paths */
	struct bale_buf note_text;	/* the notes' strings */
	struct walk_item *items;	/* listed, not yet sealed */
	size_t nitems;
	size_t nadded;		/* items ever listed (some may have gone
				 * to a sorted run since) */
	size_t capitems;
	struct walk_notes notes;
	size_t damaged;		/* archives that broke off: the members
				 * after the damage are lost */
	size_t first_damage;	/* the first one's note */
	char **classes;
	size_t nclasses;
	size_t capclasses;	/* dataset walks grow @classes */
	int rootfd;
	int *archives;		/* open archive files items point into */
	size_t narchives;
	size_t caparchives;
	struct bale_walk_member *members;	/* where archive samples lie */
	size_t nmembers;
	size_t capmembers;
	int listed;		/* a list file names the samples: archive
				 * members are kept by path, for it to pick */
	struct bale_xsort candidates;	/* listed: the members, and why
					 * some cannot be read (noted if
					 * the list names them), by path */
	const char *unlisted;	/* listed: why a line naming no member
				 * is skipped (NULL: an archive's words) */
	int keyed;		/* WebDataset samples: kept in their order */
	uint64_t dropped;	/* their members bale does not store */
	char dropped_ext[16];	/* the first one's extension */
	const struct bale_source_kind *const *kinds;	/* an archive's is
							 * one of them */
	char *dataset;		/* a packed output read as the source */
	char *dataset_format;
	char *image_column;	/* a source of columns: the one holding the
				 * images, the one holding the labels (NULL:
				 * the source's default) */
	char *label_column;
	uint64_t *known_files;	/* an update: the file stamps its manifest
				 * holds, ascending (walk_files_kept.c) */
	unsigned char *kept_files;	/* 1: that file is there, unchanged,
					 * and its rows were not listed */
	size_t nknown_files;
	void *held;		/* what the samples lie in (a packed
				 * output's reader), kept open while they
				 * lie where it said; released by */
	void (*release_held)(void *held);
	char *root;		/* archives: the folder holding the classes,
				 * cleaned ("": the top level); NULL: the
				 * rule decides (walk_member.c) */
	int root_used;		/* ImageFolder archives were listed */
	struct walk_classes found;	/* archives: labels are their ids
					 * until bale_walk_members_finish() */
	struct walk_store store;	/* the sealed samples */
	struct walk_sorter {	/* archive members sorted past memory
				 * (walk_sort.c) */
		struct bale_spill spill;	/* the sorted runs */
		struct walk_sort_run {
			uint64_t start;	/* its bytes in the spill */
			uint64_t end;
			int stripped;	/* sorted without the one top
					 * folder every member was in */
		} *runs;
		size_t nruns;
		size_t capruns;
		int deep;	/* some member lies in a sub-folder of its
				 * class folder: a lone top folder is the
				 * root, its sub-folders the classes */
		size_t chunk;	/* members a run holds; 0: the default
				 * (tests make it small) */
	} sort;
	const atomic_int *stop;	/* set: the run was asked to stop */
	struct bale_errbuf err;
};

/* Samples that keep the order they are listed in (a list file's, a
 * packed output's) are sealed this many at a time. */
#define WALK_SEAL_EVERY 65536

/* walk_locs.c */

/** Code sample @n's member @m (NULL: a file below the root); samples
 *  come in order. 0, or -1 without memory. */
int bale_walk_locs_add(struct walk_locs *l, size_t n,
    const struct bale_walk_member *m);
/** 1 with @m filled when sample @i is a member, 0 when a file. */
int bale_walk_locs_get(const struct walk_locs *l, size_t i,
    struct bale_walk_member *m);
void bale_walk_locs_release(struct walk_locs *l);
/** Member @m as varints of its origin (bale_walk_locs_origin()),
 *  offset, size, csize, method and crc + 1 (0: none), for a record
 *  sorted past memory. */
void bale_walk_put_member(struct bale_buf *b, uint64_t origin,
    const struct bale_walk_member *m);
/** The member bale_walk_put_member() wrote at *@p; *@p moves on. */
void bale_walk_get_member(const struct walk_locs *l, const unsigned char **p,
    struct bale_walk_member *m);
/** The index of @m's archive (kind and file), added when new; -1
 *  without memory. */
int64_t bale_walk_locs_origin(struct walk_locs *l,
    const struct bale_walk_member *m);

int bale_walk_nomem(struct bale_walk *w);
/** Fail the walk: the member list spilled to @sp could not be kept
 *  (@reading 0) or read back (1), for errno @e. */
int bale_walk_spill_failed(struct bale_walk *w, const struct bale_spill *sp,
    int reading, int e);
/** Move the listed items, in their order, to the store (after those
 *  sealed before), and empty the list for more. */
int bale_walk_seal(struct bale_walk *w);
/** Seal one sample after those sealed: its path, label and member
 *  (NULL: a file). */
int bale_walk_seal_one(struct bale_walk *w, const char *path, size_t len,
    int64_t label, const struct bale_walk_member *m);
/** Empty the listed items, their paths and members, for more (they
 *  were sealed, or written to a sorted run). */
void bale_walk_clear_listed(struct bale_walk *w);
/** bale_walk_seal(), then free what listing used: the walk is done. */
int bale_walk_seal_all(struct bale_walk *w);
void bale_walk_store_release(struct walk_store *s);
/** 1 (with BALE_EINTR in the walk's error) once the run must stop. */
int bale_walk_stopped(struct bale_walk *w);
int bale_walk_add_note(struct bale_walk *w, enum bale_walk_note_kind kind,
    const char *path, const char *reason);
/** Note a file at @path outside any class folder: ignored, or, an
 *  @image, said in a warning (a sample the user may have meant). */
int bale_walk_note_outside(struct bale_walk *w, const char *path,
    int image);
/** Append a sample: a file below the root (an archive walker then sets
 *  the last item's member). */
int bale_walk_add_item(struct bale_walk *w, const char *path, size_t len,
    size_t dirlen, int64_t label);
/** Open @path (a file, or an object in a store) and keep it open for
 *  the walk's life, its descriptor last in w->archives: its samples are
 *  read from it later. @return BALE_OK, or an error in the walk's */
int bale_walk_open_file(struct bale_walk *w, const char *path,
    uint64_t *size);
/** Append a sample whose bytes lie at @loc (an archive member, a
 *  packed output's sample). */
int bale_walk_add_located(struct bale_walk *w, const char *path, int64_t label,
    const struct bale_walk_member *loc);
/* The highest label a source may give (packed outputs, WebDataset, a
 * list file): a label indexes the class list every format writes, so a
 * wild one would make that list huge (a list's label of 2^31 ran for
 * minutes towards a class table of hundreds of GB). */
#define WALK_MAX_LABEL ((int64_t)1 << 24)

/** Grow the class list, unnamed, until @label indexes it (sources that
 *  give labels and maybe names: packed outputs, WebDataset, Parquet);
 *  BALE_LABEL_NONE indexes none, and asks for nothing. */
int bale_walk_cover_label(struct bale_walk *w, int64_t label);
/* A list file read line by line: each path and label to @take. */
struct walk_list_reader {
	int (*take)(struct bale_walk *w, const char *path, int64_t label,
	    void *ctx);
	void *ctx;
	int64_t maxlabel;	/* the highest label met, -1 for none */
};

/** Read "PATH<TAB>LABEL" lines of @list into @r->take, then give the
 *  walk maxlabel + 1 unnamed classes. */
int bale_walk_read_list(struct bale_walk *w, const char *list,
    struct walk_list_reader *r);
/** torchvision order of two items whose labels are still ids into
 *  @names (an archive's classes as met): by class name, folder, file
 *  name, then archive order. */
int bale_walk_cmp_by_class_name(const struct walk_item *a,
    const struct walk_item *b, const char *arena, char *const *names);
/** Sort the items in torchvision order (equal paths: archive order). */
void bale_walk_sort_items(struct bale_walk *w);

/* walk_files_kept.c */
void bale_walk_files_kept_release(struct bale_walk *w);

/* walk_member.c: ImageFolder rules for the members of archives */

enum walk_member_kind {
	WALK_FILE,
	WALK_DIR,
	WALK_SYMLINK,
	WALK_HARDLINK,
	WALK_SPECIAL,		/* device node, FIFO */
	WALK_OTHER,		/* a tar type bale does not read */
};

/* One member as an archive scan found it. */
struct walk_member {
	const char *name;	/* as stored */
	const char *prefix;	/* tar of tars: the class its tar names */
	enum walk_member_kind kind;
	char type;		/* tar type flag (for WALK_OTHER) */
	const char *why;	/* why it cannot be read, or NULL */
	int nested;		/* found inside an inner tar */
	int encrypted;
	struct bale_walk_member loc;	/* where its bytes lie */
};

/** Turn one member into a sample, a class, or a note. */
int bale_walk_take_member(struct bale_walk *w, const struct walk_member *m);
/** Why a member stored as @l says cannot be read (a method bale does
 *  not read, a bomb), or NULL; @buf may hold the text. */
const char *bale_walk_storage_refusal(const struct bale_walk_member *l,
    char *buf, size_t len);
/** Hash of @n bytes at @s (FNV-1a). */
uint64_t bale_walk_hash(const char *s, size_t n);
/** @name as extraction would place it: "./" and empty parts dropped, no
 *  trailing slash, under @prefix when given. 0, or -1 when it would land
 *  outside the folder (absolute, or a ".." part). */
int bale_walk_clean_path(struct bale_buf *out, const char *prefix,
    const char *name);
/** Note that a later copy of the member at @path is used. */
int bale_walk_note_duplicate(struct bale_walk *w, const char *path);
/** After every member: labels from sorted class names, torchvision
 *  order, the last of duplicate names kept. */
int bale_walk_members_finish(struct bale_walk *w, const char *src);
void bale_walk_classes_release(struct walk_classes *c);

int64_t bale_walk_class_id(struct walk_classes *c, const char *name,
    size_t n);
/** Class ids become positions in bytewise-sorted name order: the
 *  listed items relabelled, w->classes named; the map from id to label
 *  in *@map (freed by the caller) unless @map is NULL. */
int bale_walk_label_classes(struct bale_walk *w, int64_t **map);
/** Warn of each class that @count (by label) says holds no sample. */
int bale_walk_warn_empty_classes(struct bale_walk *w, const size_t *count);
/** 1 when an archive's one top folder is its root (walk_member.c). */
int bale_walk_top_is_root(const struct bale_walk *w);
/** Say that the sub-folders of the one top folder are taken as the
 *  classes, and forget the classes found so far. */
int bale_walk_note_top_folder(struct bale_walk *w);

/* walk_sort.c */

/** Where members wait past memory: $TMPDIR, or /tmp. */
const char *bale_walk_tmpdir(void);

/** After a member is listed: once the listed members fill a chunk,
 *  sort them and write them out as a run. */
int bale_walk_sort_chunk(struct bale_walk *w);
/** bale_walk_members_finish() of a walk whose members were written out
 *  in runs: merged into the store in torchvision order. */
int bale_walk_sort_finish(struct bale_walk *w);
void bale_walk_sort_release(struct walk_sorter *s);

/* walk_listed.c */

/** Listed walk: ready to keep members for the list to pick. */
int bale_walk_listed_start(struct bale_walk *w);
/** Listed walk: keep member @m at @path for the list to pick, or (@m
 *  NULL) say why the member at @path cannot be read, if listed. */
int bale_walk_keep_candidate(struct bale_walk *w, const char *path,
    const struct bale_walk_member *m, const char *why);
/** Listed walk, after every member: the samples are the list's lines,
 *  in its order, with its labels. */
int bale_walk_list_members(struct bale_walk *w, const char *list);

/* Let go of what the samples lay in (bale_walk_drop_samples, free). */
static inline void bale_walk_release_held(struct bale_walk *w)
{
	if (w->held && w->release_held)
		w->release_held(w->held);
	w->held = NULL;
}

#endif
