/* parquet_meta.c - a Parquet file's footer, decoded and checked
 * (parquet_meta.h). Field ids are parquet.thrift's. */
#include "parquet_meta.h"

#include "bale.h"
#include "bale_store.h"
#include "le.h"
#include "thrift_compact.h"

#include <stdlib.h>
#include <string.h>

#define PQ_MAGIC "PAR1"
#define PQ_TAIL 8		/* the footer's length, then the magic */

/* A schema element, as the footer lists them (depth first). */
struct pq_element {
	const unsigned char *name;
	size_t name_len;
	int type;		/* -1: a group */
	int repetition;		/* 0 required, 1 optional, 2 repeated */
	int converted;
	int64_t children;
};

/* What a decode works with. */
struct pq_decode {
	struct bale_thrift t;
	struct bale_pq_meta *m;
	uint64_t data_end;
	struct pq_element *el;
	size_t nel;
	int nomem;
	struct bale_errbuf *err;
};

static int pq_damaged(struct pq_decode *d, const char *why)
{
	return bale_errbuf_set(d->err, BALE_EINPUT, "damaged Parquet footer: "
	    "%s", d->t.why ? d->t.why : why);
}

/* Out of memory: the decode stops (the error says so). */
static int pq_nomem(struct pq_decode *d)
{
	d->nomem = 1;
	return bale_thrift_fail(&d->t, "no memory");
}

/* An integer field into *@v, within [@lo, @hi]. */
static int pq_int(struct pq_decode *d, uint8_t type, int64_t lo, int64_t hi,
    int64_t *v)
{
	if (bale_thrift_int(&d->t, type, v) != 0)
		return -1;
	if (*v < lo || *v > hi)
		return bale_thrift_fail(&d->t, "a value out of its range");
	return 0;
}

/* One field of a struct being read into @obj: read or skipped. */
typedef int (*pq_field_fn)(struct pq_decode *d, void *obj, int16_t id,
    uint8_t type);

/* A field handed on to its decoder with the decode and its object. */
struct pq_call {
	struct pq_decode *d;
	pq_field_fn fn;
	void *obj;
};

static int pq_field(void *ctx, int16_t id, uint8_t type)
{
	struct pq_call *c = ctx;

	return c->fn(c->d, c->obj, id, type);
}

/* A struct, each field handed to @fn. @return 0 or -1 */
static int pq_struct(struct pq_decode *d, pq_field_fn fn, void *obj)
{
	struct pq_call c = { d, fn, obj };

	return bale_thrift_struct(&d->t, pq_field, &c);
}

static char *pq_string(struct pq_decode *d, uint8_t type)
{
	const unsigned char *p;
	size_t n;
	char *s;

	if (bale_thrift_binary(&d->t, type, &p, &n) != 0)
		return NULL;
	if (memchr(p, '\0', n)) {
		bale_thrift_fail(&d->t, "a name holds a NUL byte");
		return NULL;
	}
	s = strndup((const char *)p, n);
	if (!s)
		pq_nomem(d);
	return s;
}

/* ---- the schema ------------------------------------------------------ */

static int pq_element_field(struct pq_decode *d, void *obj, int16_t id,
    uint8_t type)
{
	struct pq_element *e = obj;
	int64_t v = 0;
	int rc;

	switch (id) {
	case 1:
		rc = pq_int(d, type, 0, 7, &v);
		e->type = (int)v;
		return rc;
	case 3:
		rc = pq_int(d, type, 0, 2, &v);
		e->repetition = (int)v;
		return rc;
	case 4:
		return bale_thrift_binary(&d->t, type, &e->name, &e->name_len);
	case 5:
		return pq_int(d, type, 0, INT32_MAX, &e->children);
	case 6:
		rc = pq_int(d, type, 0, 255, &v);
		e->converted = (int)v;
		return rc;
	default:
		return bale_thrift_skip(&d->t, type);
	}
}

static int pq_element(struct pq_decode *d, struct pq_element *e)
{
	memset(e, 0, sizeof(*e));
	e->type = -1;
	e->converted = -1;
	if (pq_struct(d, pq_element_field, e) != 0)
		return -1;
	return e->name ? 0 : bale_thrift_fail(&d->t, "a schema element "
	    "without a name");
}

static int pq_schema_list(struct pq_decode *d, uint8_t type)
{
	uint8_t elem;
	uint32_t n, i;

	if (bale_thrift_list(&d->t, type, &elem, &n) != 0)
		return -1;
	if (elem != BALE_THRIFT_STRUCT || n == 0)
		return bale_thrift_fail(&d->t, "the schema is not a list of "
		    "elements");
	d->el = calloc(n, sizeof(*d->el));
	if (!d->el)
		return pq_nomem(d);
	d->nel = n;
	for (i = 0; i < n; i++)
		if (pq_element(d, &d->el[i]) != 0)
			return -1;
	return 0;
}

/* Leaf @e, below the groups on @stack (@depth of them, the root first),
 * its levels @def and @rep. */
static int pq_add_leaf(struct pq_decode *d, const struct pq_element *e,
    const size_t *stack, int depth, int def, int rep)
{
	struct bale_pq_meta *m = d->m;
	struct bale_pq_leaf *leaf;
	struct bale_buf path = BALE_BUF_INIT;
	int i;

	if (e->type < 0)
		return bale_thrift_fail(&d->t, "a group without children");
	if (memchr(e->name, '\0', e->name_len))
		return bale_thrift_fail(&d->t, "a column name holds a NUL "
		    "byte");
	for (i = 1; i < depth; i++) {	/* the root is not named */
		bale_buf_add(&path, d->el[stack[i]].name,
		    d->el[stack[i]].name_len);
		bale_buf_puts(&path, ".");
	}
	bale_buf_add(&path, e->name, e->name_len);
	bale_buf_add(&path, "", 1);
	leaf = &m->leaves[m->nleaves];
	if (path.failed) {
		bale_buf_release(&path);
		return pq_nomem(d);
	}
	leaf->path = path.data;
	leaf->type = e->type;
	leaf->converted = e->converted;
	leaf->max_def = def;
	leaf->max_rep = rep;
	m->nleaves++;
	return BALE_OK;
}

/* The leaves, walking the depth-first element list with a stack of the
 * groups open and how many children each still has. */
static int pq_leaves(struct pq_decode *d)
{
	size_t stack[BALE_PQ_MAX_LEVEL + 1];
	int64_t left[BALE_PQ_MAX_LEVEL + 1];
	int def[BALE_PQ_MAX_LEVEL + 1], rep[BALE_PQ_MAX_LEVEL + 1];
	int depth = 1, rc = BALE_OK;
	const struct pq_element *e;
	size_t i;

	d->m->leaves = calloc(d->nel, sizeof(*d->m->leaves));
	if (!d->m->leaves)
		return pq_nomem(d);
	stack[0] = 0;
	left[0] = d->el[0].children;
	def[0] = rep[0] = 0;
	for (i = 1; rc == BALE_OK && i < d->nel; i++) {
		while (depth > 0 && left[depth - 1] == 0)
			depth--;
		if (depth == 0)
			return bale_thrift_fail(&d->t, "schema elements past "
			    "the root's children");
		left[depth - 1]--;
		e = &d->el[i];
		def[depth] = def[depth - 1] + (e->repetition != 0);
		rep[depth] = rep[depth - 1] + (e->repetition == 2);
		if (e->children == 0) {
			rc = pq_add_leaf(d, e, stack, depth, def[depth],
			    rep[depth]);
			continue;
		}
		if (depth == BALE_PQ_MAX_LEVEL)
			return bale_thrift_fail(&d->t, "schema nested too "
			    "deep");
		stack[depth] = i;
		left[depth] = e->children;
		depth++;
	}
	while (rc == BALE_OK && depth > 0 && left[depth - 1] == 0)
		depth--;
	if (rc == BALE_OK && (depth != 0 || d->m->nleaves == 0))
		return bale_thrift_fail(&d->t, "schema elements fewer than "
		    "its groups' children");
	return rc;
}

/* ---- row groups -------------------------------------------------------- */

/* A column chunk's path_in_schema, joined, against leaf @want. */
static int pq_chunk_path(struct pq_decode *d, uint8_t type, const char *want)
{
	const unsigned char *p;
	struct bale_buf path = BALE_BUF_INIT;
	uint8_t elem;
	uint32_t n, i;
	size_t len;
	int same;

	if (bale_thrift_list(&d->t, type, &elem, &n) != 0)
		return -1;
	if (elem != BALE_THRIFT_BINARY)
		return bale_thrift_fail(&d->t, "a column path is not names");
	for (i = 0; i < n; i++) {
		if (bale_thrift_binary(&d->t, elem, &p, &len) != 0) {
			bale_buf_release(&path);
			return -1;
		}
		bale_buf_puts(&path, i ? "." : "");
		bale_buf_add(&path, p, len);
	}
	bale_buf_add(&path, "", 1);
	same = !path.failed && strcmp(path.data, want) == 0;
	bale_buf_release(&path);
	return same ? 0 : bale_thrift_fail(&d->t, "a column chunk names "
	    "another column than the schema's");
}

/* A column chunk being read: its leaf, and where its pages lie. */
struct pq_chunk_read {
	struct bale_pq_chunk *c;
	size_t leaf;
	int64_t data, dict, size;
	int met;		/* its ColumnMetaData was there */
};

/* A chunk's Statistics: only its null count is kept. */
static int pq_statistics_field(struct pq_decode *d, void *obj, int16_t id,
    uint8_t type)
{
	struct bale_pq_chunk *c = obj;

	if (id != 3)
		return bale_thrift_skip(&d->t, type);
	return pq_int(d, type, 0, INT64_MAX, &c->null_count);
}

static int pq_column_meta_field(struct pq_decode *d, void *obj, int16_t id,
    uint8_t type)
{
	struct pq_chunk_read *k = obj;
	int64_t v = 0;
	int rc;

	switch (id) {
	case 1:
		if (pq_int(d, type, 0, 7, &v) != 0)
			return -1;
		return v == d->m->leaves[k->leaf].type ? 0 : bale_thrift_fail(
		    &d->t, "a column chunk's type is not its column's");
	case 3:
		return pq_chunk_path(d, type, d->m->leaves[k->leaf].path);
	case 4:
		rc = pq_int(d, type, 0, 7, &v);
		k->c->codec = (int)v;
		return rc;
	case 5:
		return pq_int(d, type, 0, INT64_MAX, &k->c->num_values);
	case 6:
		return pq_int(d, type, 0, INT64_MAX, &k->c->inflated);
	case 7:
		return pq_int(d, type, 0, INT64_MAX, &k->size);
	case 9:
		return pq_int(d, type, 0, INT64_MAX, &k->data);
	case 11:
		return pq_int(d, type, 0, INT64_MAX, &k->dict);
	case 12:
		if (type != BALE_THRIFT_STRUCT)
			return bale_thrift_skip(&d->t, type);
		return pq_struct(d, pq_statistics_field, k->c);
	default:
		return bale_thrift_skip(&d->t, type);
	}
}

/* Its pages: from the dictionary's (when it has one) on, inside the
 * file's pages. */
static int pq_chunk_place(struct pq_decode *d, struct pq_chunk_read *k)
{
	struct bale_pq_chunk *c = k->c;

	if (!k->met)
		return bale_thrift_fail(&d->t, "a column chunk without its "
		    "metadata (encrypted?)");
	if (k->data < 0 || k->size < 0)
		return bale_thrift_fail(&d->t, "a column chunk without its "
		    "pages' place");
	/* some writers give 0 for no dictionary */
	c->start = (uint64_t)(k->dict > 0 && k->dict < k->data ? k->dict :
	    k->data);
	c->size = (uint64_t)k->size;
	if (c->start < 4 || c->start > d->data_end ||
	    c->size > d->data_end - c->start)
		return bale_thrift_fail(&d->t, "a column chunk lies outside "
		    "the file's pages");
	return 0;
}

static int pq_column_chunk_field(struct pq_decode *d, void *obj,
    int16_t id, uint8_t type)
{
	struct pq_chunk_read *k = obj;

	if (id == 1)
		return bale_thrift_fail(&d->t, "a column chunk in another "
		    "file (not supported)");
	if (id != 3 || type != BALE_THRIFT_STRUCT || k->met)
		return bale_thrift_skip(&d->t, type);
	k->met = 1;
	return pq_struct(d, pq_column_meta_field, k);
}

static int pq_column_chunk(struct pq_decode *d, struct bale_pq_chunk *c,
    size_t leaf)
{
	struct pq_chunk_read k = { c, leaf, -1, -1, -1, 0 };

	c->null_count = -1;

	if (pq_struct(d, pq_column_chunk_field, &k) != 0)
		return -1;
	return pq_chunk_place(d, &k);
}

static int pq_columns(struct pq_decode *d, struct bale_pq_group *g,
    uint8_t type)
{
	uint8_t elem;
	uint32_t n, i;

	if (bale_thrift_list(&d->t, type, &elem, &n) != 0)
		return -1;
	if (elem != BALE_THRIFT_STRUCT || n != d->m->nleaves)
		return bale_thrift_fail(&d->t, "a row group's columns are not "
		    "the schema's");
	g->chunks = calloc(n ? n : 1, sizeof(*g->chunks));
	if (!g->chunks)
		return pq_nomem(d);
	for (i = 0; i < n; i++)
		if (pq_column_chunk(d, &g->chunks[i], i) != 0)
			return -1;
	return 0;
}

/* A row group being read: its columns met once. */
struct pq_group_read {
	struct bale_pq_group *g;
	int cols;
};

static int pq_row_group_field(struct pq_decode *d, void *obj, int16_t id,
    uint8_t type)
{
	struct pq_group_read *k = obj;

	if (id == 1 && !k->cols) {
		k->cols = 1;
		return pq_columns(d, k->g, type);
	}
	if (id == 3)
		return pq_int(d, type, 0, INT64_MAX, &k->g->num_rows);
	return bale_thrift_skip(&d->t, type);
}

static int pq_row_group(struct pq_decode *d, struct bale_pq_group *g)
{
	struct pq_group_read k = { g, 0 };

	if (pq_struct(d, pq_row_group_field, &k) != 0)
		return -1;
	return k.cols ? 0 : bale_thrift_fail(&d->t, "a row group without "
	    "columns");
}

static int pq_row_groups(struct pq_decode *d, uint8_t type)
{
	struct bale_pq_meta *m = d->m;
	uint8_t elem;
	uint32_t n;

	if (!m->nleaves)
		return bale_thrift_fail(&d->t, "row groups before the schema");
	if (bale_thrift_list(&d->t, type, &elem, &n) != 0)
		return -1;
	if (elem != BALE_THRIFT_STRUCT)
		return bale_thrift_fail(&d->t, "row groups are not structs");
	m->groups = calloc(n ? n : 1, sizeof(*m->groups));
	if (!m->groups)
		return pq_nomem(d);
	for (m->ngroups = 0; m->ngroups < n; m->ngroups++)
		if (pq_row_group(d, &m->groups[m->ngroups]) != 0) {
			m->ngroups++;	/* its chunks are freed with it */
			return -1;
		}
	return 0;
}

/* ---- key-value metadata ----------------------------------------------- */

static int pq_key_value_field(struct pq_decode *d, void *obj, int16_t id,
    uint8_t type)
{
	size_t i = *(size_t *)obj;
	char **slot = id == 1 ? &d->m->keys[i] : id == 2 ? &d->m->values[i] :
	    NULL;

	if (!slot || *slot)
		return bale_thrift_skip(&d->t, type);
	*slot = pq_string(d, type);
	return *slot ? 0 : -1;
}

static int pq_key_value(struct pq_decode *d, size_t i)
{
	if (pq_struct(d, pq_key_value_field, &i) != 0)
		return -1;
	return d->m->keys[i] ? 0 : bale_thrift_fail(&d->t, "a metadata value "
	    "without its key");
}

static int pq_key_values(struct pq_decode *d, uint8_t type)
{
	struct bale_pq_meta *m = d->m;
	uint8_t elem;
	uint32_t n;

	if (m->keys || bale_thrift_list(&d->t, type, &elem, &n) != 0)
		return m->keys ? bale_thrift_skip(&d->t, type) : -1;
	if (elem != BALE_THRIFT_STRUCT)
		return bale_thrift_fail(&d->t, "metadata is not key-values");
	m->keys = calloc(n ? n : 1, sizeof(char *));
	m->values = calloc(n ? n : 1, sizeof(char *));
	if (!m->keys || !m->values)
		return pq_nomem(d);
	for (m->nkv = 0; m->nkv < n; m->nkv++)
		if (pq_key_value(d, m->nkv) != 0) {
			m->nkv++;
			return -1;
		}
	return 0;
}

/* ---- the file --------------------------------------------------------- */

static int pq_file_field(struct pq_decode *d, void *obj, int16_t id,
    uint8_t type)
{
	(void)obj;
	if (id == 2 && !d->el)
		return pq_schema_list(d, type) != 0 ? -1 : pq_leaves(d);
	if (id == 3)
		return pq_int(d, type, 0, INT64_MAX, &d->m->num_rows);
	if (id == 4 && !d->m->groups)
		return pq_row_groups(d, type);
	if (id == 5)
		return pq_key_values(d, type);
	return bale_thrift_skip(&d->t, type);
}

static int pq_file_meta(struct pq_decode *d)
{
	if (pq_struct(d, pq_file_field, NULL) != 0)
		return d->nomem ? bale_errbuf_set(d->err, BALE_ENOMEM, "no "
		    "memory") : pq_damaged(d, "");
	if (!d->el || !d->m->groups)
		return pq_damaged(d, "no schema or no row groups");
	return BALE_OK;
}

/* The row groups' rows are the file's. */
static int pq_check_rows(struct pq_decode *d)
{
	const struct bale_pq_meta *m = d->m;
	int64_t rows = 0;
	size_t i;

	for (i = 0; i < m->ngroups; i++) {
		if (m->groups[i].num_rows > INT64_MAX - rows)
			return pq_damaged(d, "row counts overflow");
		rows += m->groups[i].num_rows;
	}
	return rows == m->num_rows ? BALE_OK : pq_damaged(d, "the row "
	    "groups' rows are not the file's");
}

int bale_pq_meta_decode(struct bale_pq_meta *m, const void *p, size_t n,
    uint64_t data_end, struct bale_errbuf *err)
{
	struct pq_decode d;
	int rc;

	memset(m, 0, sizeof(*m));
	memset(&d, 0, sizeof(d));
	bale_thrift_init(&d.t, p, n);
	d.m = m;
	d.data_end = data_end;
	d.err = err;
	rc = pq_file_meta(&d);
	if (rc == BALE_OK)
		rc = pq_check_rows(&d);
	free(d.el);
	if (rc != BALE_OK)
		bale_pq_meta_release(m);
	return rc;
}

int bale_pq_meta_read(struct bale_pq_meta *m, int fd, uint64_t size,
    struct bale_errbuf *err)
{
	unsigned char tail[PQ_TAIL], head[4];
	struct bale_errbuf why;
	uint64_t len;
	size_t got, got_head;
	char *footer;
	int rc;

	memset(m, 0, sizeof(*m));
	if (size < 4 + PQ_TAIL)
		return bale_errbuf_set(err, BALE_EINPUT, "not a Parquet file "
		    "(%llu bytes)", (unsigned long long)size);
	rc = bale_store_fd_scan(fd, head, 4, 0, &got_head, &why);
	if (rc == BALE_OK)
		rc = bale_store_fd_scan(fd, tail, PQ_TAIL, size - PQ_TAIL, &got,
		    &why);
	if (rc != BALE_OK)
		return bale_errbuf_set(err, rc, "%s", why.msg);
	if (got_head != 4 || got != PQ_TAIL || memcmp(head, PQ_MAGIC, 4) ||
	    memcmp(tail + 4, PQ_MAGIC, 4))
		return bale_errbuf_set(err, BALE_EINPUT, "not a Parquet file "
		    "(no PAR1 at its start and end)");
	len = bale_le32(tail);
	if (len > size - 4 - PQ_TAIL || len > BALE_PQ_FOOTER_MAX)
		return bale_errbuf_set(err, BALE_EINPUT, "damaged Parquet "
		    "file: its footer claims %llu bytes of %llu",
		    (unsigned long long)len, (unsigned long long)size);
	footer = malloc(len ? len : 1);
	if (!footer)
		return bale_errbuf_set(err, BALE_ENOMEM, "no memory");
	rc = bale_store_fd_scan(fd, footer, len, size - PQ_TAIL - len, &got,
	    &why);
	if (rc == BALE_OK && got != len)
		rc = bale_errbuf_set(&why, BALE_EINPUT, "the file shrank");
	rc = rc != BALE_OK ? bale_errbuf_set(err, rc, "%s", why.msg) :
	    bale_pq_meta_decode(m, footer, len, size - PQ_TAIL - len, err);
	free(footer);
	return rc;
}

const char *bale_pq_meta_value(const struct bale_pq_meta *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->nkv; i++)
		if (strcmp(m->keys[i], key) == 0)
			return m->values[i];
	return NULL;
}

long bale_pq_meta_leaf(const struct bale_pq_meta *m, const char *path)
{
	size_t i;

	for (i = 0; i < m->nleaves; i++)
		if (strcmp(m->leaves[i].path, path) == 0)
			return (long)i;
	return -1;
}

void bale_pq_meta_release(struct bale_pq_meta *m)
{
	size_t i;

	for (i = 0; i < m->nleaves; i++)
		free(m->leaves[i].path);
	free(m->leaves);
	for (i = 0; i < m->ngroups; i++)
		free(m->groups[i].chunks);
	free(m->groups);
	for (i = 0; i < m->nkv; i++) {
		free(m->keys[i]);
		free(m->values[i]);
	}
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}
