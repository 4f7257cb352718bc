/* scratch.c - see scratch.h. Any failure here is the machine's, not the
 * code under test's: it aborts, so libFuzzer stops and shows it. */
#include "scratch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch_dir[64];

static void scratch_remove(void)
{
	char path[320];
	struct dirent *e;
	DIR *d = opendir(scratch_dir);

	while (d && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", scratch_dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(scratch_dir);
}

const char *fuzz_scratch_path(const char *name)
{
	static char path[128];

	if (!scratch_dir[0]) {
		snprintf(scratch_dir, sizeof(scratch_dir),
		    "/tmp/bale-fuzz-XXXXXX");
		if (!mkdtemp(scratch_dir))
			abort();
		atexit(scratch_remove);
	}
	snprintf(path, sizeof(path), "%s/%s", scratch_dir, name);
	return path;
}

void fuzz_scratch_put(const char *name, const uint8_t *p, size_t n)
{
	FILE *f = fopen(fuzz_scratch_path(name), "wb");

	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
		abort();
}
