/* walk.h - the list of samples a source holds, in torchvision order.
 *
 * An ImageFolder tree gives one class per first-level folder (symlinks
 * followed), class index = position of the name in bytewise-sorted order,
 * and samples ordered as torchvision's make_dataset() does: by class, then
 * by the full directory path string, then by file name. Files are samples
 * when their name ends, case-insensitively, in one of torchvision's image
 * extensions. Hidden files and folders count, as they do in torchvision.
 * A list file gives "relative/path<TAB>label" lines, kept in file order.
 * A tar or zip archive follows the same rules on its member paths (and a
 * tar whose members are tars gives one class per inner tar); its samples
 * are read in place, at their offsets (bale_walk_member).
 */
#ifndef BALE_WALK_H
#define BALE_WALK_H

#include "bale_backend_util.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct bale_walk;

/** What the walk saw but did not turn into a sample. */
enum bale_walk_note_kind {
	BALE_NOTE_IGNORED,	/* not a sample: extension, outside classes */
	BALE_NOTE_SKIPPED,	/* samples may be lost: unreadable, loop */
	BALE_NOTE_WARNING,	/* nothing lost, but worth saying */
};

int bale_walk_new(struct bale_walk **out);

/** Stop the walk (BALE_EINTR) once *@stop is set: listing a large
 *  compressed tar or tree takes minutes, and Ctrl-C must not wait. */
void bale_walk_set_stop(struct bale_walk *w, const atomic_int *stop);

/** Take an archive's classes from the folder @root inside it ("" or
 *  ".": the archive's top level) instead of by the rule: the top level,
 *  unless every image lies below one top folder and some in its
 *  sub-folders (what `tar -cf train.tar train` makes), which is then
 *  the root. Members outside @root are noted as ignored.
 *  @return BALE_OK, BALE_EINVAL (absolute, or with ".."), BALE_ENOMEM */
int bale_walk_set_archive_root(struct bale_walk *w, const char *root);

/** 1 when the walk listed ImageFolder archives, where a root set by
 *  bale_walk_set_archive_root() applies. */
int bale_walk_archive_root_used(const struct bale_walk *w);
/** A source of columns (Parquet): the column holding the images and the
 *  one holding the labels (NULL: the source's default). @return
 *  BALE_OK or BALE_ENOMEM */
int bale_walk_set_columns(struct bale_walk *w, const char *image,
    const char *label);

/** An update of a source of files stamped as a whole
 *  (BALE_SOURCE_FILE_ROWS), before its scan: the @n file stamps its
 *  manifest holds, ascending. A file whose stamp is one of them is
 *  unchanged: its rows are not listed, nor its bytes read. @return
 *  BALE_OK or BALE_ENOMEM */
int bale_walk_set_known_files(struct bale_walk *w, const uint64_t *stamps,
    size_t n);
/** The scan's: 1 when the file stamped @stamp is a known one, now
 *  left unread (its rows stay as the manifest has them), else 0. */
int bale_walk_file_unchanged(struct bale_walk *w, uint64_t stamp);
/** After the scan: 1 when the file stamped @stamp was left unread. */
int bale_walk_file_kept(const struct bale_walk *w, uint64_t stamp);

struct bale_source_kind;

/** The kinds an archive may be of (bale_source_file_kinds(), kind.h):
 *  bale_walk_archive() and bale_walk_archives() ask their sniff which
 *  one reads it. */
void bale_walk_set_kinds(struct bale_walk *w,
    const struct bale_source_kind *const *kinds);

/** Collect the samples of the ImageFolder tree at @root.
 *  @return BALE_OK, or BALE_ENOENT (no root, no class folder), BALE_EIO,
 *  BALE_ENOMEM (see bale_walk_errmsg) */
int bale_walk_folder(struct bale_walk *w, const char *root);

/** Collect the samples of the ImageFolder tree kept as objects under
 *  the prefix @root of an object store (walk_bucket.c), to be read by
 *  source @kind (NULL: the caller reads the objects itself): the classes
 *  and order of the same tree on disk, each sample's size as listed.
 *  @return as bale_walk_folder(), or the store's error */
int bale_walk_bucket(struct bale_walk *w, const char *root,
    const struct bale_source_kind *kind);

/** The samples @list names among the objects under the prefix @root of
 *  an object store (paths relative to it), in the list's order, with
 *  its labels; read by source @kind. @return as bale_walk_list() */
int bale_walk_bucket_listed(struct bale_walk *w, const char *root,
    const struct bale_source_kind *kind, const char *list);

/** Collect the samples named by @list, paths relative to @root.
 *  @return BALE_OK, or BALE_EINVAL with the line number of a bad line,
 *  BALE_ENOENT, BALE_EIO, BALE_ENOMEM */
int bale_walk_list(struct bale_walk *w, const char *root, const char *list);

/** Collect the samples of the tar (or tar of per-class tars), the
 *  compressed tar or the zip archive at @path; ImageFolder rules on
 *  member paths.
 *  @return BALE_OK, BALE_ENOENT (no archive, no class), BALE_EINPUT
 *  (not an archive bale reads, or damaged before its first member),
 *  BALE_EIO, BALE_ENOMEM */
int bale_walk_archive(struct bale_walk *w, const char *path);

/** bale_walk_archive() of several archives as one dataset: ImageFolder
 *  archives as if all were extracted into one folder in this order (a
 *  later copy of a path wins); WebDataset shards one after another.
 *  With a @list file, its lines name the samples (member paths as
 *  extraction places them), their order and labels, as bale_walk_list()
 *  names files below a folder; BALE_EINVAL for WebDataset shards. */
int bale_walk_archives(struct bale_walk *w, const char *const *paths,
    size_t n, const char *list);

/** Collect the samples of the WebDataset shards (uncompressed tars) at
 *  @paths, in that order, grouped by key as webdataset groups them. (A
 *  single tar with KEY.cls members is read so by bale_walk_archive too.)
 *  @return BALE_OK, BALE_ENOENT, BALE_EINPUT (a shard unreadable before
 *  its first member), BALE_ENOTSUP (compressed), BALE_EIO, BALE_ENOMEM */
int bale_walk_shards(struct bale_walk *w, const char *const *paths,
    size_t n);

/* How a zip member is stored (its method). */
#define BALE_WALK_STORED 0
#define BALE_WALK_DEFLATED 8
/* Added to a zip member's method: its offset is its local header's (a
 * zip kept as an object, listed by its directory alone). The reader
 * reads [offset, offset + csize + BALE_WALK_HEADER_ROOM) in one request
 * and finds the data inside (a header longer than that room costs a
 * second read). */
#define BALE_WALK_AT_HEADER 0x10000
#define BALE_WALK_HEADER_ROOM ((uint64_t)4 << 10)

/* Where an archive member's bytes lie, and which kind reads them. */
struct bale_walk_member {
	const struct bale_source_kind *kind;	/* reads it (kind.h) */
	int fd;			/* the archive (owned by the walk), or -1 */
	int method;		/* zip: BALE_WALK_STORED or _DEFLATED */
	int has_crc;		/* check @crc (zip, packed) after reading */
	uint32_t crc;
	union {
		uint64_t offset;	/* streamed: the member's ordinal
					 * in the stream; packed: its index
					 * there */
		uint64_t stamp;		/* an object in a store: its ETag,
					 * hashed (bale_walk_stamp) */
	};
	uint64_t size;		/* bytes once read; 0: learnt when read (a
				 * Parquet row listed unread) */
	uint64_t csize;		/* bytes stored */
	uint64_t size_guess;	/* size 0: what its file's rows average,
				 * which the feed plans its memory with */
	uint64_t file_stamp;	/* a row of a file (Parquet): the file's
				 * stamp, which an update compares for
				 * each of its rows (0: none) */
};

/** The stamp an update compares for member @m of a stamped source: its
 *  file's (a Parquet row), else its own (an object's). */
static inline uint64_t bale_walk_member_stamp(
    const struct bale_walk_member *m)
{
	return m->file_stamp ? m->file_stamp : m->stamp;
}

/** The bytes member @m is planned to take once read: its size, or
 *  its guess where its size is learnt then. */
static inline uint64_t bale_walk_member_planned(
    const struct bale_walk_member *m)
{
	return m->size ? m->size : m->size_guess;
}

/** An object's ETag as a change stamp below 2^63 (0: the store gave
 *  none): what an update compares, with the size, as it compares a
 *  file's modification time. */
uint64_t bale_walk_stamp(const char *etag);

/** 1 with @m filled when sample @i is an archive member, 0 when it is a
 *  file below the root. */
int bale_walk_member(const struct bale_walk *w, size_t i,
    struct bale_walk_member *m);

/** Free the samples' paths, labels and members once no one will ask
 *  for them again (a run that has packed them all), and the reader
 *  that kept a packed output's samples in place: only the count, the
 *  classes and the notes answer after it. */
void bale_walk_drop_samples(struct bale_walk *w);

/** 1 when some sample is a member of a compressed tar, which only a
 *  stream reads (the feed's business). */
int bale_walk_has_streamed(const struct bale_walk *w);

size_t bale_walk_count(const struct bale_walk *w);
/** Sample @i's path, decoded into @scratch (paths are kept
 *  front-coded, so each lookup decodes one): valid until @scratch is
 *  used again. NULL without memory. */
const char *bale_walk_path(const struct bale_walk *w, size_t i,
    struct bale_buf *scratch);
int64_t bale_walk_label(const struct bale_walk *w, size_t i);

/* Reads samples one after another, each in a step, where
 * bale_walk_path() and bale_walk_label() decode from the start of
 * their block each time (up to 16 paths, 64 label runs): any index may
 * be asked, the one after the last costs least. */
struct bale_walk_cursor {
	const struct bale_walk *w;
	size_t next;		/* the path decoded next */
	const unsigned char *p;	/* its record; NULL: none yet */
	const char *dir;	/* the folder of the path before */
	size_t ndir;
	struct bale_buf name;	/* the file name of the path before */
	struct bale_buf path;	/* the path before, whole */
	const unsigned char *lp;	/* the label run after run_*;
					 * NULL: none yet */
	size_t run;		/* that run's number */
	uint64_t run_first;	/* run_* holds samples [first, end) */
	uint64_t run_end;
	int64_t run_label;
};

void bale_walk_cursor_init(struct bale_walk_cursor *c,
    const struct bale_walk *w);
/** Sample @i's path, valid until the cursor's next path. NULL without
 *  memory. */
const char *bale_walk_cursor_path(struct bale_walk_cursor *c, size_t i);
int64_t bale_walk_cursor_label(struct bale_walk_cursor *c, size_t i);
void bale_walk_cursor_release(struct bale_walk_cursor *c);

/** Class names by label; NULL entries when the source gave no names. */
size_t bale_walk_nclasses(const struct bale_walk *w);
const char *const *bale_walk_classes(const struct bale_walk *w);

/** How many archives of the source broke off part-way (cut short, a
 *  bad header): their members after the damage are lost. The first
 *  one's archive and why in *@path and *@reason, when there is one. */
size_t bale_walk_damaged(const struct bale_walk *w, const char **path,
    const char **reason);

size_t bale_walk_nnotes(const struct bale_walk *w);
void bale_walk_note(const struct bale_walk *w, size_t i,
    enum bale_walk_note_kind *kind, const char **path, const char **reason);

/** 1 when the samples come in path order (bale_walk_path_cmp), each
 *  after the one before: a folder's walk; a list file's maybe. */
int bale_walk_in_path_order(const struct bale_walk *w);

/** Order paths as a folder's walk lists them (class, folder, file
 *  name: torchvision's): <0, 0 or >0. */
int bale_walk_path_cmp(const char *a, const char *b);

/** 1 if @name ends in one of torchvision's image extensions. */
int bale_walk_is_image(const char *name);

const char *bale_walk_errmsg(const struct bale_walk *w);
void bale_walk_free(struct bale_walk *w);

#endif
