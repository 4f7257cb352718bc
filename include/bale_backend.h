/* bale_backend.h - what a format backend (formats/x.c) implements.
 *
 * The core owns each handle's state machine (new -> open -> finished, with
 * a sticky failure), allocates and zeroes the backend's private state, and
 * calls release() exactly once whatever happened before. put() runs on one
 * thread, in sample order, and only borrows the sample.
 */
#ifndef BALE_BACKEND_H
#define BALE_BACKEND_H

#include "bale.h"

#include <stddef.h>
#include <stdint.h>

#define BALE_BACKEND_ABI 10

/** One sample as the writers see it. */
struct bale_sample {
	uint64_t index;		/* position in the output order */
	const char *key;	/* stable, dot-free, sorts like @index */
	const char *relpath;	/* path below the source root, raw bytes */
	const char *ext;	/* lower-case extension, no dot ("jpg") */
	int64_t label;		/* class index, or BALE_LABEL_NONE */
	const char *label_name;	/* class folder name, or NULL */
	const unsigned char *data;
	size_t size;
	uint32_t crc32;		/* zlib crc32 of data[0..size) */
};

struct bale_reader;

/** Where a writer picks an unpublished output up (bale pack --resume). */
struct bale_resume {
	uint64_t next;		/* in: the checkpoint's position; out: the
				 * first position the writer still needs
				 * (lower, down to 0, if it starts over) */
	const char *state;	/* what checkpoint() gave with it, or NULL */
	int complete;		/* the output was already published: the
				 * core finds it so (NAME + suffix is
				 * there) and calls no resume() */
	char note[256];		/* out: why it starts over, when it does */
};

struct bale_writer_ops {
	int (*option)(struct bale_writer *w, void *st, const char *key,
	    const char *value);
	int (*open)(struct bale_writer *w, void *st, const char *dir,
	    const struct bale_dataset *ds);
	int (*put)(struct bale_writer *w, void *st,
	    const struct bale_sample *s);
	/* Complete everything but the step that makes the output look
	 * complete; publish() takes that step (a rename) and should not
	 * fail short of the disk refusing a rename. */
	int (*finish)(struct bale_writer *w, void *st);
	int (*publish)(struct bale_writer *w, void *st);
	/* Must cope with any state, including a failed open(); removes
	 * whatever an unpublished output left behind, except what the
	 * last checkpoint covers (kept for resume()). */
	void (*release)(void *st);
	/* Optional (without it, a resumed run writes this format again).
	 * Instead of open(): reopen the unpublished output a checkpoint
	 * describes, drop anything written after it, carry on. */
	int (*resume)(struct bale_writer *w, void *st, const char *dir,
	    const struct bale_dataset *ds, struct bale_resume *rs);
	/* Optional: while bale_writer_holding() says so, put() may go on
	 * referring to a sample's bytes (gathering several samples into
	 * one write) until settle(), which writes (or copies) them all;
	 * the caller frees them only after. Without it, or not holding,
	 * put() is done with the bytes when it returns. */
	int (*settle)(struct bale_writer *w, void *st);
};

struct bale_reader_ops {
	int (*option)(struct bale_reader *r, void *st, const char *key,
	    const char *value);
	int (*open)(struct bale_reader *r, void *st, const char *path);
	int (*count)(struct bale_reader *r, void *st, uint64_t *n);
	/* The blob stays valid until the next call on this handle. */
	int (*get)(struct bale_reader *r, void *st, uint64_t i,
	    struct bale_blob *out);
	/* The files backing the output, NULL-terminated, for eviction.
	 * NULL: those open() gave bale_reader_describe() (a format that
	 * knows them at open needs no op). */
	int (*files)(struct bale_reader *r, void *st,
	    const char *const **list);
	/* A JSON object of what the output records about itself (version,
	 * layout ...), valid while the reader is open. The class names the
	 * output records are its top-level "classes" array (packing a
	 * packed output takes them from there). An output whose samples
	 * are bare pixel rows (no image header) says so with a top-level
	 * "shape" array, [height, width, 3]: the loader and the Python
	 * Reader go by it, never by the format's name. NULL: the info
	 * open() gave bale_reader_describe(). */
	int (*info)(struct bale_reader *r, void *st, const char **json);
	void (*release)(void *st);
	/* Optional: sample @i's data size (i < count, checked by the
	 * core) when it is known without I/O (an index in memory);
	 * BALE_ENOTSUP otherwise. */
	int (*size)(struct bale_reader *r, void *st, uint64_t i,
	    size_t *size);
	/* Optional: sample @i's label (i < count, checked by the core)
	 * without its bytes; without it the core reads the sample. */
	int (*label)(struct bale_reader *r, void *st, uint64_t i,
	    int64_t *label);
	/* Optional: the labels of samples [@first, @first + @n) (in range,
	 * checked by the core) at once, from an index apart from the data,
	 * reading little more than the labels; without it the core asks
	 * label() for each. */
	int (*labels)(struct bale_reader *r, void *st, uint64_t first,
	    uint64_t n, int64_t *out);
	/* Optional: where the data bytes the last get() returned lie,
	 * whole and as stored, in a file: the reader's own descriptor
	 * (open while the reader is) in *@fd, their offset in *@offset.
	 * They must stay there while the reader is open (an LMDB read
	 * transaction keeps its version's pages), so that a conversion
	 * reads them in place, in any order, several at once.
	 * BALE_ENOTSUP when they do not lie so. */
	int (*where)(struct bale_reader *r, void *st, int *fd,
	    uint64_t *offset);
	/* Optional: samples [@first, @first + @n) will be read soon (@n
	 * 1: one; more: a run, read in any order): ask for their bytes
	 * ahead, in as few GETs as their files allow (one per file they
	 * lie in), with bale_sfile_prefetch() and the ranges get() will
	 * read, when their files lie in a remote store. @return 1 asked,
	 * 0 nothing to ask, -1 the store's bounds are reached (the caller
	 * asks again later) */
	int (*prefetch)(struct bale_reader *r, void *st, uint64_t first,
	    uint64_t n);
};

enum bale_caps {
	BALE_CAP_RANDOM = 1 << 0,	/* get(i) is cheap for any i; bench
					 * says so when it reads one that is
					 * not at random */
	BALE_CAP_THREADS = 1 << 1,	/* several readers may run at once;
					 * bench refuses more than one thread
					 * without it */
	BALE_CAP_EMPTY = 1 << 2,	/* stores 0-byte payloads; without it
					 * the core refuses one before put() */
	BALE_CAP_REMOTE = 1 << 3,	/* the reader reads its files through
					 * bale_store.h: outputs in object
					 * stores read; without it, a folder
					 * in one never picks this format */
	BALE_CAP_WRITE_REMOTE = 1 << 4,	/* the writer writes its files
					 * through bale_store.h (given a
					 * folder in an object store); without
					 * it, the core refuses one */
	BALE_CAP_UPDATE_REMOTE = 1 << 5,	/* update() takes an output
						 * in an object store (its
						 * delta on local disk) */
	BALE_CAP_MERGE_REMOTE = 1 << 6,	/* merge() takes parts or the
					 * merged output in an object store
					 * (the parts' data copied there) */
};

/** How many leading bytes of a file the core hands to a probe. */
#define BALE_PROBE_HEAD 4096

struct bale_errbuf;

/* The parts of one run (bale pack --part), checked by the caller to be
 * complete, of one run, each once, in part order: what a merge joins. */
struct bale_merge {
	const char *out;	/* the merged output's folder (exists, or
				 * an object store's prefix) */
	const char *name;		/* NAME, in the parts and the output */
	const char *const *parts;	/* part folders, part 0 first */
	size_t nparts;
	int replace;			/* an existing merged output goes */
	int copy;			/* the parts' data copied in, so the
					 * output stands alone (no links, no
					 * references to the parts) */
};

struct bale_keyset;	/* the keys before an update (core's) */

/* An update of an output (bale pack --update), checked by the caller
 * against the output's manifest: the samples that leave, and in @delta a
 * complete output of this format holding the samples that come, keyed
 * above every key before them. */
struct bale_update {
	const char *out;		/* the output's folder */
	const char *name;		/* NAME, of the output and the delta */
	const char *delta;		/* the new samples' output's folder;
					 * NULL: none come */
	const uint64_t *removed;	/* keys (numbers) that leave,
					 * ascending */
	size_t nremoved;
	const char *const *classes;	/* class names after the update */
	size_t nclasses;
	uint64_t version;		/* the dataset's version after it */
	uint64_t count_before;		/* samples the output must hold,
					 * with the keys
					 * bale_update_key_before() gives, in
					 * that order, as the manifest says;
					 * else an earlier update was
					 * interrupted after this output
					 * took it */
	const struct bale_keyset *keys_before;
};

/* One option of a format's writer (bale_writer_option(), bale pack -O
 * FORMAT.KEY=VALUE), as the format declares it. */
struct bale_option {
	const char *key;	/* "shard_size" */
	const char *arg;	/* its value's name in help ("SIZE"); NULL: a
				 * switch, on unless "0" (a flag alone sets
				 * it to "1") */
	unsigned flags;		/* BALE_OPTION_* */
	const char *cli;	/* the command line's name for it: a writer
				 * option's bale pack flag, without "--"
				 * ("shard-size"; NULL: -O only; a flag
				 * several formats declare sets the key of
				 * each chosen one); a reader option's
				 * bale bench line (with BALE_OPTION_BENCH) */
	const char *help;	/* one line, what it does */
};

#define BALE_OPTION_SHAPES 1u	/* changes the stored bytes: an update
				 * must be given the value the output was
				 * packed with */
#define BALE_OPTION_SYNC 2u	/* flushes the output to disk before it
				 * is published: the run waits for it */
#define BALE_OPTION_BENCH 4u	/* a reader option bale bench measures:
				 * a line more, the first output of the
				 * format read with it set to "1" */
/* What every format's sync option says, so that bale pack's one --fsync
 * flag for all of them reads the same. */
#define BALE_FSYNC_HELP "flush every output to disk before it is " \
	"renamed into place (crash-safe; waits for the disk)"

/* A backend describes itself: the core finds it by name, lists it with
 * its summary, recognises its outputs with probe(), and acts on its
 * capability bits. Each formats/NAME/ defines one, bale_backend_NAME. */
struct bale_backend {
	int abi;		/* BALE_BACKEND_ABI */
	const char *name;
	const char *summary;	/* one line, for `bale formats` */
	unsigned caps;		/* enum bale_caps */
	/* Is the thing at @path an output of this format? @is_dir says
	 * whether it is a folder; @head holds a regular file's first @n
	 * bytes (n <= BALE_PROBE_HEAD; 0 for a folder). Judge by content
	 * where the format allows: a user may name an output anything. A
	 * name ending in ".partial" never reaches a probe. */
	int (*probe)(const char *path, int is_dir, const unsigned char *head,
	    size_t n);
	/* The end of the name bale gives an output ("NAME.h5"): what the
	 * core goes by when the content cannot be read (no permission), so
	 * the reader gets to say why. NULL: content only. */
	const char *suffix;
	/* The other files and folders an output called NAME consists of,
	 * beside NAME + suffix in the output's folder: fnmatch(3) patterns
	 * for what follows NAME ("-[0-9][0-9][0-9][0-9][0-9][0-9].tar"),
	 * NULL-terminated; NULL: none. A run that replaces an output moves
	 * the new one's files over the old one's and removes the rest. */
	const char *const *side_files;
	/* The format library and its version, for reports (NULL: none). */
	const char *library;
	const char *(*library_version)(void);
	size_t writer_priv;
	const struct bale_writer_ops *writer;	/* NULL: read-only */
	/* Every option writer option() takes, ending with a NULL key: the
	 * core names them when a key no chosen format takes is given, keeps
	 * those that shape the bytes across updates, waits for the disk for
	 * a sync one, and bale pack offers a flag for each with a cli name. */
	const struct bale_option *writer_options;
	size_t reader_priv;
	const struct bale_reader_ops *reader;	/* NULL: write-only */
	/* Every option reader option() takes, ending with a NULL key. */
	const struct bale_option *reader_options;
	/* Join the parts' outputs into one in m->out that reads as a single
	 * run's; nothing there looks complete until all is. NULL: this
	 * format cannot merge yet. @return BALE_OK, or an error with @err
	 * set */
	int (*merge)(const struct bale_merge *m, struct bale_errbuf *err);
	/* Apply @u to this format's output in u->out, taking the delta's
	 * files; readers of the old version are not broken mid-read, and
	 * nothing looks updated until all of it is. NULL: this format
	 * cannot update. @return BALE_OK, or an error with @err set */
	int (*update)(const struct bale_update *u, struct bale_errbuf *err);
	/* Of one dataset's outputs in several formats in a folder, readers
	 * take the one whose format's rank is lowest (bale_output_pick):
	 * rank the format by how fast it reads one sample at random. 0:
	 * never taken over a ranked one. */
	unsigned read_rank;
};

/** Look a built backend up by name; NULL when it was not built. */
BALE_API const struct bale_backend *bale_backend_find(const char *name);

/** 1 when @file (a name in an output folder) is part of @be's output
 *  called @name: its own name (NAME + suffix) or one of its side files;
 *  else 0. */
BALE_API int bale_backend_owns(const struct bale_backend *be,
    const char *name, const char *file);

#endif
