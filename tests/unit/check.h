/* check.h - the few assertions the unit tests need. */
#ifndef BALE_CHECK_H
#define BALE_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, \
		    __LINE__, #cond); \
		check_failures++; \
	} \
} while (0)

#define CHECK_EQ(want, got) do { \
	long long w_ = (long long)(want), g_ = (long long)(got); \
	if (w_ != g_) { \
		fprintf(stderr, "%s:%d: %s: want %lld, got %lld\n", \
		    __FILE__, __LINE__, #got, w_, g_); \
		check_failures++; \
	} \
} while (0)

#define CHECK_STR(want, got) do { \
	const char *w_ = (want), *g_ = (got); \
	if (!g_ || strcmp(w_, g_) != 0) { \
		fprintf(stderr, "%s:%d: %s: want \"%s\", got \"%s\"\n", \
		    __FILE__, __LINE__, #got, w_, g_ ? g_ : "(null)"); \
		check_failures++; \
	} \
} while (0)

/* Remove the scratch folder @dir and all below it (mkdtemp names only:
 * no quote can be in them). */
static inline void check_rmtree(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

#define CHECK_DONE() (check_failures ? (fprintf(stderr, \
    "%d check(s) failed\n", check_failures), 1) : 0)

#endif
