/* wds.c - WebDataset tar shards, with DALI .idx files and a wids shard list.
 *
 * Output, for name N in folder D:
 *   D/N-000000.tar ...   plain ustar shards; per sample KEY.<ext> (original
 *                        bytes), KEY.cls (decimal label), KEY.json (path,
 *                        size, crc32, label, class); fixed owner/mode/mtime
 *   D/N-000000.idx ...   DALI wds2idx v1.2: "v1.2 COUNT", then per sample
 *                        "ext data_offset size member_name" per member
 *   D/N-shards.json      wids-shard-index-v1 list; written last, so its
 *                        presence means the output is complete
 * Shards are written as "*.partial" and renamed when complete. Member
 * offsets are computed, not read back: a ustar member is a 512-byte header
 * plus its data padded to 512, and the archive ends with 1024 zero bytes.
 * Each finished shard is a checkpoint (bale pack --resume): a failed or
 * killed run leaves them; a resumed run verifies and keeps them
 * (wds_verify.c).
 */
#include "bale_backend.h"

#include "wds_verify.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WDS_BLOCK 512
#define WDS_END_BYTES 1024		/* two zero blocks close a tar */
#define WDS_WRITE_BLOCK 0	/* unbuffered: payloads go straight
				 * from the sample to write(2), no copy */
#define WDS_DEFAULT_SHARD_SIZE ((uint64_t)1 << 30)

struct wds_w {
	uint64_t max_count;	/* samples per shard; 0: no limit */
	uint64_t max_bytes;	/* shard file size limit; 0: no limit */
	int sync;		/* fsync shards and lists before renaming */
	char *dir;
	char *name;
	struct archive *ar;	/* the open shard, or NULL */
	struct archive_entry *entry;
	int fd;
	char *tmp;		/* the open shard's "*.partial" path */
	unsigned shard_no;	/* shards completed by this run */
	uint64_t shard_samples;
	uint64_t shard_bytes;	/* tar bytes so far in the open shard */
	uint64_t samples;
	struct bale_buf idx;	/* the open shard's index lines */
	struct bale_buf list;	/* shardlist entries so far */
	struct bale_buf classes;/* JSON array of class names */
	struct bale_buf meta;	/* the .json member being written */
	struct bale_buf scratch;
	int published;
	uint64_t last_index;	/* of the last sample put */
};

static uint64_t wds_padded(uint64_t n)
{
	return (n + WDS_BLOCK - 1) / WDS_BLOCK * WDS_BLOCK;
}

static uint64_t wds_member_bytes(uint64_t n)
{
	return WDS_BLOCK + wds_padded(n);
}

static char *wds_path(const struct wds_w *st, unsigned no, const char *ext)
{
	return bale_strfmt("%s/%s-%06u.%s", st->dir, st->name, no, ext);
}

/* libarchive's message, with the system's reason when it has one. */
static const char *wds_archive_error(struct archive *ar, char *buf,
    size_t cap)
{
	const char *msg = archive_error_string(ar);
	int err = archive_errno(ar);

	if (err > 0)
		snprintf(buf, cap, "%s: %s", msg ? msg : "error",
		    strerror(err));
	else
		snprintf(buf, cap, "%s", msg ? msg : "error");
	return buf;
}

/* ---- options and open ---------------------------------------------------- */

static int wds_option(struct bale_writer *w, void *priv, const char *key,
    const char *value)
{
	struct wds_w *st = priv;
	char *end;

	if (strcmp(key, "shard_size") == 0) {
		if (bale_parse_size(value, &st->max_bytes) != BALE_OK)
			return bale_writer_seterr(w, BALE_EINVAL,
			    "wds: shard_size '%s' is not a size", value);
		return BALE_OK;
	}
	if (strcmp(key, "shard_count") == 0) {
		errno = 0;
		st->max_count = strtoull(value, &end, 10);
		if (errno || end == value || *end || value[0] == '-')
			return bale_writer_seterr(w, BALE_EINVAL,
			    "wds: shard_count '%s' is not a count", value);
		return BALE_OK;
	}
	if (strcmp(key, "fsync") == 0) {
		st->sync = strcmp(value, "0") != 0;
		return BALE_OK;
	}
	return BALE_ENOOPT;
}

/* An existing shard list means a complete output: replace it only when
 * asked, and remove it first so a failed rewrite never looks complete. */
static int wds_claim_output(struct bale_writer *w, struct wds_w *st,
    int replace)
{
	char *list = bale_strfmt("%s/%s-shards.json", st->dir, st->name);
	struct stat sb;
	int rc = BALE_OK;

	if (!list)
		return bale_writer_seterr(w, BALE_ENOMEM, "wds: no memory");
	if (stat(list, &sb) == 0 && !replace)
		rc = bale_writer_seterr(w, BALE_EEXIST,
		    "wds: '%s' exists (use --force to replace it)", list);
	else if (unlink(list) != 0 && errno != ENOENT)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "wds: cannot remove '%s': %s", list, strerror(errno));
	free(list);
	return rc;
}

static int wds_init(struct bale_writer *w, struct wds_w *st,
    const char *dir, const struct bale_dataset *ds)
{
	if (!st->max_bytes && !st->max_count)
		st->max_bytes = WDS_DEFAULT_SHARD_SIZE;
	st->dir = strdup(dir);
	st->name = strdup(ds->name);
	st->entry = archive_entry_new();
	if (!st->dir || !st->name || !st->entry)
		return bale_writer_seterr(w, BALE_ENOMEM, "wds: no memory");
	bale_meta_classes(&st->classes, ds);
	if (st->classes.failed)
		return bale_writer_seterr(w, BALE_ENOMEM, "wds: no memory");
	return BALE_OK;
}

static int wds_open(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds)
{
	struct wds_w *st = priv;
	int rc = wds_init(w, st, dir, ds);

	return rc == BALE_OK ? wds_claim_output(w, st, ds->replace) : rc;
}

/* ---- shards -------------------------------------------------------------- */

static int wds_open_shard(struct bale_writer *w, struct wds_w *st)
{
	struct archive *ar;
	char *final = wds_path(st, st->shard_no, "tar");
	char why[256];

	st->tmp = final ? bale_strfmt("%s%s", final, BALE_PARTIAL) : NULL;
	free(final);
	if (!st->tmp)
		return bale_writer_seterr(w, BALE_ENOMEM, "wds: no memory");
	st->fd = open(st->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (st->fd < 0)
		return bale_writer_seterr(w, BALE_EIO,
		    "wds: cannot create '%s': %s", st->tmp, strerror(errno));
	ar = archive_write_new();
	if (!ar)
		return bale_writer_seterr(w, BALE_ENOMEM, "wds: no memory");
	st->ar = ar;
	if (archive_write_set_format_ustar(ar) != ARCHIVE_OK ||
	    archive_write_add_filter_none(ar) != ARCHIVE_OK ||
	    archive_write_set_bytes_per_block(ar, WDS_WRITE_BLOCK) !=
	    ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(ar, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(ar, st->fd) != ARCHIVE_OK)
		return bale_writer_seterr(w, BALE_EBACKEND,
		    "wds: cannot start '%s': %s", st->tmp,
		    wds_archive_error(ar, why, sizeof(why)));
	st->shard_samples = 0;
	st->shard_bytes = 0;
	bale_buf_reset(&st->idx);
	return BALE_OK;
}

static void wds_list_entry(struct wds_w *st, uint64_t filesize)
{
	if (st->shard_no > 0)
		bale_buf_puts(&st->list, ",");
	bale_buf_puts(&st->list, "\n{");
	bale_buf_printf(&st->list, "\"url\":\"%s-%06u.tar\"", st->name,
	    st->shard_no);
	bale_json_kv_u64(&st->list, "nsamples", st->shard_samples, 0);
	bale_json_kv_u64(&st->list, "filesize", filesize, 0);
	bale_buf_puts(&st->list, "}");
}

/* Write the shard's .idx, then move the tar to its final name. */
static int wds_publish_shard(struct bale_writer *w, struct wds_w *st)
{
	char *idx = wds_path(st, st->shard_no, "idx");
	char *tar = wds_path(st, st->shard_no, "tar");
	char head[64];
	int rc = BALE_OK;

	snprintf(head, sizeof(head), "v1.2 %" PRIu64 "\n", st->shard_samples);
	bale_buf_reset(&st->scratch);
	bale_buf_puts(&st->scratch, head);
	bale_buf_add(&st->scratch, st->idx.data, st->idx.len);
	if (!idx || !tar || st->scratch.failed || st->idx.failed)
		rc = bale_writer_seterr(w, BALE_ENOMEM, "wds: no memory");
	else if (bale_file_write_atomic(idx, st->scratch.data,
	    st->scratch.len, st->sync) != 0)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "wds: cannot write '%s': %s", idx, strerror(errno));
	else if (rename(st->tmp, tar) != 0)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "wds: cannot rename '%s': %s", st->tmp, strerror(errno));
	free(idx);
	free(tar);
	return rc;
}

/* Close the tar, check its size against our offsets, publish it. */
static int wds_close_shard(struct bale_writer *w, struct wds_w *st)
{
	struct stat sb;
	char why[256];
	char state[32];
	int rc;

	if (archive_write_close(st->ar) != ARCHIVE_OK)
		return bale_writer_seterr(w, BALE_EIO,
		    "wds: cannot finish '%s': %s", st->tmp,
		    wds_archive_error(st->ar, why, sizeof(why)));
	archive_write_free(st->ar);
	st->ar = NULL;
	st->shard_bytes += WDS_END_BYTES;
	if (fstat(st->fd, &sb) != 0 || (uint64_t)sb.st_size != st->shard_bytes)
		return bale_writer_seterr(w, BALE_EIO,
		    "wds: '%s' has %lld bytes, expected %" PRIu64, st->tmp,
		    (long long)sb.st_size, st->shard_bytes);
	if ((st->sync && fsync(st->fd) != 0) || close(st->fd) != 0) {
		st->fd = -1;
		return bale_writer_seterr(w, BALE_EIO,
		    "wds: cannot write '%s': %s", st->tmp, strerror(errno));
	}
	st->fd = -1;
	rc = wds_publish_shard(w, st);
	if (rc != BALE_OK)
		return rc;
	wds_list_entry(st, st->shard_bytes);
	free(st->tmp);
	st->tmp = NULL;
	st->shard_no++;
	snprintf(state, sizeof(state), "{\"shards\":%u}", st->shard_no);
	bale_writer_reached(w, st->last_index + 1, state);
	return BALE_OK;
}

/* ---- samples ------------------------------------------------------------- */

static int wds_member(struct bale_writer *w, struct wds_w *st,
    const struct bale_sample *s, const char *ext, const void *data, size_t n)
{
	struct archive_entry *e = st->entry;
	const char *p = data;
	char name[64];
	char why[256];
	la_ssize_t put;

	snprintf(name, sizeof(name), "%s.%s", s->key, ext);
	archive_entry_clear(e);
	archive_entry_copy_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)n);
	archive_entry_set_mtime(e, 0, 0);
	if (archive_write_header(st->ar, e) != ARCHIVE_OK)
		return bale_writer_seterr(w, BALE_EIO, "wds: '%s' in '%s': %s",
		    name, st->tmp, wds_archive_error(st->ar, why, sizeof(why)));
	while (n > 0) {
		put = archive_write_data(st->ar, p, n);
		if (put <= 0)
			return bale_writer_seterr(w, BALE_EIO,
			    "wds: cannot write '%s': %s", st->tmp,
			    wds_archive_error(st->ar, why, sizeof(why)));
		p += put;
		n -= (size_t)put;
	}
	bale_buf_printf(&st->idx, "%s%s %" PRIu64 " %lld %s",
	    st->idx.len && st->idx.data[st->idx.len - 1] != '\n' ? " " : "",
	    ext, st->shard_bytes + WDS_BLOCK,
	    (long long)archive_entry_size(e), name);
	st->shard_bytes += wds_member_bytes((uint64_t)archive_entry_size(e));
	return BALE_OK;
}

/* Start a new shard if this sample would overflow the open one. */
static int wds_make_room(struct bale_writer *w, struct wds_w *st,
    uint64_t need)
{
	int rc;

	if (st->ar && ((st->max_count && st->shard_samples >= st->max_count) ||
	    (st->max_bytes &&
	     st->shard_bytes + need + WDS_END_BYTES > st->max_bytes))) {
		rc = wds_close_shard(w, st);
		if (rc != BALE_OK)
			return rc;
	}
	return st->ar ? BALE_OK : wds_open_shard(w, st);
}

static int wds_put(struct bale_writer *w, void *priv,
    const struct bale_sample *s)
{
	struct wds_w *st = priv;
	char cls[32];
	int n;
	int rc;

	n = snprintf(cls, sizeof(cls), "%" PRId64, s->label);
	bale_meta_json(&st->meta, s);
	if (st->meta.failed)
		return bale_writer_seterr(w, BALE_ENOMEM, "wds: no memory");
	rc = wds_make_room(w, st, wds_member_bytes(s->size) +
	    wds_member_bytes((uint64_t)n) + wds_member_bytes(st->meta.len));
	if (rc == BALE_OK)
		rc = wds_member(w, st, s, s->ext, s->data, s->size);
	if (rc == BALE_OK)
		rc = wds_member(w, st, s, "cls", cls, (size_t)n);
	if (rc == BALE_OK)
		rc = wds_member(w, st, s, "json", st->meta.data,
		    st->meta.len);
	if (rc != BALE_OK)
		return rc;
	bale_buf_add(&st->idx, "\n", 1);
	st->shard_samples++;
	st->samples++;
	st->last_index = s->index;
	return BALE_OK;
}

/* ---- finish and release -------------------------------------------------- */

/* Remove shard @no's tar and idx; returns how many existed. */
static int wds_unlink_shard(const struct wds_w *st, unsigned no)
{
	static const char *const exts[] = { "tar", "idx" };
	int gone = 0;
	size_t i;
	char *p;

	for (i = 0; i < 2; i++) {
		p = wds_path(st, no, exts[i]);
		if (p && unlink(p) == 0)
			gone++;
		free(p);
	}
	return gone;
}

/* Remove shards numbered from @first up, as left by an earlier run. */
static void wds_remove_shards(const struct wds_w *st, unsigned first)
{
	unsigned no;

	for (no = first; wds_unlink_shard(st, no) > 0; no++)
		;
}

/* Finished shards stay: each is a checkpoint a resumed run keeps. */
static void wds_remove_partial_list(const struct wds_w *st)
{
	char *p;

	p = bale_strfmt("%s/%s-shards.json%s", st->dir, st->name,
	    BALE_PARTIAL);
	if (p)
		unlink(p);
	free(p);
}

static int wds_write_list(struct bale_writer *w, struct wds_w *st)
{
	struct bale_buf b = BALE_BUF_INIT;
	char *path = bale_strfmt("%s/%s-shards.json", st->dir, st->name);
	int rc = BALE_OK;

	bale_buf_puts(&b, "{\"__kind__\":\"wids-shard-index-v1\","
	    "\"wids_version\":1,");
	bale_json_kv_str(&b, "name", st->name, 1);
	bale_buf_puts(&b, ",\"shardlist\":[");
	bale_buf_add(&b, st->list.data ? st->list.data : "", st->list.len);
	bale_buf_puts(&b, "],\"bale\":{");
	bale_json_kv_str(&b, "version", bale_version(), 1);
	bale_json_kv_u64(&b, "samples", st->samples, 0);
	bale_json_key(&b, "classes", 0);
	bale_buf_add(&b, st->classes.data, st->classes.len);
	bale_buf_puts(&b, "}}\n");
	if (!path || b.failed || st->list.failed)
		rc = bale_writer_seterr(w, BALE_ENOMEM, "wds: no memory");
	else if (bale_file_write_partial(path, b.data, b.len, st->sync) != 0)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "wds: cannot write '%s': %s", path, strerror(errno));
	bale_buf_release(&b);
	free(path);
	return rc;
}

/* The shard list takes its final name: the output is complete. */
static int wds_publish(struct bale_writer *w, void *priv)
{
	struct wds_w *st = priv;
	char *path = bale_strfmt("%s/%s-shards.json", st->dir, st->name);
	int rc = BALE_OK;

	if (!path)
		return bale_writer_seterr(w, BALE_ENOMEM, "wds: no memory");
	if (bale_file_publish(path, st->sync) != 0)
		rc = bale_writer_seterr(w, BALE_EIO,
		    "wds: cannot publish '%s': %s", path, strerror(errno));
	else
		st->published = 1;
	free(path);
	return rc;
}

static int wds_finish(struct bale_writer *w, void *priv)
{
	struct wds_w *st = priv;
	int rc;

	if (st->ar) {
		rc = wds_close_shard(w, st);
		if (rc != BALE_OK)
			return rc;
	}
	wds_remove_shards(st, st->shard_no);
	return wds_write_list(w, st);
}

static void wds_release(void *priv)
{
	struct wds_w *st = priv;

	if (st->ar)
		archive_write_free(st->ar);
	if (st->tmp) {
		if (st->fd >= 0)
			close(st->fd);
		unlink(st->tmp);
	}
	/* a run that did not publish leaves no half-written shard list */
	if (!st->published && st->dir && st->name)
		wds_remove_partial_list(st);
	archive_entry_free(st->entry);
	free(st->tmp);
	free(st->dir);
	free(st->name);
	bale_buf_release(&st->idx);
	bale_buf_release(&st->list);
	bale_buf_release(&st->classes);
	bale_buf_release(&st->meta);
	bale_buf_release(&st->scratch);
}

/* ---- resume ------------------------------------------------------------- */

static int wds_list_exists(const struct wds_w *st)
{
	char *list = bale_strfmt("%s/%s-shards.json", st->dir, st->name);
	int yes = list && access(list, F_OK) == 0;

	free(list);
	return yes;
}

static int wds_verify_no(const struct wds_w *st, unsigned no,
    struct bale_wds_shard *v, char *why, size_t cap)
{
	char *tar = wds_path(st, no, "tar");
	char *idx = wds_path(st, no, "idx");
	int rc = -1;

	if (tar && idx)
		rc = bale_wds_verify_shard(tar, idx, v, why, cap);
	else
		snprintf(why, cap, "no memory");
	free(tar);
	free(idx);
	return rc;
}

/* Keep the checkpoint's shards that verify, in order, up to the first
 * that does not (it and those after are written again). */
static int wds_keep_shards(struct bale_writer *w, struct wds_w *st,
    uint64_t nshards, struct bale_resume *rs)
{
	struct bale_wds_shard v;
	char why[200];

	while (st->shard_no < nshards) {
		if (wds_verify_no(st, st->shard_no, &v, why,
		    sizeof(why)) != 0) {
			snprintf(rs->note, sizeof(rs->note), "%s; writing "
			    "shards again from %06u", why, st->shard_no);
			break;
		}
		st->shard_samples = v.samples;
		wds_list_entry(st, v.filesize);
		st->samples += v.samples;
		st->last_index = v.last_index;
		st->shard_no++;
	}
	return st->list.failed ? bale_writer_seterr(w, BALE_ENOMEM,
	    "wds: no memory") : BALE_OK;
}

static int wds_resume(struct bale_writer *w, void *priv, const char *dir,
    const struct bale_dataset *ds, struct bale_resume *rs)
{
	struct wds_w *st = priv;
	const char *v;
	const char *vend;
	uint64_t nshards = 0;
	int rc = wds_init(w, st, dir, ds);

	if (rc != BALE_OK)
		return rc;
	if (wds_list_exists(st)) {
		rs->complete = 1;
		st->published = 1;	/* release must not touch it */
		return BALE_OK;
	}
	v = rs->state ? bale_jsonr_find(rs->state, rs->state +
	    strlen(rs->state), "shards", &vend) : NULL;
	if (v && bale_jsonr_u64(v, vend, &nshards) != 0)
		nshards = 0;
	rc = wds_keep_shards(w, st, nshards, rs);
	rs->next = st->shard_no ? st->last_index + 1 : 0;
	return rc;
}

static const struct bale_writer_ops wds_writer = {
	.option = wds_option,
	.open = wds_open,
	.put = wds_put,
	.finish = wds_finish,
	.publish = wds_publish,
	.release = wds_release,
	.resume = wds_resume,
};

/* ---- reader ---------------------------------------------------------------
 *
 * The shard list names the shards; each shard's .idx gives every member's
 * data offset and size, so a sample costs one pread: bale writes a
 * sample's members back to back, so the span from the first to the last
 * is read at once. Offsets are checked against the shard's size.
 */

#define WDS_MAX_SPAN ((uint64_t)1 << 32)

struct wds_member {
	uint64_t off;
	uint64_t size;
};

struct wds_entry {
	uint32_t shard;
	struct wds_member image;
	struct wds_member cls;
	struct wds_member json;
	size_t key;		/* arena offset of the key */
};

struct wds_r {
	char **paths;		/* shard paths, then idx paths, NULL-ended */
	int *fds;
	uint64_t *sizes;
	size_t nshards;		/* opened so far */
	size_t maxshards;	/* listed; idx paths start at paths[maxshards] */
	struct wds_entry *entries;
	uint64_t n;
	uint64_t cap;
	struct bale_buf arena;	/* keys */
	unsigned char *buf;
	size_t bufcap;
	char *path;		/* of the last get() */
	int images_only;	/* the benchmark's reference: one bare pread */
	int no_meta;		/* meta=0: bytes and label only */
	struct bale_buf info;
};

static int wds_roption(struct bale_reader *r, void *priv, const char *key,
    const char *value)
{
	struct wds_r *st = priv;

	(void)r;
	if (strcmp(key, "images_only") == 0)
		st->images_only = strcmp(value, "0") != 0;
	else if (strcmp(key, "meta") == 0)
		st->no_meta = strcmp(value, "0") == 0;
	else
		return BALE_ENOOPT;
	return BALE_OK;
}

/* "ext off size name" for one member; returns the next field or NULL. */
static char *wds_idx_member(char *p, struct wds_entry *e, char **name)
{
	char *ext = strtok_r(p, " ", name);
	char *off = strtok_r(NULL, " ", name);
	char *size = strtok_r(NULL, " ", name);
	char *member = strtok_r(NULL, " ", name);
	struct wds_member m;
	char *end1;
	char *end2;

	if (!ext || !off || !size || !member)
		return NULL;
	m.off = strtoull(off, &end1, 10);
	m.size = strtoull(size, &end2, 10);
	if (*end1 || *end2 || *off == '-' || *size == '-')
		return NULL;
	if (strcmp(ext, "cls") == 0)
		e->cls = m;
	else if (strcmp(ext, "json") == 0)
		e->json = m;
	else
		e->image = m;
	return member;
}

static int wds_idx_line(struct wds_r *st, char *line, uint32_t shard)
{
	struct wds_entry e;
	char *save = NULL;
	char *member = NULL;
	char *p = line;
	char *dot;

	memset(&e, 0, sizeof(e));
	e.shard = shard;
	while (p && *p) {
		member = wds_idx_member(p, &e, &save);
		if (!member)
			return -1;
		p = save;
	}
	if (!member || !(dot = strchr(member, '.')))
		return -1;
	e.key = st->arena.len;
	bale_buf_add(&st->arena, member, (size_t)(dot - member));
	bale_buf_add(&st->arena, "", 1);
	if (st->n == st->cap) {
		struct wds_entry *ne;

		st->cap = st->cap ? st->cap * 2 : 1024;
		ne = realloc(st->entries, st->cap * sizeof(*ne));
		if (!ne)
			return -1;
		st->entries = ne;
	}
	st->entries[st->n++] = e;
	return st->arena.failed ? -1 : 0;
}

static int wds_read_idx(struct bale_reader *r, struct wds_r *st,
    uint32_t shard, uint64_t nsamples)
{
	const char *idx = st->paths[st->maxshards + shard];
	uint64_t before = st->n;
	char *save = NULL;
	char *line;
	char *text;
	size_t n;
	int rc = BALE_OK;

	text = bale_file_read_all(idx, &n);
	if (!text)
		return bale_reader_seterr(r, BALE_EIO, "wds: cannot read '%s': %s",
		    idx, strerror(errno));
	line = strtok_r(text, "\n", &save);
	if (!line || strncmp(line, "v1.2 ", 5) != 0)
		rc = bale_reader_seterr(r, BALE_EINVAL,
		    "wds: '%s' is not a v1.2 index", idx);
	while (rc == BALE_OK && (line = strtok_r(NULL, "\n", &save)))
		if (wds_idx_line(st, line, shard) != 0)
			rc = bale_reader_seterr(r, BALE_EINVAL,
			    "wds: bad line in '%s'", idx);
	if (rc == BALE_OK && st->n - before != nsamples)
		rc = bale_reader_seterr(r, BALE_EINVAL,
		    "wds: '%s' lists %" PRIu64 " samples, the shard list %"
		    PRIu64, idx, st->n - before, nsamples);
	free(text);
	return rc;
}

static int wds_add_shard(struct bale_reader *r, struct wds_r *st,
    const char *dir, char *url)
{
	size_t i = st->nshards;
	char *path = strchr(url, '/') || strstr(url, "..") ? NULL :
	    bale_strfmt("%s/%s", dir, url);
	size_t len = path ? strlen(path) : 0;

	if (!path || len < 5 || strcmp(path + len - 4, ".tar") != 0) {
		free(path);
		return bale_reader_seterr(r, BALE_EINVAL,
		    "wds: shard '%s' is not a NAME.tar beside the list", url);
	}
	st->paths[i] = path;
	st->fds[i] = open(path, O_RDONLY | O_CLOEXEC);
	if (st->fds[i] < 0)
		return bale_reader_seterr(r, BALE_EIO, "wds: cannot open '%s': %s",
		    path, strerror(errno));
	st->sizes[i] = (uint64_t)lseek(st->fds[i], 0, SEEK_END);
	st->nshards++;
	return BALE_OK;
}

/* Room for @n shards: paths (tars, then idx files, then NULL), fds. */
static int wds_alloc_shards(struct wds_r *st, size_t n)
{
	size_t i;

	st->maxshards = n;
	st->paths = calloc(2 * n + 1, sizeof(char *));
	st->fds = malloc((n ? n : 1) * sizeof(int));
	st->sizes = calloc(n ? n : 1, sizeof(uint64_t));
	for (i = 0; st->fds && i < n; i++)
		st->fds[i] = -1;
	return st->paths && st->fds && st->sizes ? 0 : -1;
}

/* The .idx beside the shard just added, read into the entries. */
static int wds_add_idx(struct bale_reader *r, struct wds_r *st,
    uint64_t nsamples)
{
	size_t i = st->nshards - 1;
	const char *tar = st->paths[i];

	st->paths[st->maxshards + i] = bale_strfmt("%.*s.idx",
	    (int)strlen(tar) - 4, tar);
	if (!st->paths[st->maxshards + i])
		return bale_reader_seterr(r, BALE_ENOMEM, "wds: no memory");
	return wds_read_idx(r, st, (uint32_t)i, nsamples);
}

static int wds_parse_list(struct bale_reader *r, struct wds_r *st,
    const char *dir, const char *text, size_t n)
{
	const char *end = text + n;
	const char *cur;
	const char *list;
	const char *lend;
	const char *e;
	const char *eend;
	const char *v;
	const char *vend;
	size_t count = 0;
	uint64_t ns;
	char *url;
	int rc = BALE_OK;

	v = bale_jsonr_find(text, end, "bale", &vend);
	bale_buf_puts(&st->info, "{\"bale\":");
	bale_buf_add(&st->info, v ? v : "null", v ? (size_t)(vend - v) : 4);
	list = bale_jsonr_find(text, end, "shardlist", &lend);
	if (!list)
		return bale_reader_seterr(r, BALE_EINVAL,
		    "wds: no shardlist in the shard list");
	for (cur = list; bale_jsonr_next(&cur, lend, &eend);)
		count++;
	bale_buf_printf(&st->info, ",\"shards\":%zu}", count);
	if (wds_alloc_shards(st, count) != 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "wds: no memory");
	for (cur = list; rc == BALE_OK && (e = bale_jsonr_next(&cur, lend,
	    &eend));) {
		v = bale_jsonr_find(e, eend, "url", &vend);
		url = v ? bale_jsonr_string(v, vend) : NULL;
		v = bale_jsonr_find(e, eend, "nsamples", &vend);
		if (!url || !v || bale_jsonr_u64(v, vend, &ns) != 0)
			rc = bale_reader_seterr(r, BALE_EINVAL,
			    "wds: bad shard entry in the shard list");
		else
			rc = wds_add_shard(r, st, dir, url);
		if (rc == BALE_OK)
			rc = wds_add_idx(r, st, ns);
		free(url);
	}
	return rc;
}

static int wds_ropen(struct bale_reader *r, void *priv, const char *path)
{
	struct wds_r *st = priv;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? bale_strfmt("%.*s", (int)(slash - path), path) :
	    bale_strfmt(".");
	size_t n = 0;
	char *text = bale_file_read_all(path, &n);
	int rc;

	if (!dir)
		rc = bale_reader_seterr(r, BALE_ENOMEM, "wds: no memory");
	else if (!text)
		rc = bale_reader_seterr(r, BALE_EIO, "wds: cannot read '%s': %s",
		    path, strerror(errno));
	else
		rc = wds_parse_list(r, st, dir, text, n);
	free(dir);
	free(text);
	return rc;
}

static int wds_rcount(struct bale_reader *r, void *priv, uint64_t *n)
{
	(void)r;
	*n = ((struct wds_r *)priv)->n;
	return BALE_OK;
}

/* Parse the label and the metadata of the entry just read. */
static int wds_fill_blob(struct bale_reader *r, struct wds_r *st,
    const struct wds_entry *e, uint64_t lo, struct bale_blob *out)
{
	const char *json = (const char *)st->buf + (e->json.off - lo);
	const char *cls = (const char *)st->buf + (e->cls.off - lo);
	int64_t stored = 0;

	if (bale_meta_label(cls, (size_t)e->cls.size, &out->label) != 0)
		return bale_reader_seterr(r, BALE_EINVAL, "wds: bad .cls member");
	free(st->path);
	st->path = NULL;
	out->path = NULL;
	if (st->no_meta)
		return BALE_OK;
	if (!bale_meta_label_agrees(json, (size_t)e->json.size, out->label,
	    &stored))
		return bale_reader_seterr(r, BALE_EINVAL, "wds: label %" PRId64
		    " in .cls, %" PRId64 " in .json", out->label, stored);
	bale_meta_parse(json, (size_t)e->json.size, &st->path, &out->crc32,
	    &out->has_crc32);
	out->path = st->path;
	return BALE_OK;
}

static int wds_rget(struct bale_reader *r, void *priv, uint64_t i,
    struct bale_blob *out)
{
	struct wds_r *st = priv;
	const struct wds_entry *e;
	uint64_t lo;
	uint64_t hi;
	ssize_t got;

	if (i >= st->n)
		return bale_reader_seterr(r, BALE_EINVAL, "wds: no sample %"
		    PRIu64, i);
	e = &st->entries[i];
	lo = e->image.off < e->cls.off ? e->image.off : e->cls.off;
	lo = lo < e->json.off ? lo : e->json.off;
	hi = e->json.off + e->json.size;
	if (e->image.off + e->image.size > hi)
		hi = e->image.off + e->image.size;
	if (st->images_only) {
		lo = e->image.off;
		hi = lo + e->image.size;
	}
	if (hi > st->sizes[e->shard] || hi - lo > WDS_MAX_SPAN ||
	    (!st->images_only && e->cls.off + e->cls.size > hi))
		return bale_reader_seterr(r, BALE_EINVAL, "wds: sample %" PRIu64
		    " points past the end of '%s'", i, st->paths[e->shard]);
	if (bale_grow(&st->buf, &st->bufcap, (size_t)(hi - lo)) != 0)
		return bale_reader_seterr(r, BALE_ENOMEM, "wds: no memory");
	got = pread(st->fds[e->shard], st->buf, (size_t)(hi - lo), (off_t)lo);
	if (got != (ssize_t)(hi - lo))
		return bale_reader_seterr(r, BALE_EIO, "wds: cannot read '%s': %s",
		    st->paths[e->shard], got < 0 ? strerror(errno) : "short read");
	out->data = st->buf + (e->image.off - lo);
	out->size = (size_t)e->image.size;
	out->key = st->arena.data + e->key;
	return st->images_only ? BALE_OK : wds_fill_blob(r, st, e, lo, out);
}

static int wds_rfiles(struct bale_reader *r, void *priv,
    const char *const **list)
{
	(void)r;
	*list = (const char *const *)((struct wds_r *)priv)->paths;
	return BALE_OK;
}

static int wds_rinfo(struct bale_reader *r, void *priv, const char **json)
{
	struct wds_r *st = priv;

	if (st->info.failed)
		return bale_reader_seterr(r, BALE_ENOMEM, "wds: no memory");
	*json = st->info.data;
	return BALE_OK;
}

static void wds_rrelease(void *priv)
{
	struct wds_r *st = priv;
	size_t i;

	bale_buf_release(&st->info);
	for (i = 0; st->fds && i < st->nshards; i++)
		close(st->fds[i]);
	/* every slot: an open that failed part-way leaves gaps */
	for (i = 0; st->paths && i < 2 * st->maxshards; i++)
		free(st->paths[i]);
	free(st->paths);
	free(st->fds);
	free(st->sizes);
	free(st->entries);
	free(st->buf);
	free(st->path);
	bale_buf_release(&st->arena);
}

static const struct bale_reader_ops wds_reader = {
	.option = wds_roption,
	.open = wds_ropen,
	.count = wds_rcount,
	.get = wds_rget,
	.files = wds_rfiles,
	.info = wds_rinfo,
	.release = wds_rrelease,
};

/* A wids shard list: named NAME-shards.json as bale writes it, or any
 * file that says it is one. */
static int wds_probe(const char *path, int is_dir, const unsigned char *head,
    size_t n)
{
	static const char kind[] = "wids-shard-index-v1";
	static const char suffix[] = "-shards.json";
	size_t len = strlen(path);

	if (is_dir)
		return 0;
	if (len > sizeof(suffix) - 1 &&
	    strcmp(path + len - (sizeof(suffix) - 1), suffix) == 0)
		return 1;
	return memmem(head, n, kind, sizeof(kind) - 1) != NULL;
}

static const char *wds_library_version(void)
{
	return archive_version_details();
}

const struct bale_backend bale_backend_wds = {
	.abi = BALE_BACKEND_ABI,
	.name = "wds",
	.summary = "WebDataset tar shards with .idx files and a wids list",
	.caps = BALE_CAP_EMPTY | BALE_CAP_RANDOM | BALE_CAP_THREADS,
	.probe = wds_probe,
	.suffix = "-shards.json",
	.library = "libarchive",
	.library_version = wds_library_version,
	.writer_priv = sizeof(struct wds_w),
	.writer = &wds_writer,
	.reader_priv = sizeof(struct wds_r),
	.reader = &wds_reader,
};
