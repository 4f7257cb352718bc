/* lmdb_pages.c - let go of the pages an LMDB environment's map has
 * brought into this process. Reading through the map makes every page
 * touched count in the process's memory until the map closes: a writer
 * of millions of samples, or a reader going through them all (ls,
 * verify), would count gigabytes. Its data file is mapped shared and
 * read-only, so dropping the mapped pages (MADV_DONTNEED) loses nothing:
 * they stay in the page cache, and a later access maps them again, even
 * one through a pointer a reader already handed out. */
#include "lmdb_pages.h"

#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* LMDB does not say where its map lies (me_mapaddr is only set for a
 * fixed map): the mapping of the data file's inode, in /proc/self/maps. */
static int lmdb_map_bounds(const struct stat *sb, unsigned long *lo,
    unsigned long *hi)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	unsigned long a, b, ino;
	unsigned maj, mn;
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu", &a, &b, &maj, &mn,
		    &ino) == 5 && ino == (unsigned long)sb->st_ino &&
		    makedev(maj, mn) == sb->st_dev) {
			*lo = a;
			*hi = b;
			found = 1;
		}
	fclose(f);
	return found;
}

void bale_lmdb_let_go(MDB_env *env, size_t bytes)
{
	unsigned long lo, hi;
	struct stat sb;
	int fd;

	if (mdb_env_get_fd(env, &fd) != 0 || fstat(fd, &sb) != 0 ||
	    !lmdb_map_bounds(&sb, &lo, &hi))
		return;		/* the pages stay: only memory is at stake */
	if (bytes > hi - lo)
		bytes = hi - lo;
	madvise((void *)lo, bytes, MADV_DONTNEED);
}
