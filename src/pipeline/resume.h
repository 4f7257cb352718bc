/* resume.h - the pipeline's side of `bale pack --resume`: a fingerprint of
 * what a run writes, opening writers from a journal, following their
 * checkpoints. */
#ifndef BALE_RESUME_H
#define BALE_RESUME_H

#include "bale.h"
#include "bale_backend_util.h"
#include "journal.h"
#include "shuffle.h"
#include "report.h"
#include "walk.h"

/** A hash of what the whole run reads: each of the @n inputs' path and
 *  label in output order (@order: position -> walk index). It is made
 *  once, since a fingerprint of each part and of the whole run both
 *  stand on it, and at ten million inputs each pass took a second. */
uint64_t bale_resume_content(const struct bale_walk *walk,
    const struct bale_order *order, size_t n);

/** Fingerprint of a run into @out (16 hex digits): bale's version,
 *  the formats, name, backend options and encode settings, the class
 *  names, @content (bale_resume_content() of the whole run) and, with
 *  @with_part, which part of the run it is (which, with the whole
 *  run's content, says the part's). Thread count, window and
 *  strictness do not count. */
void bale_resume_fingerprint(const struct bale_pack_opts *o,
    const struct bale_walk *walk, uint64_t content, int with_part,
    char out[17]);

/** Open @n writers for @ds in @dir, and set *@first to the first input
 *  position some writer still needs. With @resume, each writer resumes
 *  from its entry in @j (or from nothing: a published output is then
 *  kept as complete, an unpublished one started again); without, each
 *  is opened afresh. @j then holds each writer's checkpoint, in
 *  writer order, and only the skipped inputs before *@first (also added
 *  to @report). Backends' notes go to @report as warnings. */
int bale_resume_open(struct bale_writer *const *w, size_t n, int resume,
    const char *dir, const struct bale_dataset *ds, struct bale_journal *j,
    uint64_t *first, struct bale_report *report, struct bale_errbuf *err);

/** Follow the writers' checkpoints into @j. @return 1 when one moved */
int bale_resume_follow(struct bale_journal *j, struct bale_writer *const *w,
    size_t n);

#endif
