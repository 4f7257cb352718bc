/* loader_store.h - a crop into the batch: layout and type. */
#ifndef BALE_LOADER_STORE_H
#define BALE_LOADER_STORE_H

#include <stddef.h>

struct bale_loader_store {
	int planes;		/* 3 x H x W; else H x W x 3 */
	int normalize;		/* float32 through @table; else bytes */
	float table[3][256];	/* per channel: (v / 255 - mean) / std */
};

/** Set up @s: planes or rows; with @mean and @std (per channel, of 0..1
 *  values), float32 normalized, else bytes (both NULL). */
void bale_loader_store_init(struct bale_loader_store *s, int planes,
    const float mean[3], const float std[3]);
/** The bytes one @w x @h image takes in a batch. */
size_t bale_loader_store_bytes(const struct bale_loader_store *s, int w,
    int h);
/** Whether a crop (RGB rows) already is what the batch holds. */
int bale_loader_store_direct(const struct bale_loader_store *s);
/** @rgb (@w x @h, RGB rows) into @dst as @s says. */
void bale_loader_store(const struct bale_loader_store *s,
    const unsigned char *rgb, int w, int h, void *dst);

#endif
