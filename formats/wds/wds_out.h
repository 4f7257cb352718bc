/* wds_out.h - where a shard's tar bytes go on their way to the file.
 *
 * libarchive hands over every header, payload and padding block as its
 * own write. Written one by one, a sample of three members cost nine
 * write(2) calls, which made small samples slower to pack than tar. Here
 * small writes gather in a buffer and large payloads go out straight
 * from the sample's memory, in one writev(2) with what is buffered: no
 * copy of a large payload, and no system call of its own for a small
 * sample.
 */
#ifndef WDS_OUT_H
#define WDS_OUT_H

#include <archive.h>
#include <stddef.h>

struct wds_out {
	int fd;
	unsigned char *buf;
	size_t len;
	size_t cap;
};

/** Open @ar (set up, not yet opened) to write through @o into @o->fd.
 *  @return libarchive's status */
int bale_wds_out_open(struct archive *ar, struct wds_out *o);

/** Free the buffer (what it held is lost). */
void bale_wds_out_release(struct wds_out *o);

#endif
