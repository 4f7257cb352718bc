/* bale.h - pack image folders into LMDB, HDF5 and WebDataset; user API.
 *
 * Every function returns BALE_OK (0) or a negative BALE_E* code; the handle
 * that failed carries a sentence saying why (see the *_errmsg() calls).
 * Nothing in the library prints, exits or aborts on bad input.
 */
#ifndef BALE_H
#define BALE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bale_status {
	BALE_OK = 0,
	BALE_ENOMEM = -1,	/* out of memory */
	BALE_EINVAL = -2,	/* bad argument or option value */
	BALE_ENOENT = -3,	/* no such file, format or class folder */
	BALE_EIO = -4,		/* the operating system refused a read/write */
	BALE_EBACKEND = -5,	/* a format library failed */
	BALE_ENOOPT = -6,	/* unknown option key */
	BALE_ESTATE = -7,	/* call made in the wrong state */
	BALE_EEXIST = -8,	/* output exists and replacing it was not asked */
	BALE_EINPUT = -9,	/* an input was bad and --strict was given */
	BALE_EINTR = -10,	/* stopped on request */
};

/** The library version, "MAJOR.MINOR.PATCH". */
const char *bale_version(void);

/** A short English name for @rc ("out of memory"). Never NULL. */
const char *bale_strerror(int rc);

/* ---- writer: one output format, fed samples in order ------------------ */

struct bale_writer;
struct bale_sample;

/** What every backend learns about the dataset before the first put(). */
struct bale_dataset {
	const char *name;		/* file prefix inside the output folder */
	const char *const *classes;	/* class names by label; may be NULL */
	size_t nclasses;
	uint64_t nitems;		/* samples that will be offered */
	int replace;			/* remove an existing output first */
	/* Non-zero: every sample is a .npy uint8 array of pixels_h x
	 * pixels_w x 3 (bale pack --pixels); HDF5 stores it as a row of
	 * an N x H x W x 3 dataset. */
	int pixels_w, pixels_h;
};

/** Allocate a writer with no backend chosen. Fails only with BALE_ENOMEM. */
int bale_writer_new(struct bale_writer **out);

/** Choose the backend by name ("wds").
 *  @return BALE_OK, or BALE_ENOENT when no such backend was built */
int bale_writer_set_backend(struct bale_writer *w, const char *name);

/** Pass one backend option; only before bale_writer_open().
 *  @return BALE_OK, BALE_ENOOPT for an unknown key, BALE_EINVAL for a bad
 *  value, BALE_ESTATE when called late */
int bale_writer_option(struct bale_writer *w, const char *key,
    const char *value);

/** Create the output inside folder @dir (which must exist). */
int bale_writer_open(struct bale_writer *w, const char *dir,
    const struct bale_dataset *ds);

struct bale_resume;

/** Instead of bale_writer_open(): pick up the unpublished output a
 *  checkpoint describes (see struct bale_resume). A sample below
 *  rs->next, or any sample once rs->complete, is then ignored by put. */
int bale_writer_resume(struct bale_writer *w, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs);

/** Where the writer's last checkpoint is (what its backend last reported
 *  with bale_writer_reached()), with the state a resume needs (NULL: none;
 *  valid until the writer is next used). @return 1 when it moved since
 *  the last call, else 0 */
int bale_writer_checkpoint(struct bale_writer *w, uint64_t *next,
    const char **state);

/** Append one sample; the writer only borrows it for the call. */
int bale_writer_put(struct bale_writer *w, const struct bale_sample *s);

/** Write out everything; the output does not look complete yet. */
int bale_writer_finish(struct bale_writer *w);

/** Make a finished output look complete (a rename). Writing several
 *  formats, finish them all before publishing any. */
int bale_writer_publish(struct bale_writer *w);

/** The backend's name, or "" when none was chosen. */
const char *bale_writer_name(const struct bale_writer *w);
const char *bale_writer_errmsg(const struct bale_writer *w);

/** Release the writer; an unpublished output is removed. NULL is fine. */
void bale_writer_free(struct bale_writer *w);

/** Names of the backends built into this library, NULL-terminated. */
const char *const *bale_backend_names(void);

/* ---- reader: random access to one packed output ----------------------- */

struct bale_reader;

/** One stored sample. Valid until the next call on the same reader. */
struct bale_blob {
	const unsigned char *data;
	size_t size;
	int64_t label;
	const char *key;	/* the sample key */
	const char *path;	/* source path below its root, or NULL */
	uint32_t crc32;		/* stored checksum, when has_crc32 */
	int has_crc32;
};

int bale_reader_new(struct bale_reader **out);

/** The format an output's name says: "wds" for NAME-shards.json, "lmdb"
 *  for NAME.lmdb (a trailing '/' allowed), "hdf5" for NAME.h5; else NULL. */
const char *bale_output_format(const char *path);

/** Open the output at @path with backend @format (NULL: guess from the
 *  path: NAME-shards.json is wds, *.lmdb lmdb, *.h5 hdf5, a folder of
 *  class folders the raw "folder" baseline). One reader per thread. */
int bale_reader_open(struct bale_reader *r, const char *format,
    const char *path);

/** A backend option, given before open; @key and @value must outlive
 *  the open. Every reader takes meta=0: data and label only, no path or
 *  checksum (what a training loader needs). wds: images_only=1 reads only
 *  the image member. lmdb: map=1 reads a sample's repeat reads from the
 *  memory map in place (for data that stays cached over epochs); the
 *  bytes then stay valid while the reader is open. */
int bale_reader_option(struct bale_reader *r, const char *key,
    const char *value);

int bale_reader_count(struct bale_reader *r, uint64_t *n);

/** Sample @i, 0 <= i < count, in output order. */
int bale_reader_get(struct bale_reader *r, uint64_t i, struct bale_blob *out);

/** The files backing the output, NULL-terminated (for cache eviction). */
int bale_reader_files(struct bale_reader *r, const char *const **list);

/** A JSON object of what the output records about itself: version,
 *  layout, class names ... (format-specific keys). */
int bale_reader_info(struct bale_reader *r, const char **json);

/** The backend's name, or "" before open. */
const char *bale_reader_format(const struct bale_reader *r);
const char *bale_reader_errmsg(const struct bale_reader *r);
void bale_reader_free(struct bale_reader *r);

/* ---- pipeline: walk a source, read in parallel, write in order -------- */

struct bale_pipeline;

struct bale_progress {
	uint64_t done;		/* items handed to the writers or skipped */
	uint64_t total;		/* items the walk found */
	uint64_t bytes;		/* payload bytes written */
	double seconds;		/* since the walk finished */
	int final;		/* 1 on the last call */
};

typedef void (*bale_progress_fn)(const struct bale_progress *p, void *arg);

/** The encode stage (bale pack --resize ...). Zeroed: decode nothing.
 *  JPEG and PNG are decoded; a file of another format is skipped with a
 *  reason, since every setting here needs its pixels. */
struct bale_encode_opts {
	const char *resize;	/* "shorter:N", "longer:N", "exact:WxH",
				 * "fit:WxH", or NULL (keep the size) */
	const char *frame;	/* "crop" (centre) or "pad", or NULL */
	int upscale;		/* shorter/longer/fit may enlarge */
	const char *pixels;	/* "WxH": store RGB arrays of this size,
				 * cropped to fill (frame "pad": padded) */
	int quality;		/* JPEG quality 1..100; 0 means 90 */
	int subsampling;	/* 444, 422, 420; 0 means 420 */
	const char *color;	/* "rgb" (NULL): grey becomes RGB; "keep" */
	const char *alpha;	/* "composite" (NULL) on @background; "keep":
				 * RGBA is stored as PNG */
	const char *background;	/* "RRGGBB" for composite and pad; NULL:
				 * white */
	int keep_unchanged;	/* store the original bytes of an image no
				 * setting changes (no re-encode) */
	uint64_t max_pixels;	/* skip larger images, judged from the
				 * header; 0 means BALE_MAX_PIXELS_DEFAULT,
				 * UINT64_MAX no limit */
};

#define BALE_MAX_PIXELS_DEFAULT ((uint64_t)100000000)

struct bale_pack_opts {
	const char *src;		/* ImageFolder root, or base of @list */
	const char *list;		/* list file (path TAB label), or NULL */
	const char *out;		/* output folder, created if missing */
	const char *name;		/* file prefix; NULL means "data" */
	const char *formats;		/* comma-separated backend names */
	const char *const *options;	/* "[fmt.]key=value", NULL-terminated */
	unsigned threads;		/* 0 means one per online core */
	size_t window_bytes;		/* read-ahead bound; 0 means default */
	int shuffle;			/* permute the order with @seed */
	uint64_t seed;
	int strict;			/* a bad input fails the run */
	int replace;			/* replace an existing output */
	int resume;			/* carry on from the run the journal
					 * (NAME-resume.json) describes */
	const struct bale_encode_opts *encode;	/* NULL: bytes as read */
	bale_progress_fn progress;	/* called from the writing thread */
	void *progress_arg;
};

/** The default read-ahead bound of the reorder window. */
#define BALE_WINDOW_DEFAULT ((size_t)256 << 20)

struct bale_pack_stats {
	uint64_t found;		/* image files the walk found */
	uint64_t packed;	/* samples written */
	uint64_t skipped;	/* found but not written (see the report) */
	uint64_t ignored;	/* files that are not samples (extension ...) */
	uint64_t bytes;		/* payload bytes written */
	uint64_t resumed_at;	/* inputs an earlier run had done; 0 when
				 * this run started from the beginning */
	double seconds;		/* wall time of the whole run */
};

int bale_pipeline_new(struct bale_pipeline **out);

/** Walk, read, checksum and write every sample of @o->src.
 *  @return BALE_OK when every writer finished (inputs may have been
 *  skipped: see bale_pipeline_stats()), else a failure code */
int bale_pipeline_run(struct bale_pipeline *p, const struct bale_pack_opts *o);

void bale_pipeline_stats(const struct bale_pipeline *p,
    struct bale_pack_stats *out);

/** Skipped input number @i (0 ≤ i < skipped): its path and why. */
int bale_pipeline_skipped(const struct bale_pipeline *p, size_t i,
    const char **path, const char **reason);

/** Warning @i of the last run (nothing lost, worth saying): what it is
 *  about and what happened. @return BALE_OK or BALE_ENOENT */
int bale_pipeline_warning(const struct bale_pipeline *p, size_t i,
    const char **what, const char **text);

/** Write the JSON report of the last run, made with @o, to @path
 *  (atomically). @return BALE_OK, BALE_ESTATE (no run), BALE_EIO */
int bale_pipeline_write_report(struct bale_pipeline *p,
    const struct bale_pack_opts *o, const char *path);

/** Ask the current (or next) run to stop: it returns BALE_EINTR soon,
 *  having removed every unfinished output but what its last checkpoint
 *  covers (kept for --resume), and its report says "interrupted".
 *  Async-signal-safe: call it from a SIGINT handler. */
void bale_pipeline_stop(struct bale_pipeline *p);

const char *bale_pipeline_errmsg(const struct bale_pipeline *p);
void bale_pipeline_free(struct bale_pipeline *p);

/* ---- small helpers shared with the command line ----------------------- */

/** Parse "123", "64K", "1.5G" (binary multiples) into bytes.
 *  @return BALE_OK or BALE_EINVAL */
int bale_parse_size(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif
