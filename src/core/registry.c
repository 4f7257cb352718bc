/* registry.c - the backends this library was built with: the readers of
 * the kinds of source read in place (the raw folder, the benchmark's
 * baseline), then the formats meson's list built (backends.h). */
#include "backends.h"
#include "kind.h"
#include "registry.h"

#include "bale_store.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>
#include <fnmatch.h>

#define REGISTRY_MAX 32

static const struct bale_backend *const registry_formats[] = {
	BALE_BUILT_BACKENDS
	NULL,
};

static const struct bale_backend *registry_table[REGISTRY_MAX + 1];
static const char *registry_names[REGISTRY_MAX + 1];
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static void registry_add(const struct bale_backend *be)
{
	size_t n = 0;

	while (registry_table[n])
		n++;
	if (n < REGISTRY_MAX) {
		registry_table[n] = be;
		registry_names[n] = be->name;
	}
}

static void registry_fill(void)
{
	const struct bale_source_kind *const *kinds =
	    bale_source_file_kinds();
	size_t i;

	for (i = 0; kinds[i]; i++)
		if (kinds[i]->reader)
			registry_add(kinds[i]->reader);
	for (i = 0; registry_formats[i]; i++)
		registry_add(registry_formats[i]);
}

static const struct bale_backend *const *registry_list(void)
{
	pthread_once(&registry_once, registry_fill);
	return registry_table;
}

int bale_backend_owns(const struct bale_backend *be, const char *name,
    const char *file)
{
	size_t len = strlen(name);
	const char *rest = file + len;
	size_t i;

	if (strncmp(file, name, len) != 0 || !be->suffix)
		return 0;
	if (strcmp(rest, be->suffix) == 0)
		return 1;
	for (i = 0; be->side_files && be->side_files[i]; i++)
		if (fnmatch(be->side_files[i], rest, FNM_PERIOD) == 0)
			return 1;
	return 0;
}

const struct bale_backend *bale_backend_find(const char *name)
{
	const struct bale_backend *const *table = registry_list();
	size_t i;

	for (i = 0; table[i]; i++)
		if (strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}

const char *const *bale_backend_names(void)
{
	registry_list();
	return registry_names;
}

const struct bale_backend *bale_registry_at(size_t i)
{
	return i < REGISTRY_MAX ? registry_list()[i] : NULL;
}

/* 1 if @path, trailing slashes aside, ends in @suffix; with @whole,
 * also when it is nothing but @suffix. */
static int registry_ends_in(const char *path, const char *suffix, int whole)
{
	size_t n = strlen(path);
	size_t m = strlen(suffix);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return m && (n > m || (whole && n == m)) &&
	    memcmp(path + n - m, suffix, m) == 0;
}

/* The first bytes of the regular file at @path into @head; -1 if it
 * cannot be read. */
static ssize_t registry_head(const char *path, unsigned char *head)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -1;
	/* the head alone: read-ahead here would fill the cache with
	 * megabytes of each file a folder holds, and leave marks in the
	 * pages that make later small reads of it read ahead too */
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	n = pread(fd, head, BALE_PROBE_HEAD, 0);
	close(fd);
	return n;
}

/* The backend whose output names end as @path's does. */
const char *bale_registry_by_suffix(const char *path)
{
	const struct bale_backend *be;
	size_t i;

	for (i = 0; (be = bale_registry_at(i)); i++)
		if (be->suffix && registry_ends_in(path, be->suffix, 0))
			return be->name;
	return NULL;
}

/* The format whose probe takes @path. */
static const char *registry_probe(const char *path, int is_dir,
    const unsigned char *head, size_t n)
{
	const struct bale_backend *be;
	size_t i;

	for (i = 0; (be = bale_registry_at(i)); i++)
		if (be->probe && be->probe(path, is_dir, head, n))
			return be->name;
	return NULL;
}

/* The same for a name in a remote store: its head is one ranged GET. */
static const char *registry_remote(const char *path)
{
	unsigned char head[BALE_PROBE_HEAD];
	struct bale_store_stat st;
	struct bale_errbuf err;
	struct bale_sfile *f;
	size_t n;
	int rc;

	if (bale_store_stat(path, &st, &err) != BALE_OK)
		return NULL;
	if (st.is_dir)
		return registry_probe(path, 1, head, 0);
	n = st.size < sizeof(head) ? (size_t)st.size : sizeof(head);
	/* its size is known: opening asks the store nothing more */
	rc = bale_sfile_open_sized(&f, path, st.size, &err);
	if (rc == BALE_OK) {
		rc = bale_sfile_pread(f, head, n, 0, &err);
		bale_sfile_close(f);
	}
	return rc == BALE_OK ? registry_probe(path, 0, head, n) :
	    bale_registry_by_suffix(path);
}

const char *bale_output_format(const char *path)
{
	unsigned char head[BALE_PROBE_HEAD];
	struct stat st;
	ssize_t n = 0;
	int is_dir;

	/* an output still being written never counts as one */
	if (registry_ends_in(path, BALE_PARTIAL, 1))
		return NULL;
	if (!bale_store_is_local(path))
		return registry_remote(path);
	if (stat(path, &st) != 0)
		return NULL;
	is_dir = S_ISDIR(st.st_mode);
	if (!is_dir && !S_ISREG(st.st_mode))
		return NULL;
	if (!is_dir)
		n = registry_head(path, head);
	if (n < 0)
		return bale_registry_by_suffix(path);
	return registry_probe(path, is_dir, head, (size_t)n);
}

int bale_registry_next_name(const char **list, char *name, size_t cap)
{
	const char *p = *list;
	size_t n;

	if (!p || !*p)
		return 0;
	n = strcspn(p, ",");
	*list = p + n + (p[n] == ',');
	if (n == 0 || n >= cap)
		return -1;
	memcpy(name, p, n);
	name[n] = '\0';
	return 1;
}

const struct bale_option *bale_backend_option(const struct bale_backend *be,
    const char *key)
{
	const struct bale_option *o;

	for (o = be ? be->writer_options : NULL; o && o->key; o++)
		if (strcmp(o->key, key) == 0)
			return o;
	return NULL;
}

const char *bale_option_split(const char *opt, char *fmt, char *key)
{
	const char *eq = strchr(opt, '=');
	const char *dot = memchr(opt, '.', eq ? (size_t)(eq - opt) : 0);
	const char *k = dot ? dot + 1 : opt;

	if (!eq || eq == opt || (size_t)(eq - opt) >= BALE_OPTION_TEXT_MAX)
		return NULL;
	snprintf(fmt, BALE_OPTION_TEXT_MAX, "%.*s", (int)(dot ? dot - opt :
	    0), opt);
	snprintf(key, BALE_OPTION_TEXT_MAX, "%.*s", (int)(eq - k), k);
	return eq + 1;
}
