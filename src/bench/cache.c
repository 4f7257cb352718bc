/* cache.c - page cache eviction and residency for cold-cache benchmarks. */
#include "cache.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int bale_cache_evict(const char *const *files)
{
	int rc = 0;
	int fd;

	for (; *files; files++) {
		fd = open(*files, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = -1;
			continue;
		}
		/* dirty pages cannot be dropped: write them out first */
		fdatasync(fd);
		if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
			rc = -1;
		close(fd);
	}
	return rc;
}

/* Resident and total pages of one file. */
static int cache_file(const char *path, uint64_t *res, uint64_t *total)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	struct stat st;
	size_t pages;
	size_t i;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	pages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
	map = pages ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED,
	    fd, 0) : NULL;
	close(fd);
	if (pages && map == MAP_FAILED)
		return -1;
	vec = malloc(pages ? pages : 1);
	if (vec && (!pages || mincore(map, (size_t)st.st_size, vec) == 0))
		for (i = 0; i < pages; i++)
			*res += vec[i] & 1;
	*total += pages;
	free(vec);
	if (pages)
		munmap(map, (size_t)st.st_size);
	return vec ? 0 : -1;
}

double bale_cache_resident(const char *const *files)
{
	uint64_t res = 0;
	uint64_t total = 0;
	size_t measured = 0;

	/* a file that cannot be mapped (unreadable, gone) is left out: the
	 * rest still say whether the eviction took */
	for (; *files; files++)
		measured += cache_file(*files, &res, &total) == 0;
	if (!measured)
		return -1;
	return total ? (double)res / (double)total : 0;
}

int bale_cache_drop_all(void)
{
	int fd;
	int rc;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = write(fd, "3\n", 2) == 2 ? 0 : -1;
	close(fd);
	return rc;
}
