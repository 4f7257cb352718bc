/* stage.h - a run that replaces an output (bale pack --force) writes
 * into a hidden folder beside it, OUT/.NAME-replace, and the old output
 * stays whole and readable until the new one is complete; then each
 * format's files are moved over the old ones (the step that makes an
 * output look complete last), and the old output's files that the new
 * one has not overwritten go. A failed or interrupted run leaves the old
 * output as it was.
 */
#ifndef BALE_STAGE_H
#define BALE_STAGE_H

#include "bale_backend_util.h"

/** The staging folder of output @name in @out ("OUT/.NAME-replace"),
 *  newly allocated; NULL without memory. */
char *bale_stage_dir(const char *out, const char *name);

/** Move @be's complete output @name from @stage into @out over the old
 *  one, then remove the old one's files the new one did not overwrite.
 *  Old files that are in the way are moved into @stage first (removed
 *  with it). With @sync, the renames are made durable.
 *  @return BALE_OK, or BALE_EIO / BALE_ENOMEM with @err set */
int bale_stage_swap(const struct bale_backend *be, const char *stage,
    const char *out, const char *name, int sync, struct bale_errbuf *err);

#endif
