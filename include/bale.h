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

/* What the library exports: everything declared with BALE_API in this
 * header and in bale_backend.h, nothing else (it is built with hidden
 * visibility). */
#if defined(__GNUC__)
#define BALE_API __attribute__((visibility("default")))
#else
#define BALE_API
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
	BALE_EEXIST = -8,	/* output exists; replacing it was not asked */
	BALE_EINPUT = -9,	/* an input was bad and strict was set */
	BALE_EINTR = -10,	/* stopped on request */
	BALE_ENOTSUP = -11,	/* the backend cannot do that */
	BALE_EAUTH = -12,	/* a store refused the credentials */
};

/** The library version, "MAJOR.MINOR.PATCH". */
BALE_API const char *bale_version(void);

/** A short English name for @rc ("out of memory"). Never NULL. */
BALE_API const char *bale_strerror(int rc);

/** The library's one error convention: a call that can fail returns
 *  BALE_OK or a BALE_E* code, and leaves a sentence (in the library's
 *  terms, never a command line's flags) in the handle it works on, read
 *  with that handle's errmsg call, or, for a call without a handle, in
 *  the struct bale_errbuf its caller passes (NULL: not wanted). What the
 *  user can do about it is a code, enum bale_remedy: in the errbuf, or
 *  from the handle (bale_pipeline_remedy). */
struct bale_errbuf {
	int rc;			/* the code the call returned */
	int remedy;		/* enum bale_remedy */
	char msg[512];		/* "" when the call succeeded */
};

/* ---- writer: one output format, fed samples in order ------------------ */

struct bale_writer;
struct bale_sample;

/** What every backend learns about the dataset before the first put(). */
struct bale_dataset {
	const char *name;	/* file prefix inside the output folder */
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
BALE_API int bale_writer_new(struct bale_writer **out);

/** Choose the backend by name ("wds").
 *  @return BALE_OK, or BALE_ENOENT when no such backend was built */
BALE_API int bale_writer_set_backend(struct bale_writer *w, const char *name);

/** Pass one backend option; only before bale_writer_open().
 *  @return BALE_OK, BALE_ENOOPT for an unknown key, BALE_EINVAL for a bad
 *  value, BALE_ESTATE when called late */
BALE_API int bale_writer_option(struct bale_writer *w, const char *key,
    const char *value);

/** Create the output inside folder @dir (which must exist). */
BALE_API int bale_writer_open(struct bale_writer *w, const char *dir,
    const struct bale_dataset *ds);

struct bale_resume;

/** Instead of bale_writer_open(): pick up the unpublished output a
 *  checkpoint describes (see struct bale_resume). A sample below
 *  rs->next, or any sample once rs->complete, is then ignored by put. */
BALE_API int bale_writer_resume(struct bale_writer *w, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs);

/** Where the writer's last checkpoint is (what its backend last reported
 *  with bale_writer_reached()), with the state a resume needs (NULL: none;
 *  valid until the writer is next used). @return 1 when it moved since
 *  the last call, else 0 */
BALE_API int bale_writer_checkpoint(struct bale_writer *w, uint64_t *next,
    const char **state);

/** Append one sample; the writer only borrows it for the call. */
BALE_API int bale_writer_put(struct bale_writer *w,
    const struct bale_sample *s);

/** Write out everything; the output does not look complete yet. */
BALE_API int bale_writer_finish(struct bale_writer *w);

/** Make a finished output look complete (a rename). Writing several
 *  formats, finish them all before publishing any. */
BALE_API int bale_writer_publish(struct bale_writer *w);

/** The backend's name, or "" when none was chosen. */
BALE_API const char *bale_writer_name(const struct bale_writer *w);
BALE_API const char *bale_writer_errmsg(const struct bale_writer *w);

/** Release the writer; an unpublished output is removed. NULL is fine. */
BALE_API void bale_writer_free(struct bale_writer *w);

/** Names of the backends built into this library, NULL-terminated. */
BALE_API const char *const *bale_backend_names(void);

/* ---- reader: random access to one packed output ----------------------- */

struct bale_reader;

/** The label of a sample that has none (an unlabelled dataset's, as the
 *  Hugging Face datasets library marks a missing ClassLabel). */
#define BALE_LABEL_NONE (-1)

/** One stored sample. Valid until the next call on the same reader. */
struct bale_blob {
	const unsigned char *data;
	size_t size;
	int64_t label;		/* its class, or BALE_LABEL_NONE */
	const char *key;	/* the sample key */
	const char *path;	/* source path below its root, or NULL */
	uint32_t crc32;		/* stored checksum, when has_crc32 */
	int has_crc32;
};

BALE_API int bale_reader_new(struct bale_reader **out);

/** The format of the output at @path, recognised by its content (each
 *  backend's probe: a wids shard list, an LMDB environment folder or
 *  file, an HDF5 file, whatever they are named); NULL when it is none,
 *  does not exist, or is still being written (a *.partial name). */
BALE_API const char *bale_output_format(const char *path);

/** Every output in folder @dir (of @format, if not NULL), recognised by
 *  content whatever its name, sorted by name; names that start with a
 *  dot (bale's working folders, hidden files) are never outputs. Into
 *  *@paths (*@n of them; release with bale_outputs_free()).
 *  @return BALE_OK (perhaps none), BALE_ENOENT (@dir is not a folder
 *  that can be read), BALE_ENOMEM */
BALE_API int bale_outputs_in(const char *dir, const char *format,
    char ***paths, size_t *n);
BALE_API void bale_outputs_free(char **paths, size_t n);

/** Which of @n outputs (paths of outputs, as bale_output_format() knows
 *  them) a reader of one takes: the only one; or, when they are one
 *  dataset in several formats (the same NAME: the same samples), the
 *  one whose format reads fastest at random (the lowest read_rank of
 *  its backend, bale_backend.h). Its NAME in @name (@cap bytes), if not
 *  NULL. @return its index, or -1 when they are different datasets or
 *  there is none */
BALE_API long bale_output_pick(const char *const *paths, size_t n,
    char *name, size_t cap);

/** Open the output at @path with backend @format (NULL or "auto": the
 *  one bale_output_format() names; any other folder is read as the raw
 *  "folder" baseline). One reader per thread. */
BALE_API int bale_reader_open(struct bale_reader *r, const char *format,
    const char *path);

/** A backend option, given before open; @key and @value must outlive
 *  the open. Every reader takes meta=0: data and label only, no path or
 *  checksum (what a training loader needs). wds: images_only=1 reads only
 *  the image member. lmdb: map=1 reads a sample's repeat reads from the
 *  memory map in place (for data that stays cached over epochs); the
 *  bytes then stay valid while the reader is open. */
BALE_API int bale_reader_option(struct bale_reader *r, const char *key,
    const char *value);

BALE_API int bale_reader_count(struct bale_reader *r, uint64_t *n);

/** Sample @i, 0 <= i < count, in output order. */
BALE_API int bale_reader_get(struct bale_reader *r, uint64_t i,
    struct bale_blob *out);

/** Sample @i's data size, when the reader knows it without any I/O
 *  (from an index it holds in memory): BALE_OK, else BALE_ENOTSUP. Lets
 *  a caller make the memory for a get before it starts. */
BALE_API int bale_reader_size(struct bale_reader *r, uint64_t i,
    size_t *size);

/** Sample @i's label alone: without reading its bytes where the format
 *  keeps labels apart (all of bale's), else by reading the sample. */
BALE_API int bale_reader_label(struct bale_reader *r, uint64_t i,
    int64_t *label);

/** The labels of samples [@first, @first + @n) into @out: from an index
 *  of a few bytes a sample where the output keeps one, else as
 *  bale_reader_label() gives each. */
BALE_API int bale_reader_labels(struct bale_reader *r, uint64_t first,
    uint64_t n, int64_t *out);

/** Memory of the caller's for a sample's data bytes: @size bytes, or
 *  NULL when there is none (the get then fails with BALE_ENOMEM). */
typedef void *(*bale_dest_fn)(void *ctx, size_t size);

/** Have get() put the data bytes in memory of the caller's instead of
 *  the reader's buffer: once a get knows the sample's size it calls
 *  @dest(@ctx, size) exactly once and blob.data points there. A caller
 *  that keeps the bytes (a Python bytes object, a batch buffer) so
 *  saves a copy: the backends read straight into it. When a get fails,
 *  whatever @dest handed out is the caller's to free. NULL: off. */
BALE_API int bale_reader_set_dest(struct bale_reader *r, bale_dest_fn dest,
    void *ctx);

/** The files backing the output, NULL-terminated (for cache eviction). */
BALE_API int bale_reader_files(struct bale_reader *r, const char *const **list);

/** A JSON object of what the output records about itself: version,
 *  layout ... (format-specific keys); its class names, when it records
 *  them, as the top-level "classes" array, whatever the format; a
 *  top-level "shape" ([height, width, 3]) when its samples are bare
 *  pixel rows. */
BALE_API int bale_reader_info(struct bale_reader *r, const char **json);

/** The backend's name, or "" before open. */
BALE_API const char *bale_reader_format(const struct bale_reader *r);
/** What the last bale_reader_get(), which succeeded, found wrong beside
 *  the sample, or NULL: with the option check_indexes=1, an index kept
 *  beside the data that is damaged or disagrees with it (readers fall
 *  back to the slower way; the sample itself is sound). */
BALE_API const char *bale_reader_note(const struct bale_reader *r);
BALE_API const char *bale_reader_errmsg(const struct bale_reader *r);
BALE_API void bale_reader_free(struct bale_reader *r);

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
	const char *list;	/* list file (path TAB label), or NULL */
	const char *out;		/* output folder, created if missing */
	const char *name;		/* file prefix; NULL means "data" */
	const char *formats;		/* comma-separated backend names */
	const char *const *options;	/* "[fmt.]key=value", NULL-terminated */
	unsigned threads;		/* reader threads; 0: one per CPU
					 * this process may use (affinity,
					 * cgroup quota, Slurm), more while
					 * reads wait */
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
	const char *const *more_srcs;	/* further archives packed with
					 * @src as one dataset (as if all
					 * were extracted into one folder, in
					 * this order; WebDataset shards: one
					 * after another), NULL-terminated;
					 * NULL: @src alone */
	uint32_t part_index;		/* with @part_count: pack only part
					 * @part_index (0-based) of the run's
					 * final order, cut into @part_count
					 * contiguous slices balanced by
					 * count; keys stay the whole run's */
	uint32_t part_count;		/* 0: the whole run */
	int update;			/* pack only what changed in @src
					 * since the output was made (its
					 * NAME-manifest.jsonl); the first
					 * run packs all and writes it */
	int relabel;			/* with @update: rebuild all, labels
					 * numbered as torchvision does */
	int validate;			/* decode every image (the bytes are
					 * stored as they are) and skip those
					 * that do not decode, with why; the
					 * encode stage decodes anyway */
	int allow_damaged;		/* an archive source damaged part-way
					 * (cut short, a bad header): pack the
					 * members before the damage, with a
					 * warning; 0: such a source fails the
					 * run (what follows the damage would
					 * be missing unnoticed) */
	const char *archive_root;	/* an archive source: the folder
					 * inside it that holds the class
					 * folders ("." its top level); NULL:
					 * its top level, or its one top
					 * folder when every image is below
					 * it and some in its sub-folders */
	const char *image_column;	/* a source of columns (Parquet):
					 * the column of image bytes, or a
					 * struct whose "bytes" it is (NULL:
					 * "image", else the one binary
					 * column) */
	const char *label_column;	/* and of labels, integers or class
					 * names (NULL: "label") */
	size_t upload_part;		/* an output in an object store:
					 * the bytes of each part of a
					 * shard's multipart upload (0: 8
					 * MiB; S3 takes 5 MiB to 5 GiB) */
	unsigned uploads;		/* and the parts sent at once (0:
					 * 4): a shard being uploaded holds
					 * (uploads + 1) x upload_part bytes
					 * of memory at most */
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
	uint64_t version;	/* --update: the dataset's version now (0:
				 * not an update run) */
	uint64_t added;		/* --update: new files packed */
	uint64_t replaced;	/* files whose size or time changed */
	uint64_t removed;	/* samples whose file is gone */
	uint64_t unchanged;	/* samples kept as they were, not read */
	uint64_t new_classes;	/* class folders numbered after the rest */
	uint64_t reencoded;	/* samples the encode stage decoded and
				 * encoded anew (the rest keep their bytes) */
	uint64_t resumed_kept;	/* samples an earlier run wrote before
				 * @resumed_at, kept (the output holds
				 * these and @packed) */
};

BALE_API int bale_pipeline_new(struct bale_pipeline **out);

/** Walk, read, checksum and write every sample of @o->src.
 *  @return BALE_OK when every writer finished (inputs may have been
 *  skipped: see bale_pipeline_stats()), else a failure code */
BALE_API int bale_pipeline_run(struct bale_pipeline *p,
    const struct bale_pack_opts *o);

BALE_API void bale_pipeline_stats(const struct bale_pipeline *p,
    struct bale_pack_stats *out);

/** Skipped input number @i (0 ≤ i < skipped): its path and why. */
BALE_API int bale_pipeline_skipped(const struct bale_pipeline *p, size_t i,
    const char **path, const char **reason);

/** Warning @i of the last run (nothing lost, worth saying): what it is
 *  about and what happened. @return BALE_OK or BALE_ENOENT */
BALE_API int bale_pipeline_warning(const struct bale_pipeline *p, size_t i,
    const char **what, const char **text);

/** Write the JSON report of the last run, made with @o, to @path
 *  (atomically). @return BALE_OK, BALE_ESTATE (no run), BALE_EIO */
BALE_API int bale_pipeline_write_report(struct bale_pipeline *p,
    const struct bale_pack_opts *o, const char *path);

/** Ask the current (or next) run to stop: it returns BALE_EINTR soon,
 *  having removed every unfinished output but what its last checkpoint
 *  covers (kept for --resume), and its report says "interrupted".
 *  Async-signal-safe: call it from a SIGINT handler. */
BALE_API void bale_pipeline_stop(struct bale_pipeline *p);

BALE_API const char *bale_pipeline_errmsg(const struct bale_pipeline *p);

/** What a user can do about a failed run. The message says what went
 *  wrong in the library's terms; a front end says the remedy in its own
 *  (bale pack names the flag). */
enum bale_remedy {
	BALE_REMEDY_NONE = 0,
	BALE_REMEDY_REPLACE,	/* an output is in the way: set replace */
	BALE_REMEDY_RESUME,	/* checkpoints were kept: run again with
				 * resume set to carry on */
	BALE_REMEDY_START_OVER,	/* the journal is not this run's: run
				 * again without resume */
	BALE_REMEDY_ALLOW_DAMAGED,	/* an archive source is damaged:
				 * set allow_damaged to pack what comes
				 * before the damage */
	BALE_REMEDY_CHANGE_OPTIONS,	/* the options cannot work (a bad
				 * value, two that exclude each other, or
				 * not for this source or output): nothing
				 * was written; change them */
	BALE_REMEDY_RELABEL,	/* an earlier update of the output was
				 * cut short: update with relabel set,
				 * which rebuilds it */
	BALE_REMEDY_START_UPDATES,	/* the output has no manifest, so an
				 * update cannot tell what changed: run
				 * the update with replace set too, which
				 * rebuilds it with one */
	BALE_REMEDY_FREE_SPACE,	/* the output's filesystem is full: free
				 * space there, then run again */
	BALE_REMEDY_FREE_SPACE_RESUME,	/* the same, and checkpoints were
				 * kept: run again with resume set */
};

/** The remedy for the last run's failure (BALE_REMEDY_NONE: none, or
 *  the run did not fail). */
BALE_API int bale_pipeline_remedy(const struct bale_pipeline *p);
BALE_API void bale_pipeline_free(struct bale_pipeline *p);

/* ---- small helpers shared with the command line ----------------------- */

/** Parse "123", "64K", "1.5G" (binary multiples) into bytes.
 *  @return BALE_OK or BALE_EINVAL */
BALE_API int bale_parse_size(const char *s, uint64_t *out);

/* ---- merge: the parts of one run as one dataset ----------------------- */

struct bale_merge_opts {
	const char *name;	/* NAME of the parts' files; NULL: "data" */
	const char *formats;	/* comma-separated; NULL: all the parts hold */
	int replace;		/* replace an existing merged output */
	int copy;		/* copy the parts' data: an output that stands
				 * alone (default: wds shards linked, HDF5
				 * images a virtual dataset over the parts) */
};

/** Join the @nparts part folders of one run (packed with part_index and
 *  part_count, in any order) into one dataset per format in folder @out,
 *  as a single run would have written it. Checks first that every part
 *  is complete (its NAME-part.json), of one run, and there once: a
 *  missing, doubled or foreign part is named in the error.
 *  @return BALE_OK, or an error, described in @err (remedy
 *  BALE_REMEDY_REPLACE when a merged output is in the way) */
BALE_API int bale_merge_parts(const char *out, const char *const *parts,
    size_t nparts, const struct bale_merge_opts *o, struct bale_errbuf *err);

/** Parse a part spec: "I/N" (0 <= I < N), or "auto" for the rank and
 *  count a scheduler gives: SLURM_ARRAY_TASK_ID (less
 *  SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_COUNT, else
 *  SLURM_PROCID/SLURM_NTASKS, else Kubernetes' JOB_COMPLETION_INDEX
 *  with JOB_COMPLETIONS (set it in the Job's manifest).
 *  @return BALE_OK, or BALE_EINVAL, described in @err */
BALE_API int bale_part_parse(const char *spec, uint32_t *index,
    uint32_t *count, struct bale_errbuf *err);

/* ---- loader: training batches decoded, cropped and batched in C ------
 *
 * Reader threads fetch the samples of an epoch in a seeded order; each
 * crops its sample (decoding only what the crop needs) straight into its
 * place in a batch buffer; the caller takes finished batches in order.
 * Every choice (order, crop box, flip, the sample that replaces a bad
 * one) is a function of (seed, epoch, position): any thread count gives
 * the same bytes, and (epoch, batches done) resumes exactly. */
struct bale_loader;

/** What the loader does with a sample that does not decode. */
enum bale_loader_on_bad {
	BALE_BAD_AUTO = 0,	/* train: replace; else fail */
	BALE_BAD_REPLACE,	/* the next sample of the order takes its
				 * place (training: the batch stays full) */
	BALE_BAD_SKIP,		/* left out: its batch holds one fewer,
				 * the epoch is shorter, nothing repeated */
	BALE_BAD_FAIL,		/* the loader fails at its batch, naming
				 * the sample (the batches before it come) */
};

struct bale_loader_opts {
	unsigned batch_size;
	int width, height;	/* the output size */
	int train;		/* RandomResizedCrop + horizontal flip, in
				 * a new order each epoch; else Resize +
				 * CenterCrop, in the output's order unless
				 * @shuffle */
	int resize;		/* eval: the shorter side first (0: width *
				 * 256 / 224, torchvision's recipe) */
	double scale[2];	/* train: area share (0: 0.08, 1) */
	double ratio[2];	/* train: aspect w / h (0: 3/4, 4/3) */
	int shuffle;		/* eval: in a seeded order too */
	uint64_t seed;
	unsigned rank, world_size;	/* disjoint shares of each epoch;
					 * world_size 0 is 1 */
	int drop_last;		/* ranks' shares and the last batch cut to
				 * whole batches; else padded by repeating
				 * samples (as DistributedSampler) */
	unsigned threads;	/* 0: the CPUs this process may use */
	unsigned prefetch;	/* batches made ahead (0: 2) */
	int channels_last;	/* images B x H x W x 3, else B x 3 x H x W */
	int exact;		/* JPEG never decoded at a DCT scale */
	int exif;		/* JPEG shown as its EXIF orientation says
				 * (torchvision's loader applies none) */
	int strict;		/* the same as @on_bad BALE_BAD_FAIL */
	int on_bad;		/* enum bale_loader_on_bad: a sample that
				 * does not decode (each is listed once) */
	const char *format;	/* the output's backend; NULL: recognise */
	/* An output in an object store: its samples' GETs are sent ahead
	 * of the threads, in the epoch's order, at most @io_requests at
	 * once (0: 64) and @io_bytes of answers held, queued or on their
	 * way (0: 128 MiB). */
	unsigned io_requests;
	uint64_t io_bytes;
	/* The run order (train, or shuffle): runs of @run_samples
	 * consecutive samples (one GET each from an object store) in a
	 * seeded order, the samples of @run_window runs at a time (0: 16)
	 * shuffled among themselves; 0: the sample order, each sample
	 * anywhere in the epoch (one GET a sample). */
	unsigned run_samples;
	unsigned run_window;
	int normalize;		/* images as float32 (v / 255 - mean) / std,
				 * torchvision's ToTensor + Normalize, per
				 * channel; else bytes */
	float mean[3], std[3];
	/* The ring, the caller's (pinned memory, tensors): prefetch + 1
	 * buffers of batch_size images and of batch_size labels each;
	 * NULL: the loader allocates it. */
	void *const *ring_images;
	int64_t *const *ring_labels;
};

/** One batch: valid until the next call of bale_loader_next(). */
struct bale_batch {
	uint64_t index;		/* in the epoch, from 0 */
	unsigned slot;		/* the ring buffer holding it */
	unsigned n;		/* samples (the last may hold fewer, and a
				 * batch with samples left out) */
	unsigned char *images;	/* n x 3 x H x W (or n x H x W x 3) bytes,
				 * or float32 values with normalize */
	int64_t *labels;	/* n */
};

BALE_API int bale_loader_new(struct bale_loader **out);
/** Open the output at @path (any output bale reads, a folder holding
 *  one, or a raw ImageFolder tree) and start the threads at epoch 0.
 *  @return BALE_OK, or a failure code (see errmsg) */
BALE_API int bale_loader_open(struct bale_loader *l, const char *path,
    const struct bale_loader_opts *o);
/** Batches per epoch (this rank's), and samples in the output. */
BALE_API uint64_t bale_loader_batches(const struct bale_loader *l);
BALE_API uint64_t bale_loader_samples(const struct bale_loader *l);
/** Go to batch @batch of epoch @epoch (0: its start), dropping what was
 *  made ahead. */
BALE_API int bale_loader_seek(struct bale_loader *l, uint64_t epoch,
    uint64_t batch);
/** The next batch of the epoch, waiting for it.
 *  @return BALE_OK; BALE_ENOENT at the epoch's end; a failure code
 *  (strict and a bad sample, a read error: see errmsg) */
BALE_API int bale_loader_next(struct bale_loader *l, struct bale_batch *b);
/** Samples that did not decode (since open, each counted once), and
 *  the @i-th of them (@i < 1000): its index in the output and why. */
BALE_API uint64_t bale_loader_nbad(const struct bale_loader *l);
/** Positions of the epoch so far (since the last seek) whose sample
 *  did not decode: replaced, or left out. */
BALE_API uint64_t bale_loader_nbad_epoch(const struct bale_loader *l);
BALE_API int bale_loader_bad(const struct bale_loader *l, size_t i,
    uint64_t *sample, const char **why);
BALE_API const char *bale_loader_errmsg(const struct bale_loader *l);
/** Stop the threads and free everything; NULL is fine. */
BALE_API void bale_loader_free(struct bale_loader *l);

/** zlib's CRC-32 of @data[0..n) (Python's zlib.crc32 gives the same, so
 *  any user can check a sample): the checksum every output stores. */
BALE_API uint32_t bale_crc32(const void *data, size_t n);

#ifdef __cplusplus
}
#endif
#endif
