/* walk_arc.h - what the archive kinds share with walk_archive.c, which
 * lists one archive or several: source_tar.c, source_zip.c and
 * source_compressed_tar.c (streamed), and walk_wds.c. A tar
 * is listed whole before any member is taken, since only its whole list
 * says whether it is a tar of tars. */
#ifndef BALE_WALK_ARC_H
#define BALE_WALK_ARC_H

#include "walk_int.h"

#include "kind.h"
#include "tar_scan.h"

/* One member of a tar as listed. */
struct arc_entry {
	size_t name;		/* offset in arc_scan.names */
	enum walk_member_kind kind;
	char type;
	uint64_t offset;	/* of its data; streamed: its ordinal */
	uint64_t size;
	size_t inner_of;	/* streamed: 1 + index of the inner tar it is
				 * in, 0 at the top level */
	size_t damage;		/* streamed inner tar: 1 + names offset of
				 * why its listing stopped, 0 if whole */
	size_t data;		/* streamed: 1 + names offset of its bytes
				 * (a WebDataset label or JSON, kept as it
				 * was listed), 0 if not kept */
};

struct arc_scan {
	struct bale_walk *w;
	const struct bale_source_kind *kind;	/* the archive's */
	int fd;			/* the archive */
	int wds;		/* a WebDataset shard, whatever it holds */
	const char *prefix;	/* inner tar: its class */
	struct arc_entry *ents;
	size_t nents;
	size_t capents;
	struct bale_buf names;
};

enum walk_member_kind bale_arc_tar_kind(enum bale_tar_kind k);
/** List a member (type, inner_of, damage: 0). */
int bale_arc_keep_entry(struct arc_scan *s, const char *name,
    enum walk_member_kind kind, uint64_t offset, uint64_t size);
/** Take the listed members: as they are, or those of each inner tar. */
int bale_arc_take_entries(struct arc_scan *s);
/** Take one member of the archive @s lists, as it is (no inner tar). */
int bale_arc_take_member(struct arc_scan *s, const char *name,
    enum walk_member_kind kind, char type, uint64_t offset, uint64_t size);
/** A listing stopped by damage (@rc BALE_EINPUT) keeps what it found
 *  before it, noted; any other error fails the walk. */
int bale_arc_damaged(struct bale_walk *w, const char *where, int rc,
    int found_any, struct bale_errbuf *err);

/* walk_wds.c */

/** 1 when member @name is a WebDataset label (KEY.cls). */
int bale_walk_wds_is_label(const char *name);
/** 1 when the listed tar holds WebDataset samples: KEY.cls members. */
int bale_walk_wds_is_shard(const struct arc_scan *s);
/** Take the listed members as WebDataset samples, in their order. */
int bale_walk_wds_take_entries(struct arc_scan *s);
/** 1 when a member this size and name is a WebDataset .cls or .json
 *  small enough to keep as a compressed tar is listed: it cannot be
 *  read later without another pass. */
int bale_walk_wds_keeps_text(const char *name, uint64_t size);
/** After the last shard: warn of the members not carried over. */
int bale_walk_wds_note_dropped(struct bale_walk *w);

#endif
