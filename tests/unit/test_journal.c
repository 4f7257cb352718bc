/* test_journal.c - the resume journal survives a write and a read with
 * every field, and a missing, unreadable or foreign file is told apart. */
#include "journal.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/bale-journal-XXXXXX";

static char *in_dir(const char *name)
{
	return bale_strfmt("%s/%s", dir, name);
}

static void fill(struct bale_journal *j)
{
	memset(j, 0, sizeof(*j));
	memcpy(j->fingerprint, "0123456789abcdef", 17);
	j->writers[0].name = strdup("wds");
	j->writers[0].next = 120;
	j->writers[0].state = strdup("{\"shards\":3}");
	j->writers[1].name = strdup("lmdb");
	j->writers[1].next = 0;
	j->nwriters = 2;
	CHECK_EQ(0, bale_journal_skip(j, 7, "c\x01/\xff name.jpg",
	    "empty file (0 bytes)"));
	CHECK_EQ(0, bale_journal_skip(j, 99, "d/x.jpg", "a \"quoted\" why"));
}

static void test_round_trip(void)
{
	struct bale_journal j;
	struct bale_journal back;
	struct bale_errbuf err;
	char *path = in_dir("data-resume.json");

	fill(&j);
	CHECK_EQ(0, bale_journal_write(&j, path, 0, &err));
	CHECK_EQ(BALE_OK, bale_journal_read(&back, path, &err));
	CHECK_STR("0123456789abcdef", back.fingerprint);
	CHECK_EQ(2, back.nwriters);
	CHECK_STR("wds", back.writers[0].name);
	CHECK_EQ(120, back.writers[0].next);
	CHECK_STR("{\"shards\":3}", back.writers[0].state);
	CHECK_STR("lmdb", back.writers[1].name);
	CHECK(back.writers[1].state == NULL);
	CHECK_EQ(2, back.nskipped);
	CHECK_EQ(7, back.skipped[0].pos);
	CHECK_STR("c\x01/\xff name.jpg", back.skipped[0].path);
	CHECK_STR("a \"quoted\" why", back.skipped[1].why);
	bale_journal_release(&j);
	bale_journal_release(&back);
	free(path);
}

static void test_missing_and_foreign(void)
{
	struct bale_journal j;
	struct bale_errbuf err;
	char *missing = in_dir("none-resume.json");
	char *foreign = in_dir("other-resume.json");
	FILE *f = fopen(foreign, "w");

	CHECK_EQ(BALE_ENOENT, bale_journal_read(&j, missing, &err));
	CHECK(f != NULL);
	if (f) {
		fputs("{\"fingerprint\": \"short\", \"writers\": []}", f);
		fclose(f);
	}
	CHECK_EQ(BALE_EINVAL, bale_journal_read(&j, foreign, &err));
	CHECK(strstr(err.msg, "is not a bale resume journal") != NULL);
	CHECK_EQ(BALE_EIO, bale_journal_read(&j, dir, &err));	/* a folder */
	free(missing);
	free(foreign);
}

int main(void)
{

	if (!mkdtemp(dir))
		return 1;
	test_round_trip();
	test_missing_and_foreign();
	check_rmtree(dir);
	return CHECK_DONE();
}
