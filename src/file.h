/* file.h - whole-file writes that never leave a half-written file. */
#ifndef BALE_FILE_H
#define BALE_FILE_H

#include <stddef.h>

/** Suffix of files still being written; they never look complete. */
#define BALE_PARTIAL ".partial"

/** Write @n bytes to "@path.partial", optionally fsync, then rename it
 *  to @path. On failure nothing is left behind and errno says why.
 *  @return 0 or -1 */
int bale_file_write_atomic(const char *path, const void *data, size_t n,
    int sync);

/** Write @n bytes to "@path.partial", optionally fsync it. The file
 *  does not look complete until bale_file_publish(). @return 0 or -1 */
int bale_file_write_partial(const char *path, const void *data, size_t n,
    int sync);

/** Rename "@path.partial" to @path; with @sync, also flush the folder
 *  so the rename survives a crash. @return 0 or -1 */
int bale_file_publish(const char *path, int sync);

/** fsync the file at @path. @return 0 or -1 */
int bale_file_sync(const char *path);

/** fsync the folder holding @path, so a rename in it is durable.
 *  @return 0 or -1 */
int bale_file_sync_parent(const char *path);

/** Write all @n bytes to @fd, retrying short writes. @return 0 or -1 */
int bale_file_write_all(int fd, const void *data, size_t n);

/** Create folder @path and its missing parents. @return 0 or -1 */
int bale_file_mkdirs(const char *path);

/** The whole file at @path, NUL-terminated, its size in *@n; NULL on
 *  failure (errno says why). Free it. */
char *bale_file_read_all(const char *path, size_t *n);

#endif
