/* cache.h - evict files from the page cache and check that it worked. */
#ifndef BALE_CACHE_H
#define BALE_CACHE_H

/** Flush and drop the cached pages of every file in @files (NULL-ended),
 *  with posix_fadvise(DONTNEED): no privileges needed, data pages only.
 *  @return 0, or -1 if some file could not be opened */
int bale_cache_evict(const char *const *files);

/** The share (0..1) of the pages of @files now in the page cache,
 *  measured with mincore() (files that cannot be mapped left out); -1
 *  if no file can be measured. */
double bale_cache_resident(const char *const *files);

/** sync, then drop page cache, dentries and inodes system-wide through
 *  /proc/sys/vm/drop_caches. @return 0, or -1 (not permitted) */
int bale_cache_drop_all(void);

#endif
