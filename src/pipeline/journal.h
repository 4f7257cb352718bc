/* journal.h - what `bale pack --resume` needs to pick a run up.
 *
 * The pipeline rewrites OUT/NAME-resume.json (atomically) whenever a
 * writer's checkpoint moves: the run's fingerprint, each writer's
 * checkpoint and state, and the inputs skipped so far. A run that
 * publishes every output removes it.
 */
#ifndef BALE_JOURNAL_H
#define BALE_JOURNAL_H

#include "bale_backend_util.h"

#include <stddef.h>
#include <stdint.h>

#define BALE_JOURNAL_MAX_WRITERS 8

struct bale_journal_writer {
	char *name;
	uint64_t next;
	char *state;		/* JSON object, or NULL */
};

struct bale_journal_skip {
	uint64_t pos;
	char *path;
	char *why;
};

struct bale_journal {
	char fingerprint[17];	/* 16 hex digits */
	struct bale_journal_writer writers[BALE_JOURNAL_MAX_WRITERS];
	size_t nwriters;
	struct bale_journal_skip *skipped;
	size_t nskipped;
	size_t capskipped;
};

/** The journal's file name for output folder @dir and prefix @name. */
char *bale_journal_path(const char *dir, const char *name);

/** Add input @pos, skipped for @why. @return 0 or -1 (no memory) */
int bale_journal_skip(struct bale_journal *j, uint64_t pos, const char *path,
    const char *why);

/** Write @j to @path atomically (in an object store: one PUT).
 *  @return BALE_OK, or an error said in @err */
int bale_journal_write(const struct bale_journal *j, const char *path,
    int sync, struct bale_errbuf *err);

/** Read @path into @j (zeroed first). @return BALE_OK, BALE_ENOENT
 *  when there is no journal, BALE_EIO or BALE_EINVAL when it cannot be
 *  read or is not one (@err says which) */
int bale_journal_read(struct bale_journal *j, const char *path,
    struct bale_errbuf *err);

void bale_journal_release(struct bale_journal *j);

#endif
