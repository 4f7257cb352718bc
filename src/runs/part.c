/* part.c - which part of a run this process packs (bale pack --part): a
 * spec given as I/N, or the rank and count a scheduler sets. */
#include "bale.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Most parts a run may be cut into: beyond it a spec is a typo. */
#define PART_MAX_COUNT 1000000u

/* A decimal in 0..max from @s up to @end (NULL: its NUL). */
static int part_number(const char *s, const char *end, unsigned long max,
    uint32_t *out)
{
	unsigned long v;
	char *stop;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &stop, 10);
	if (errno != 0 || stop == s || (end ? stop != end : *stop != '\0') ||
	    v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* An index and a count from the environment variables @iv and @nv, if
 * both are set; the index less @minv's value when that is set (a Slurm
 * array may start at 1). 1: found (valid or not: *@why says), 0: not
 * set. */
static int part_from_env(const char *iv, const char *nv, const char *minv,
    uint32_t *index, uint32_t *count, const char **why)
{
	const char *i = getenv(iv);
	const char *n = getenv(nv);
	const char *m = minv ? getenv(minv) : NULL;
	uint32_t min = 0;

	if (!i || !n)
		return 0;
	if (part_number(n, NULL, PART_MAX_COUNT, count) != 0 || *count == 0 ||
	    part_number(i, NULL, UINT32_MAX, index) != 0 ||
	    (m && part_number(m, NULL, UINT32_MAX, &min) != 0) ||
	    *index < min || *index - min >= *count)
		*why = "the scheduler's rank and count are not an index "
		    "below a count";
	else
		*index -= min;
	return 1;
}

static int part_auto(uint32_t *index, uint32_t *count, const char **why)
{
	*why = NULL;
	if (part_from_env("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
	    "SLURM_ARRAY_TASK_MIN", index, count, why) ||
	    part_from_env("SLURM_PROCID", "SLURM_NTASKS", NULL, index, count,
	    why) ||
	    part_from_env("JOB_COMPLETION_INDEX", "JOB_COMPLETIONS", NULL,
	    index, count, why))
		return *why ? BALE_EINVAL : BALE_OK;
	*why = "part 'auto' needs a scheduler's rank, and none is set "
	    "(SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, SLURM_PROCID "
	    "and SLURM_NTASKS, or JOB_COMPLETION_INDEX and "
	    "JOB_COMPLETIONS)";
	return BALE_EINVAL;
}

static int part_parse(const char *spec, uint32_t *index, uint32_t *count,
    const char **why)
{
	const char *slash = spec ? strchr(spec, '/') : NULL;

	if (spec && strcmp(spec, "auto") == 0)
		return part_auto(index, count, why);
	if (!slash || part_number(slash + 1, NULL, PART_MAX_COUNT, count) ||
	    *count == 0 || part_number(spec, slash, PART_MAX_COUNT, index)) {
		*why = "a part is I/N, with N from 1 to 1000000, or auto";
		return BALE_EINVAL;
	}
	if (*index >= *count) {
		*why = "a part's index counts from 0: I/N needs I below N";
		return BALE_EINVAL;
	}
	return BALE_OK;
}

int bale_part_parse(const char *spec, uint32_t *index, uint32_t *count,
    struct bale_errbuf *err)
{
	struct bale_errbuf own;
	const char *why = NULL;
	int rc = part_parse(spec, index, count, &why);

	err = err ? err : &own;
	bale_errbuf_clear(err);
	if (rc != BALE_OK)
		bale_errbuf_set(err, rc, "%s", why);
	err->rc = rc;
	return rc;
}
