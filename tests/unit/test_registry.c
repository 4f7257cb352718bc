/* test_registry.c - every backend built in describes itself completely,
 * and its probe knows its outputs by content, whatever they are called. */
#include "bale_backend.h"
#include "bale_backend_util.h"
#include "check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_descriptor(const struct bale_backend *be)
{
	const struct bale_writer_ops *w = be->writer;
	const struct bale_reader_ops *r = be->reader;

	CHECK_EQ(BALE_BACKEND_ABI, be->abi);
	CHECK(be->name && be->name[0]);
	CHECK(be->summary && be->summary[0]);
	CHECK(w || r);
	CHECK(!w || (w->option && w->open && w->put && w->finish &&
	    w->publish && w->release));
	/* files and info may come from bale_reader_describe() instead */
	CHECK(!r || (r->open && r->count && r->get && r->release));
	CHECK(!be->library == !be->library_version);
	CHECK(!be->library_version || be->library_version()[0]);
	CHECK(bale_backend_find(be->name) == be);
}

static void test_table(void)
{
	const char *const *names = bale_backend_names();
	size_t i;
	size_t j;

	CHECK_STR("folder", names[0]);
	for (i = 0; names[i]; i++) {
		test_descriptor(bale_backend_find(names[i]));
		for (j = 0; j < i; j++)
			CHECK(strcmp(names[i], names[j]) != 0);
	}
	CHECK(bale_backend_find("nope") == NULL);
}

/* Write two samples with @backend into @dir. */
static int write_tiny(const char *backend, const char *dir)
{
	static const char *const classes[] = { "a", "b" };
	struct bale_dataset ds = { .name = "data", .classes = classes,
	    .nclasses = 2, .nitems = 2 };
	struct bale_sample s = { .key = "0000000000", .relpath = "a/x.jpg",
	    .ext = "jpg", .data = (const unsigned char *)"xyz", .size = 3 };
	struct bale_writer *w = NULL;
	int rc = bale_writer_new(&w);

	s.crc32 = bale_crc32(s.data, s.size);
	if (rc == BALE_OK)
		rc = bale_writer_set_backend(w, backend);
	if (rc == BALE_OK)
		rc = bale_writer_open(w, dir, &ds);
	if (rc == BALE_OK)
		rc = bale_writer_put(w, &s);
	s.index = 1, s.key = "0000000001", s.label = 1, s.relpath = "b/y.jpg";
	if (rc == BALE_OK)
		rc = bale_writer_put(w, &s);
	if (rc == BALE_OK)
		rc = bale_writer_finish(w);
	if (rc == BALE_OK)
		rc = bale_writer_publish(w);
	if (rc != BALE_OK)
		fprintf(stderr, "%s: %s\n", backend, bale_writer_errmsg(w));
	bale_writer_free(w);
	return rc;
}

/* The one entry of @dir that is an output, its format checked; NULL
 * (and a failed check) if there is not exactly one. */
static char *only_output(const char *dir, const char *backend)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;
	char *path;
	int n = 0;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		path = bale_strfmt("%s/%s", dir, de->d_name);
		if (path && bale_output_format(path)) {
			CHECK_STR(backend, bale_output_format(path));
			n++;
			free(found);
			found = path;
		} else {
			free(path);
		}
	}
	if (d)
		closedir(d);
	CHECK_EQ(1, n);
	return found;
}

static void test_probe(const char *backend, const char *tmp)
{
	char *dir = bale_strfmt("%s/%s", tmp, backend);
	char *renamed = bale_strfmt("%s/renamed", dir);
	char *partial = bale_strfmt("%s/renamed" BALE_PARTIAL, dir);
	char *out;

	CHECK_EQ(0, mkdir(dir, 0755));
	if (write_tiny(backend, dir) != BALE_OK) {
		CHECK(!"writing a tiny output failed");
		return;
	}
	out = only_output(dir, backend);
	CHECK(out && rename(out, renamed) == 0);
	CHECK_STR(backend, bale_output_format(renamed));
	CHECK(rename(renamed, partial) == 0);
	CHECK(bale_output_format(partial) == NULL);
	free(out);
	free(dir);
	free(renamed);
	free(partial);
}

static void test_not_outputs(const char *tmp)
{
	char *empty = bale_strfmt("%s/empty", tmp);
	char *text = bale_strfmt("%s/notes.h5", tmp);
	FILE *f;

	CHECK_EQ(0, mkdir(empty, 0755));
	CHECK(bale_output_format(empty) == NULL);
	f = fopen(text, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("not an HDF5 file, whatever the name says\n", f);
		fclose(f);
	}
	CHECK(bale_output_format(text) == NULL);
	CHECK(bale_output_format("/nonexistent/data.lmdb") == NULL);
	free(empty);
	free(text);
}

int main(void)
{
	const char *const *names = bale_backend_names();
	char tmp[] = "/tmp/bale-registry-XXXXXX";
	size_t i;

	if (!mkdtemp(tmp))
		return 1;
	test_table();
	test_not_outputs(tmp);
	for (i = 0; names[i]; i++)
		if (bale_backend_find(names[i])->writer)
			test_probe(names[i], tmp);
	check_rmtree(tmp);
	return CHECK_DONE();
}
