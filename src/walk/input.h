/* input.h - read one source file completely, or say why not.
 *
 * Opening is split from reading so the pipeline can learn a file's size
 * and reserve room for it in the reorder window before reading it.
 * Never blocks on FIFOs or devices: only regular files are read.
 */
#ifndef BALE_INPUT_H
#define BALE_INPUT_H

#include "bale_backend.h"
#include "bale_backend_util.h"
#include "walk.h"

#include <stddef.h>

struct bale_input {
	int fd;			/* a file opened here, or -1 */
	size_t size;
	struct bale_errbuf err;	/* why a call failed */
	unsigned char *data;	/* bytes read already (a streamed member),
				 * for the caller to take; else NULL */
	int crc_known;		/* @crc is the crc32 of the bytes (checked
				 * against the one a packed source stored) */
	uint32_t crc;
	int is_member;		/* an archive member: @member says where */
	struct bale_walk_member member;
	const char *root;	/* a member: the source it lies in, and */
	const char *rel;	/* its path there (a kind that reads its
				 * members by name: a bucket's objects) */
};

/** Open @rel below folder @dirfd and learn its size.
 *  @return BALE_OK, or BALE_EINPUT when the file must be skipped (see
 *  @in->err) */
int bale_input_open(struct bale_input *in, int dirfd, const char *rel);

/* The folder files were last opened from, held open while they keep
 * coming from it: a file in a row then costs one name lookup, not one
 * per component of its path (a class folder of thousands, read in
 * order). Files from folders in no order (a shuffled run) open from the
 * root as before, with nothing more. One per thread. */
struct bale_input_dir {
	struct bale_buf path;	/* the last file's folder, below the root */
	int fd;			/* open on it, once a second file came */
};

#define BALE_INPUT_DIR_INIT { BALE_BUF_INIT, -1 }

/** Where to find @rel below @rootfd through @d: @d's folder, with
 *  *@name the file's name in it, from the second file of a folder on
 *  (one name to look up, not the whole path); else @rootfd and @rel. */
int bale_input_dir_at(struct bale_input_dir *d, int rootfd, const char *rel,
    const char **name);

/** bale_input_open() of @rel below @rootfd, through @d: the same result
 *  and the same reasons. */
int bale_input_open_in(struct bale_input *in, struct bale_input_dir *d,
    int rootfd, const char *rel);
void bale_input_dir_release(struct bale_input_dir *d);

/** Take archive member @m (its archive stays open, owned by the walk),
 *  at path @rel of the source @root, for its kind to read.
 *  @return BALE_OK, or BALE_EINPUT when it must be skipped (empty) */
int bale_input_member(struct bale_input *in, const struct bale_walk_member *m,
    const char *root, const char *rel);

/** Take the @size bytes at @data (malloc'd), read already: in->data.
 *  @return BALE_OK, or BALE_EINPUT when they must be skipped (empty) */
int bale_input_bytes(struct bale_input *in, unsigned char *data,
    size_t size);

/** Close @in and say why it is skipped: @what, then strerror(@err)
 *  unless @err is 0. @return BALE_EINPUT */
int bale_input_skip(struct bale_input *in, const char *what, int err);

/** Read the whole file into @buf (in->size bytes) and close it.
 *  @return BALE_OK, or BALE_EINPUT when the file must be skipped (see
 *  @in->err) */
int bale_input_read(struct bale_input *in, unsigned char *buf);

/** Read @n bytes of member @in->member's archive at @off into @buf (for
 *  the archive kinds' reads). @return BALE_OK, or BALE_EINPUT when the
 *  member must be skipped (a read error, the archive shrank) */
int bale_input_pread_member(struct bale_input *in, unsigned char *buf,
    size_t n, uint64_t off);

/** Read member @in->member, stored whole at its offset, into @buf (a
 *  tar's member, a stored zip member, a packed output's sample whose
 *  reader said where it lies). @return as bale_input_pread_member() */
int bale_input_read_stored(struct bale_input *in, unsigned char *buf);

/** Close a file that will not be read (or free bytes not taken). */
void bale_input_close(struct bale_input *in);

#endif
