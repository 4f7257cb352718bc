/* json.c - JSON string escaping and key/value helpers. */
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <inttypes.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0. */
static size_t json_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;
	size_t i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Bytes at @s (at most @n) that stand for themselves in a JSON string. */
static size_t json_plain_run(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' &&
	    s[i] != '\\')
		i++;
	return i;
}

static void json_escape_byte(struct bale_buf *b, unsigned char c)
{
	switch (c) {
	case '"': bale_buf_puts(b, "\\\""); break;
	case '\\': bale_buf_puts(b, "\\\\"); break;
	case '\n': bale_buf_puts(b, "\\n"); break;
	case '\r': bale_buf_puts(b, "\\r"); break;
	case '\t': bale_buf_puts(b, "\\t"); break;
	default:
		if (c < 0x20)
			bale_buf_printf(b, "\\u%04x", c);
		else
			bale_buf_add(b, &c, 1);
	}
}

void bale_json_strn(struct bale_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	size_t len;

	bale_buf_add(b, "\"", 1);
	while (i < n) {
		/* the common case, a run of ASCII that needs no escape, goes
		 * in whole: byte by byte it was a writer's hottest loop */
		len = json_plain_run(p + i, n - i);
		if (len) {
			bale_buf_add(b, p + i, len);
			i += len;
			continue;
		}
		len = json_utf8_len(p + i, n - i);
		if (len == 1)
			json_escape_byte(b, p[i]);
		else if (len > 1)
			bale_buf_add(b, p + i, len);
		else
			bale_buf_printf(b, "\\udc%02x", p[i]);
		i += len ? len : 1;
	}
	bale_buf_add(b, "\"", 1);
}

void bale_json_str(struct bale_buf *b, const char *s)
{
	if (!s)
		bale_buf_puts(b, "null");
	else
		bale_json_strn(b, s, strlen(s));
}

void bale_json_key(struct bale_buf *b, const char *key, int first)
{
	if (!first)
		bale_buf_add(b, ",", 1);
	bale_json_str(b, key);
	bale_buf_add(b, ":", 1);
}

void bale_json_kv_str(struct bale_buf *b, const char *key, const char *v,
    int first)
{
	bale_json_key(b, key, first);
	bale_json_str(b, v);
}

void bale_json_str_array(struct bale_buf *b, const char *const *s,
    size_t n)
{
	size_t i;

	bale_buf_puts(b, "[");
	for (i = 0; i < n; i++) {
		if (i)
			bale_buf_puts(b, ",");
		bale_json_str(b, s ? s[i] : NULL);
	}
	bale_buf_puts(b, "]");
}

void bale_json_kv_u64(struct bale_buf *b, const char *key, uint64_t v,
    int first)
{
	bale_json_key(b, key, first);
	bale_buf_u64(b, v, 0);
}
