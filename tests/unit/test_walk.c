/* test_walk.c - ImageFolder semantics: classes, labels, order, notes. */
#include "bale.h"
#include "check.h"
#include "bale_backend_util.h"
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
	struct bale_buf scratch = BALE_BUF_INIT;
	size_t i;

	CHECK_EQ(7, bale_walk_count(w));
	for (i = 0; i < 7 && i < bale_walk_count(w); i++) {
		CHECK_STR(want_paths[i], bale_walk_path(w, i, &scratch));
		CHECK_EQ(want_labels[i], bale_walk_label(w, i));
	}
	bale_buf_release(&scratch);
	CHECK_EQ(4, bale_walk_nclasses(w));
	CHECK_STR("B", bale_walk_classes(w)[0]);
	CHECK_STR("empty", bale_walk_classes(w)[3]);
}

/* The walk's order told from paths alone (what an update merges its
 * manifest by): a class before the next class whatever follows ("a/"
 * before "a-b/", where strcmp says otherwise), a folder's own files
 * before its subfolders', folders by their whole path. */
static void test_path_cmp(void)
{
	static const char *const order[] = {
		"B/only.Jpeg", "a/top.jpg", "a/x/k.jpg", "a/x y/s.tif",
		"a/x/z/deep.webp", "a-b/a.jpg", "a-b/b/c.jpg", "b/10.png",
		"b/2.JPG", "bb/1.jpg",
	};
	size_t i, j, n = sizeof(order) / sizeof(order[0]);

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int c = bale_walk_path_cmp(order[i], order[j]);

			if ((i < j && c >= 0) || (i > j && c <= 0) ||
			    (i == j && c != 0)) {
				fprintf(stderr, "%s vs %s: %d\n", order[i],
				    order[j], c);
				CHECK(0);
			}
		}
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
			ignored += strcmp(path, "b/notes.txt") == 0;
		/* an image outside any class: in no sample, said aloud */
		if (kind == BALE_NOTE_WARNING)
			warned += strcmp(path, "empty") == 0 ||
			    strcmp(path, "stray.jpg") == 0;
	}
	CHECK_EQ(1, ignored);
	CHECK_EQ(2, warned);
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

/* Listed path @i: lengths that grow and shrink, shared starts of every
 * length, a path that is the start of the one before (nothing new to
 * store), one past 127 bytes (a two-byte length), across many
 * front-coding blocks; folders that stay, that jump back to one met
 * before, none, and past the store's 65 536 numbered ones (i from
 * 70 000 on: a folder each). */
static void listed_path(size_t i, char *out, size_t cap)
{
	static const char tail[] = "abcdefghijklmnopqrstuvwxyz";
	size_t j = i % 11 == 1 ? i - 1 : i;
	size_t pad = j % 13 == 0 ? 140 : j % 5;
	char dir[32];
	int n;

	if (j >= 70000)
		snprintf(dir, sizeof(dir), "d%zu/", j);
	else if (j % 7 == 3 || j == 0)	/* the first: a walk's first */
		dir[0] = '\0';
	else if (j % 5 == 1)
		snprintf(dir, sizeof(dir), "c%zu/sub/", (j * 7919) % 97);
	else
		snprintf(dir, sizeof(dir), "c%zu/sub/", j / 37);
	n = snprintf(out, cap, "%s%.*s%s%zu.jpg", dir, (int)pad,
	    "0123456789012345678901234567890123456789012345678901234567"
	    "8901234567890123456789012345678901234567890123456789012345"
	    "67890123456789", tail + j % 26, j);
	if (j != i && n > 4)
		out[n - 4] = '\0';
}

/* Labels in the list's order, runs of one and of many, and back down;
 * some past a byte's varint, some past three. */
static int64_t listed_label(size_t i)
{
	if (i < 300)
		return (int64_t)(i / 50);
	if (i % 1009 < 2)	/* a run of one in four varint bytes */
		return ((int64_t)1 << 20) - 1 - (int64_t)(i % 1009);
	if (i % 97 < 3)
		return 40000 + (int64_t)(i % 1000);
	return (int64_t)((i * 7919) % 11);
}

/* Sample @i through cursor @c, against what was listed. */
static void check_cursor_at(struct bale_walk_cursor *c, size_t i)
{
	char path[256];

	listed_path(i, path, sizeof(path));
	CHECK_STR(path, bale_walk_cursor_path(c, i));
	CHECK_EQ(listed_label(i), bale_walk_cursor_label(c, i));
}

/* A cursor gives what the lookups give however it is moved: one after
 * another, the same one again, short and long steps ahead (within a
 * block, to its end, past several), and back. */
static void test_cursor(struct bale_walk *w, size_t n)
{
	static const size_t steps[] = { 1, 1, 0, 3, 15, 16, 17, 64, 65, 1000 };
	struct bale_walk_cursor c;
	size_t i, k;

	bale_walk_cursor_init(&c, w);
	for (i = 0; i < n; i++)
		check_cursor_at(&c, i);
	for (i = 0, k = 0; i < n; i += steps[k++ % 10])
		check_cursor_at(&c, i);
	for (k = 0; k < 5000; k++)
		check_cursor_at(&c, (k * 7919) % n);
	bale_walk_cursor_release(&c);
}

/* The store's paths and labels come back exactly, read in any order;
 * the list is sealed as it is read, in several parts. */
static void test_store_round_trip(void)
{
	struct bale_buf scratch = BALE_BUF_INIT;
	struct bale_walk *w = NULL;
	char list[600], path[256];
	size_t n = 140000, i, k;
	FILE *f;

	snprintf(list, sizeof(list), "%s/list.tsv", root);
	f = fopen(list, "w");
	CHECK(f != NULL);
	for (i = 0; f && i < n; i++) {
		listed_path(i, path, sizeof(path));
		fprintf(f, "%s\t%lld\n", path, (long long)listed_label(i));
	}
	if (f)
		fclose(f);
	CHECK_EQ(BALE_OK, bale_walk_new(&w));
	CHECK_EQ(BALE_OK, bale_walk_list(w, root, list));
	CHECK_EQ(n, bale_walk_count(w));
	for (k = 0; k < n && bale_walk_count(w) == n; k++) {
		i = (k * 1237) % n;	/* a stride prime to n: all, shuffled */
		listed_path(i, path, sizeof(path));
		CHECK_STR(path, bale_walk_path(w, i, &scratch));
		CHECK_EQ(listed_label(i), bale_walk_label(w, i));
	}
	bale_buf_release(&scratch);
	test_cursor(w, n);
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
	test_path_cmp();
	test_notes(w);
	bale_walk_free(w);
	test_extensions();
	test_no_classes_is_an_error();
	test_list_errors();
	test_store_round_trip();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	return CHECK_DONE();
}
