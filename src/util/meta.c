/* meta.c - per-sample and per-dataset JSON shared by the backends. */
#include "bale_backend.h"
#include "bale_backend_util.h"


#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bale_meta_json(struct bale_buf *b, const struct bale_sample *s)
{
	static const char hex[] = "0123456789abcdef";
	char crc[9];
	int i;

	for (i = 0; i < 8; i++)
		crc[i] = hex[s->crc32 >> (28 - 4 * i) & 0xf];
	crc[8] = '\0';
	bale_buf_reset(b);
	bale_buf_puts(b, "{");
	bale_json_kv_str(b, "path", s->relpath, 1);
	bale_json_kv_u64(b, "size", s->size, 0);
	bale_json_kv_str(b, "crc32", crc, 0);
	bale_json_key(b, "label", 0);
	bale_buf_i64(b, s->label);
	bale_json_kv_str(b, "class", s->label_name, 0);
	bale_buf_puts(b, "}");
}

void bale_meta_classes(struct bale_buf *b, const struct bale_dataset *ds)
{
	bale_json_str_array(b, ds->classes, ds->nclasses);
}

void bale_meta_parse(const char *json, size_t n, char **path,
    uint32_t *crc, int *has_crc)
{
	const char *end = json + n;
	const char *vend;
	const char *v;
	char hex[9];
	char *stop;

	v = bale_jsonr_find(json, end, "path", &vend);
	*path = v ? bale_jsonr_string(v, vend) : NULL;
	*has_crc = 0;
	v = bale_jsonr_find(json, end, "crc32", &vend);
	if (!v || vend - v != 10 || v[0] != '"')
		return;
	memcpy(hex, v + 1, 8);
	hex[8] = '\0';
	*crc = (uint32_t)strtoul(hex, &stop, 16);
	*has_crc = *stop == '\0';
}

int bale_meta_label_agrees(const char *json, size_t n, int64_t label,
    int64_t *stored)
{
	const char *vend;
	const char *v = bale_jsonr_find(json, json + n, "label", &vend);

	/* none, or not a number (other writers' JSON): nothing to compare */
	if (!v || bale_meta_label(v, (size_t)(vend - v), stored) != 0)
		return 1;
	return *stored == label;
}

int bale_meta_label(const void *text, size_t n, int64_t *label)
{
	char digits[24];
	char *end;

	if (n == 0 || n >= sizeof(digits))
		return -1;
	memcpy(digits, text, n);
	digits[n] = '\0';
	if (digits[0] != '-' && (digits[0] < '0' || digits[0] > '9'))
		return -1;
	errno = 0;
	*label = strtoll(digits, &end, 10);
	while (*end == '\n' || *end == '\r' || *end == ' ')	/* "3\n" */
		end++;
	return end == digits || *end != '\0' || errno == ERANGE ? -1 : 0;
}
