/* store.h - what a store is (one per file of src/store/, listed in
 * stores.c) and what its files share. The API over them is
 * include/bale_store.h. */
#ifndef BALE_STORE_INT_H
#define BALE_STORE_INT_H

#include "bale_store.h"

struct bale_aws;

/* A store: the names it takes, and how it reads them. Errors are said
 * in @err with the name, in the user's terms. */
struct bale_store {
	const char *name;
	/* Is @name one of this store's? (the local store takes any) */
	int (*claims)(const char *name);
	/* Open @name: its handle in *@h, its size in *@size. */
	int (*open)(const char *name, void **h, uint64_t *size,
	    struct bale_errbuf *err);
	/* Optional: open @name whose size is known (a list recorded it)
	 * without asking the store: its first read is its first request.
	 * Without it, open() is called and the size it finds wins. */
	int (*open_known)(const char *name, void **h,
	    struct bale_errbuf *err);
	/* Fill the @iovcnt pieces of @iov from byte @off of the file, in
	 * full (the store handle knows the file's size: the range lies
	 * inside it). */
	int (*read)(void *h, const struct iovec *iov, int iovcnt,
	    uint64_t off, struct bale_errbuf *err);
	void (*close)(void *h);
	int (*stat)(const char *name, struct bale_store_stat *st,
	    struct bale_errbuf *err);
	int (*list)(const char *dir, bale_store_entry_fn fn, void *arg,
	    struct bale_errbuf *err);
	/* The descriptor of an open handle, or NULL: it has none. */
	int (*fd)(void *h);
	/* Optional: every file under @dir at any depth, named from @dir
	 * on ("a/b.jpg"); without it, bale_store_walk() says it cannot. */
	int (*walk)(const char *dir, bale_store_object_fn fn, void *arg,
	    struct bale_errbuf *err);
	/* Optional: the whole of @name at once (one request); without
	 * it, open and read. */
	int (*read_all)(const char *name, char **data, size_t *n,
	    struct bale_errbuf *err);
	/* A remote handle's URL and signature (NULL: unsigned), for GETs
	 * sent ahead (prefetch.c); NULL: reads are local. */
	void (*request)(void *h, const char **url,
	    const struct bale_aws **sign);

	/* Writing (NULL: the store is read-only). An object made front
	 * to back: nothing under @name until wfinish() (which ends @h,
	 * failing or not); wabort() leaves nothing of it. */
	int (*wopen)(const char *name, void **h, struct bale_errbuf *err);
	int (*wwrite)(void *h, const void *p, size_t n,
	    struct bale_errbuf *err);
	int (*wfinish)(void *h, struct bale_errbuf *err);
	void (*wabort)(void *h);
	/* Optional: the descriptor a write goes to (a kernel copy may
	 * write there), or -1. */
	int (*wfd)(void *h);
	/* Remove @name; one not there is no error. */
	int (*remove)(const char *name, struct bale_errbuf *err);
	/* Can files be written in folder @dir? (an object store: its
	 * bucket is there and answers) */
	int (*writable)(const char *dir, struct bale_errbuf *err);
	/* Optional: what unfinished writes of objects whose names begin
	 * with @prefix left in the store (a killed run's uploads) goes. */
	int (*clean)(const char *prefix, struct bale_errbuf *err);
	/* Optional: @to made from @from, both in this store, by the store
	 * itself (no byte through bale), for files up to
	 * BALE_STORE_COPY_MAX bytes. */
	int (*copy)(const char *from, const char *to,
	    struct bale_errbuf *err);
};

/* The largest object S3's CopyObject copies in one request. */
#define BALE_STORE_COPY_MAX ((uint64_t)5 << 30)

/** The store that takes @name (the local one when no other does). */
const struct bale_store *bale_store_for(const char *name);

extern const struct bale_store bale_store_local;
extern const struct bale_store bale_store_s3;
extern const struct bale_store bale_store_https;

#endif
