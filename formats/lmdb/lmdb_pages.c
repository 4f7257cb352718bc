/* lmdb_pages.c - where LMDB mapped a data file, and letting go of the
 * pages that map has brought into this process. Reading through the map
 * makes every page touched count in the process's memory until the map
 * closes: a writer of millions of samples, or a reader going through
 * them all (ls, verify), would count gigabytes. The data file is mapped
 * shared and read-only, so dropping the mapped pages (MADV_DONTNEED)
 * loses nothing: they stay in the page cache, and a later access maps
 * them again, even one through a pointer a reader already handed out. */
#include "lmdb_pages.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *bale_lmdb_map_of(dev_t dev, ino_t ino, size_t *len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	unsigned long lo, hi, off, node;
	unsigned maj, mn;
	const char *map = NULL;

	while (f && !map && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu", &lo, &hi, &off,
		    &maj, &mn, &node) == 6 && off == 0 &&
		    node == (unsigned long)ino && makedev(maj, mn) == dev) {
			map = (const char *)(uintptr_t)lo;
			*len = hi - lo;
		}
	if (f)
		fclose(f);
	return map;
}

void bale_lmdb_let_go_of(const char *map, size_t len, size_t bytes)
{
	if (map)
		madvise((void *)map, bytes < len ? bytes : len, MADV_DONTNEED);
}

void bale_lmdb_let_go(MDB_env *env, size_t bytes)
{
	const char *map;
	struct stat sb;
	size_t len;
	int fd;

	if (mdb_env_get_fd(env, &fd) != 0 || fstat(fd, &sb) != 0)
		return;		/* the pages stay: only memory is at stake */
	map = bale_lmdb_map_of(sb.st_dev, sb.st_ino, &len);
	bale_lmdb_let_go_of(map, len, bytes);
}
