/* loader_bad.c - samples that do not decode: each noted once, then
 * replaced (training), left out of its batch, or the loader's failure,
 * as the caller chose. Evaluation must never score a copy of another
 * sample in a bad one's place, so it fails by default. Memory grows
 * with the bad samples met, never with the output's size. */
#include "loader_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is @sample in the set? Insert it when not (the caller keeps the set
 * at most half full). @return 1 when it was there, 0 when inserted, -1
 * without memory */
static int seen_add(struct loader_seen *s, uint64_t sample);

static size_t seen_home(uint64_t sample, size_t cap)
{
	return (size_t)((sample * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static int seen_grow(struct loader_seen *s)
{
	struct loader_seen bigger = { NULL, s->cap ? s->cap * 2 : 64 };
	size_t i;

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -1;
	for (i = 0; i < s->cap; i++)
		if (s->slots[i])
			seen_add(&bigger, s->slots[i] - 1);
	free(s->slots);
	*s = bigger;
	return 0;
}

static int seen_add(struct loader_seen *s, uint64_t sample)
{
	size_t k;

	if (!s->cap)
		return seen_grow(s) == 0 ? seen_add(s, sample) : -1;
	for (k = seen_home(sample, s->cap); s->slots[k];
	    k = (k + 1) & (s->cap - 1))
		if (s->slots[k] == sample + 1)
			return 1;
	s->slots[k] = sample + 1;
	return 0;
}

void bale_loader_note_bad(struct bale_loader *l, uint64_t sample, int own,
    const char *why)
{
	char *copy;
	int was;

	pthread_mutex_lock(&l->lock);
	l->nbad_epoch += own != 0;
	if (l->nbad * 2 + 2 > l->seen.cap && seen_grow(&l->seen) != 0)
		was = 0;	/* without memory it may be counted twice */
	else
		was = seen_add(&l->seen, sample);
	if (was != 1) {
		l->nbad++;
		if (l->nbad_kept < LOADER_MAX_BAD && (copy = strdup(why))) {
			l->bad[l->nbad_kept].sample = sample;
			l->bad[l->nbad_kept++].why = copy;
		}
	}
	pthread_mutex_unlock(&l->lock);
}

/* @sample's key and source path, read again with its metadata (the
 * loader's readers skip it), or "?" and "unknown". */
static void bad_source(const struct bale_loader *l, uint64_t sample,
    char *key, char *src, size_t cap)
{
	struct bale_reader *r = NULL;
	struct bale_blob b;

	snprintf(key, cap, "?");
	snprintf(src, cap, "unknown");
	if (bale_reader_new(&r) == BALE_OK &&
	    bale_reader_open(r, l->o.format, l->path) == BALE_OK &&
	    bale_reader_get(r, sample, &b) == BALE_OK) {
		if (b.key)
			snprintf(key, cap, "%s", b.key);
		if (b.path)
			snprintf(src, cap, "%s", b.path);
	}
	bale_reader_free(r);
}

int bale_loader_bad_outcome(struct bale_loader *l, uint64_t sample,
    int read, struct bale_errbuf *err)
{
	struct bale_errbuf why = *err;
	char key[256], src[1024];

	if (l->o.on_bad == BALE_BAD_SKIP)
		return LOADER_LEFT_OUT;
	if (l->o.on_bad != BALE_BAD_FAIL)
		return BALE_OK;
	bad_source(l, sample, key, src, sizeof(key) < sizeof(src) ?
	    sizeof(key) : sizeof(src));
	return bale_errbuf_set(err, BALE_EINPUT, "sample %" PRIu64 " (key "
	    "'%s', source '%s') %s: %s", sample, key, src, read ?
	    "does not decode" : "cannot be read", why.msg);
}

unsigned bale_loader_compact(const struct bale_loader *l,
    struct loader_slot *slot, unsigned n)
{
	unsigned i, kept = 0;

	if (!slot->nleft_out)
		return n;
	for (i = 0; i < n; i++) {
		if (slot->left_out[i])
			continue;
		if (kept != i) {
			memmove(slot->images + kept * l->sample_bytes,
			    slot->images + i * l->sample_bytes,
			    l->sample_bytes);
			slot->labels[kept] = slot->labels[i];
		}
		kept++;
	}
	slot->nleft_out = 0;	/* compacted once */
	return kept;
}

uint64_t bale_loader_nbad(const struct bale_loader *l)
{
	return l->nbad;
}

uint64_t bale_loader_nbad_epoch(const struct bale_loader *l)
{
	return l->nbad_epoch;
}

int bale_loader_bad(const struct bale_loader *l, size_t i, uint64_t *sample,
    const char **why)
{
	if (i >= l->nbad_kept)
		return BALE_ENOENT;
	*sample = l->bad[i].sample;
	*why = l->bad[i].why;
	return BALE_OK;
}

void bale_loader_bad_release(struct bale_loader *l)
{
	size_t k;

	for (k = 0; k < l->nbad_kept; k++)
		free(l->bad[k].why);
	free(l->bad);
	free(l->seen.slots);
}
