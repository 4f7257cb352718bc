/* test_feed.c - a compressed tar that breaks off when the feed reads it
 * again fails every position it left, those in the ring and those far
 * past it, each with the reason, and no taker waits for ever
 * (stream_feed.c). */
#include "bale.h"
#include "kind.h"
#include "check.h"
#include "feed_int.h"
#include "walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MEMBERS 150000

static char root[] = "/tmp/bale-feed-XXXXXX";

/* Sorted members, so a pass meets them in output order, and the ones
 * past the cut are many more than the ring holds. */
static int make_archive(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "cd '%s' && /usr/bin/python3 -c '"
	    "import os\n"
	    "for c in range(10):\n"
	    "    d = \"in/c%%d\" %% c\n"
	    "    os.makedirs(d)\n"
	    "    one = \"one%%d.jpg\" %% c\n"	/* 65 000 links a file */
	    "    open(one, \"wb\").write(bytes(range(256)) * 4)\n"
	    "    for i in range(%d):\n"
	    "        os.link(one, \"%%s/%%06d.jpg\" %% (d, i))\n"
	    "' && tar --sort=name --hard-dereference -C in -czf in.tar.gz .",
	    root, MEMBERS / 10);
	return system(cmd);
}

/* Cut the archive to a tenth: the walk listed it whole, its fd still
 * open; the feed's pass now breaks off early. */
static int cut_archive(const char *path)
{
	FILE *f = fopen(path, "rb");
	long size;

	if (!f || fseek(f, 0, SEEK_END) != 0)
		return -1;
	size = ftell(f);
	fclose(f);
	return truncate(path, size / 10);
}

int main(void)
{
	struct bale_order order = { NULL, 0 };
	struct bale_stream_feed *f = NULL;
	struct bale_walk *w = NULL;
	struct bale_errbuf err;
	struct bale_fed fed;
	char path[256];
	const char *p = path;
	size_t n = 0, i, failed = 0, read = 0, bad = 0;
	int rc;

	if (!mkdtemp(root))
		return 1;
	snprintf(path, sizeof(path), "%s/in.tar.gz", root);
	CHECK_EQ(0, make_archive());
	CHECK_EQ(BALE_OK, bale_walk_new(&w));
	bale_walk_set_kinds(w, bale_source_file_kinds());
	CHECK_EQ(BALE_OK, bale_walk_archives(w, &p, 1, NULL));
	n = bale_walk_count(w);
	CHECK_EQ(MEMBERS, n);
	CHECK_EQ(0, cut_archive(path));
	CHECK_EQ(BALE_OK, bale_stream_feed_start(&f, w, &order, 0, n, 1 << 20,
	    2, &err));
	CHECK(f != NULL);
	for (i = 0; f && i < n; i++) {
		rc = bale_stream_feed_take(f, i, &fed, &err);
		if (rc == BALE_OK) {
			read++;
			bad += failed > 0;	/* one read after a failure */
			free(fed.data);
			continue;
		}
		failed++;
		bad += rc != BALE_EINPUT || !err.msg[0];
	}
	bale_stream_feed_free(f, NULL);
	CHECK_EQ(0, bad);
	CHECK_EQ(n, read + failed);
	CHECK(read > 0);
	CHECK(failed > FEED_RING);	/* most failed past the ring */
	bale_walk_free(w);
	check_rmtree(root);
	return CHECK_DONE();
}
