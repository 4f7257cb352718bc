/* test_walk_sort.c - an archive whose members outgrow a sort chunk is
 * walked exactly as one sorted in memory: order, labels, locations, the
 * last copy of a duplicated name, the notes (walk_sort.c). */
#include "bale.h"
#include "kind.h"
#include "check.h"
#include "walk_int.h"

#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/bale-walk-sort-XXXXXX";

static void run(const char *cmd)
{
	int rc = system(cmd);

	if (rc != 0)
		fprintf(stderr, "failed (%d): %s\n", rc, cmd);
	CHECK(rc == 0);
}

/* Write @rel below folder @top with @n bytes, and add it to @list. */
static void put(const char *top, const char *rel, size_t n, char *list,
    size_t cap)
{
	char path[512], cmd[1100];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s')\"", top,
	    rel);
	run(cmd);
	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	while (n--)
		fputc('x', f);
	fclose(f);
	snprintf(list + strlen(list), cap - strlen(list), " '%s'", rel);
}

/* Members in no order; folders whose names sort one way as a class and
 * another as a path ("a" and "a-x", "x" and "x y"); an empty class; a
 * file outside any class; a name added again at the end with other
 * bytes. */
static void make_mixed(void)
{
	static const char *const names[] = {
		"b/2.JPG", "a/x/k.jpg", "a-x/q/1.png", "a/top.jpg",
		"b/10.png", "a/x y/s.tif", "a/dup.jpg", "a/x/z/deep.webp",
		"B/only.Jpeg", "a-x/0.jpg", "b/notes.txt", "a/x/a.jpg",
		"b/1.jpg", "a-x/q/0.jpg", "stray.jpg", "a/x y/t.tif",
		"empty/readme.txt",
	};
	char list[2048] = "";
	char cmd[2200];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		put("mixed", names[i], 10 + i, list, sizeof(list));
	run("tar -cf mixed.tar -C mixed B");
	snprintf(cmd, sizeof(cmd), "tar -rf mixed.tar -C mixed%s", list);
	run(cmd);
	list[0] = '\0';
	put("again", "a/dup.jpg", 99, list, sizeof(list));
	run("tar -rf mixed.tar -C again a/dup.jpg");
}

/* Every member below one folder: its sub-folders are the classes. With
 * @then, a member outside it comes last, after a chunk was sorted
 * without the top folder; with @stray, an image lies right in the top
 * folder, in no class. */
static void make_top(const char *tar, int then, int stray)
{
	char list[4096] = "";
	char name[64];
	char cmd[4200];
	int i;

	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "top/c%d/%s%02d.jpg", (i * 7) % 4,
		    i % 2 ? "x-" : "x/", (i * 11) % 30);
		put("tops", name, 5 + (size_t)i, list, sizeof(list));
	}
	if (then)
		put("tops", "other/z.jpg", 3, list, sizeof(list));
	if (stray)
		put("tops", "top/stray.jpg", 4, list, sizeof(list));
	snprintf(cmd, sizeof(cmd), "tar -cf %s -C tops%s", tar, list);
	run(cmd);
}

/* Walk @tar with runs of @chunk members (0: all in memory). */
static struct bale_walk *walk_with(const char *tar, size_t chunk)
{
	struct bale_walk *w = NULL;

	CHECK_EQ(BALE_OK, bale_walk_new(&w));
	bale_walk_set_kinds(w, bale_source_file_kinds());
	w->sort.chunk = chunk;
	CHECK_EQ(BALE_OK, bale_walk_archive(w, tar));
	return w;
}

static void check_same_samples(const struct bale_walk *a,
    const struct bale_walk *b)
{
	struct bale_buf pa = BALE_BUF_INIT, pb = BALE_BUF_INIT;
	struct bale_walk_member ma, mb;
	size_t i, bad = 0;

	CHECK_EQ(bale_walk_count(a), bale_walk_count(b));
	for (i = 0; i < bale_walk_count(a) && i < bale_walk_count(b); i++) {
		bad += strcmp(bale_walk_path(a, i, &pa),
		    bale_walk_path(b, i, &pb)) != 0;
		bad += bale_walk_label(a, i) != bale_walk_label(b, i);
		CHECK(bale_walk_member(a, i, &ma) && bale_walk_member(b, i,
		    &mb));
		bad += ma.offset != mb.offset || ma.size != mb.size;
	}
	CHECK_EQ(0, bad);
	bale_buf_release(&pa);
	bale_buf_release(&pb);
}

static void check_same_walk(const char *tar, size_t chunk)
{
	struct bale_walk *mem = walk_with(tar, 0);
	struct bale_walk *runs = walk_with(tar, chunk);
	enum bale_walk_note_kind ka, kb;
	const char *pa, *pb, *ra, *rb;
	size_t i;

	CHECK_EQ(0, mem->sort.nruns);	/* the defaults fit in memory */
	check_same_samples(mem, runs);
	CHECK_EQ(bale_walk_nclasses(mem), bale_walk_nclasses(runs));
	for (i = 0; i < bale_walk_nclasses(mem) &&
	    i < bale_walk_nclasses(runs); i++)
		CHECK_STR(bale_walk_classes(mem)[i],
		    bale_walk_classes(runs)[i]);
	CHECK_EQ(bale_walk_nnotes(mem), bale_walk_nnotes(runs));
	for (i = 0; i < bale_walk_nnotes(mem) && i < bale_walk_nnotes(runs);
	    i++) {
		bale_walk_note(mem, i, &ka, &pa, &ra);
		bale_walk_note(runs, i, &kb, &pb, &rb);
		CHECK_EQ(ka, kb);
		CHECK_STR(pa, pb);
		CHECK_STR(ra, rb);
	}
	bale_walk_free(mem);
	bale_walk_free(runs);
}

/* What the in-memory walk gives, so the comparison compares something:
 * the later copy of a/dup.jpg, the classes, the notes. */
static void test_mixed(void)
{
	struct bale_walk *w = walk_with("mixed.tar", 0);
	struct bale_buf path = BALE_BUF_INIT;
	struct bale_walk_member m;
	size_t i, n = bale_walk_count(w);

	CHECK_EQ(14, n);
	CHECK_EQ(5, bale_walk_nclasses(w));	/* B a a-x b empty */
	CHECK_STR("a/dup.jpg", bale_walk_path(w, 1, &path));
	CHECK(bale_walk_member(w, 1, &m));
	CHECK_EQ(99, m.size);
	for (i = 1; i < n; i++) {
		char prev[256];

		snprintf(prev, sizeof(prev), "%s", bale_walk_path(w, i - 1,
		    &path));
		CHECK(bale_walk_path_cmp(prev, bale_walk_path(w, i, &path)) <
		    0);
	}
	bale_buf_release(&path);
	bale_walk_free(w);
	for (i = 1; i <= 5; i++)
		check_same_walk("mixed.tar", i);
}

static void test_top_folder(void)
{
	struct bale_walk *w;
	size_t chunk;

	make_top("top.tar", 0, 0);
	w = walk_with("top.tar", 4);
	CHECK(w->sort.nruns == 0);	/* merged and let go */
	CHECK_EQ(4, bale_walk_nclasses(w));
	CHECK_STR("c0", bale_walk_classes(w)[0]);
	bale_walk_free(w);
	for (chunk = 2; chunk <= 7; chunk++)
		check_same_walk("top.tar", chunk);
	run("rm -rf tops");
	make_top("then.tar", 1, 0);
	for (chunk = 2; chunk <= 7; chunk++)
		check_same_walk("then.tar", chunk);
}

/* An image right in the one top folder (`tar -cf t.tar train` with a
 * stray train/x.jpg) does not make the top folder a class: the classes
 * are still its sub-folders, and the image is left out with a warning,
 * in memory and past it alike. */
static void test_stray_in_top_folder(void)
{
	enum bale_walk_note_kind kind;
	const char *path, *why;
	struct bale_walk *w;
	size_t chunk, i, warned = 0;

	run("rm -rf tops");
	make_top("stray.tar", 0, 1);
	w = walk_with("stray.tar", 0);
	CHECK_EQ(30, bale_walk_count(w));
	CHECK_EQ(4, bale_walk_nclasses(w));
	CHECK_STR("c0", bale_walk_classes(w)[0]);
	for (i = 0; i < bale_walk_nnotes(w); i++) {
		bale_walk_note(w, i, &kind, &path, &why);
		warned += kind == BALE_NOTE_WARNING &&
		    strcmp(path, "top/stray.jpg") == 0 &&
		    strstr(why, "outside any class folder") != NULL;
	}
	CHECK_EQ(1, warned);
	bale_walk_free(w);
	for (chunk = 2; chunk <= 7; chunk++)
		check_same_walk("stray.tar", chunk);
}

int main(void)
{
	char cmd[128];

	CHECK(mkdtemp(root) != NULL);
	CHECK(chdir(root) == 0);
	make_mixed();
	test_mixed();
	test_top_folder();
	test_stray_in_top_folder();
	CHECK(chdir("/") == 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	run(cmd);
	return CHECK_DONE();
}
