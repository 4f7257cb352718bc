/* test_walk.c - ImageFolder semantics: classes, labels, order, notes. */
#include "bale.h"
#include "check.h"
#include "walk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/bale-walk-XXXXXX";

static void touch(const char *rel)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static void mkdirs(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK(mkdir(path, 0755) == 0);
}

static void build_tree(void)
{
	CHECK(mkdtemp(root) != NULL);
	mkdirs("b");
	mkdirs("B");
	mkdirs("a");
	mkdirs("a/x");
	mkdirs("a/x y");
	mkdirs("a/x/z");
	mkdirs("empty");
	touch("b/2.JPG");
	touch("b/10.png");
	touch("b/notes.txt");
	touch("B/only.Jpeg");
	touch("a/x/z/deep.webp");
	touch("a/x y/s.tif");
	touch("a/x/k.jpg");
	touch("a/top.jpg");
	touch("stray.jpg");
}

/* Expected, by torchvision's rule: classes "B" < "a" < "b" < "empty";
 * in class a, folders by full path string: a, a/x, a/x y, a/x/z. */
static const char *const want_paths[] = {
	"B/only.Jpeg", "a/top.jpg", "a/x/k.jpg", "a/x y/s.tif",
	"a/x/z/deep.webp", "b/10.png", "b/2.JPG",
};
static const int want_labels[] = { 0, 1, 1, 1, 1, 2, 2 };

static void test_order_and_labels(struct bale_walk *w)
{
	size_t i;

	CHECK_EQ(7, bale_walk_count(w));
	for (i = 0; i < 7 && i < bale_walk_count(w); i++) {
		CHECK_STR(want_paths[i], bale_walk_path(w, i));
		CHECK_EQ(want_labels[i], bale_walk_label(w, i));
	}
	CHECK_EQ(4, bale_walk_nclasses(w));
	CHECK_STR("B", bale_walk_classes(w)[0]);
	CHECK_STR("empty", bale_walk_classes(w)[3]);
}

static void test_notes(struct bale_walk *w)
{
	enum bale_walk_note_kind kind;
	const char *path;
	const char *why;
	int ignored = 0;
	int warned = 0;
	size_t i;

	for (i = 0; i < bale_walk_nnotes(w); i++) {
		bale_walk_note(w, i, &kind, &path, &why);
		if (kind == BALE_NOTE_IGNORED)
			ignored += strcmp(path, "b/notes.txt") == 0 ||
			    strcmp(path, "stray.jpg") == 0;
		if (kind == BALE_NOTE_WARNING)
			warned += strcmp(path, "empty") == 0;
	}
	CHECK_EQ(2, ignored);
	CHECK_EQ(1, warned);
	CHECK_EQ(3, bale_walk_nnotes(w));
}

static void test_extensions(void)
{
	CHECK(bale_walk_is_image("x.JPEG"));
	CHECK(bale_walk_is_image(".jpg"));
	CHECK(bale_walk_is_image("a.TiFf"));
	CHECK(!bale_walk_is_image("jpg"));
	CHECK(!bale_walk_is_image("a.gif"));
	CHECK(!bale_walk_is_image("a.jpg.txt"));
}

static void test_no_classes_is_an_error(void)
{
	struct bale_walk *w = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s/b", root);
	CHECK_EQ(BALE_OK, bale_walk_new(&w));
	CHECK_EQ(BALE_ENOENT, bale_walk_folder(w, path));
	CHECK(strstr(bale_walk_errmsg(w), "no class folder") != NULL);
	bale_walk_free(w);
}

static void test_list_errors(void)
{
	struct bale_walk *w = NULL;
	char list[600];
	FILE *f;

	snprintf(list, sizeof(list), "%s/list.txt", root);
	f = fopen(list, "w");
	fputs("a/top.jpg\t1\nb/2.JPG\t-4\n", f);
	fclose(f);
	CHECK_EQ(BALE_OK, bale_walk_new(&w));
	CHECK_EQ(BALE_EINVAL, bale_walk_list(w, root, list));
	CHECK(strstr(bale_walk_errmsg(w), "line 2") != NULL);
	bale_walk_free(w);
	unlink(list);
}

int main(void)
{
	struct bale_walk *w = NULL;
	char cmd[600];

	build_tree();
	CHECK_EQ(BALE_OK, bale_walk_new(&w));
	CHECK_EQ(BALE_OK, bale_walk_folder(w, root));
	test_order_and_labels(w);
	test_notes(w);
	bale_walk_free(w);
	test_extensions();
	test_no_classes_is_an_error();
	test_list_errors();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	return CHECK_DONE();
}
