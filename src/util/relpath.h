/* relpath.h - how two paths lie to each other (bale_file_relpath, the
 * path from one to the other, is a backend helper: bale_backend.h). */
#ifndef BALE_RELPATH_H
#define BALE_RELPATH_H

/** 1 when @path, which need not exist yet, is the folder @folder or lies
 *  below it, links resolved (what exists of @path is resolved, the rest
 *  taken as written); 0 when not, or when @folder cannot be resolved. */
int bale_path_inside(const char *path, const char *folder);

/** The length of @path without the '/'s it ends in ("/" stays "/"):
 *  a folder's name as printf's "%.*s" joins it to what lies below. */
int bale_path_trim_len(const char *path);

#endif
